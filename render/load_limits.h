// Resource limits of one scene, so that a small hostile file cannot make pkrt allocate without bound:
// total triangles (OBJ faces, sphere subdivisions, quads), total texels, and corners per OBJ polygon
// (the OBJ library's ear clipping is quadratic in them). Each is checked before the memory is allocated;
// the flags --max-triangles, --max-texels and --max-polygon-corners raise them (README.md, "Limits").
#pragma once

#include <cstdint>
#include <string>

namespace pkrt {

struct LoadLimits {
    uint64_t max_triangles = uint64_t(16) << 20;  // about 4 GiB of host memory at kBytesPerTriangle
    uint64_t max_texels = uint64_t(256) << 20;    // 1 GiB of RGBA8
    uint64_t max_polygon_corners = 1024;
};

// Host memory per triangle while loading and preparing: vertices and shading (112 B), the OBJ
// library's copies, BVH nodes and the build's scratch arrays; an upper estimate measured on Sponza.
constexpr uint64_t kBytesPerTriangle = 256;
constexpr uint64_t kBytesPerTexel = 4;

// "1.5 GiB" and the like, for messages.
std::string format_bytes(uint64_t bytes);

// Throw Error naming `what` (a file, or a JSON key) when `used + more` exceeds the limit.
void check_triangle_budget(const LoadLimits& limits, const std::string& what, uint64_t used, uint64_t more);
void check_texel_budget(const LoadLimits& limits, const std::string& what, uint64_t used, uint64_t more);

}  // namespace pkrt
