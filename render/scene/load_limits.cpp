#include "render/scene/load_limits.h"

#include <cstdio>

#include "render/error.h"

namespace pkrt {

std::string format_bytes(uint64_t bytes) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double v = static_cast<double>(bytes);
    int u = 0;
    while (v >= 1024.0 && u < 6) {
        v /= 1024.0;
        ++u;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, u ? "%.1f %s" : "%.0f %s", v, units[u]);
    return buf;
}

namespace {

void check(const std::string& what, uint64_t used, uint64_t more, uint64_t limit, const char* noun, uint64_t bytes_each,
           const char* flag, const char* whose = "the scene") {
    if (more <= limit && used <= limit - more) return;
    // Saturate: a sphere's 20 * 4^n or a header's width x height may be beyond any budget.
    uint64_t total = more > UINT64_MAX - used ? UINT64_MAX : used + more;
    uint64_t bytes = total > UINT64_MAX / bytes_each ? UINT64_MAX : total * bytes_each;
    throw Error(what + ": " + whose + " would have " + std::to_string(total) + " " + noun + " (about " +
                format_bytes(bytes) + "), more than the limit of " + std::to_string(limit) + " (raise it with " + flag +
                ")");
}

}  // namespace

void check_triangle_budget(const LoadLimits& limits, const std::string& what, uint64_t used, uint64_t more) {
    check(what, used, more, limits.max_triangles, "triangles", kBytesPerTriangle, "--max-triangles");
}

void check_texel_budget(const LoadLimits& limits, const std::string& what, uint64_t used, uint64_t more) {
    check(what, used, more, limits.max_texels, "texels", kBytesPerTexel, "--max-texels");
}

void check_asset_budget(const LoadLimits& limits, const std::string& what, uint64_t used, uint64_t more) {
    check(what, used, more, limits.max_asset_bytes, "bytes of glTF files, buffers and images", 1, "--max-asset-bytes");
}

void check_pixel_budget(const LoadLimits& limits, const std::string& what, int width, int height) {
    check(what, 0, static_cast<uint64_t>(width) * static_cast<uint64_t>(height), limits.max_pixels, "pixels",
          kBytesPerPixel, "--max-pixels", "the image");
}

}  // namespace pkrt
