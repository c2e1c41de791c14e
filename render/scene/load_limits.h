// Resource limits of one scene, so that a small hostile file cannot make pkrt allocate without bound:
// total triangles (OBJ faces, sphere subdivisions, quads), total texels, bytes of glTF assets, and corners per OBJ polygon
// (the OBJ library's ear clipping is quadratic in them), and pixels per image. Each is checked before the memory is allocated;
// the flags --max-triangles, --max-texels, --max-asset-bytes and --max-polygon-corners raise them (docs/scenes.md, "Limits").
#pragma once

#include <cstdint>
#include <string>

namespace pkrt {

// What to do about a texture file that does not exist (--missing-textures): fail the load, or render the
// material's constant colour and say which files were missing.
enum class MissingTextures { kError, kWarn };

struct LoadLimits {
    uint64_t max_triangles = uint64_t(8) << 20;  // about 4.7 GiB of host memory at kBytesPerTriangle
    uint64_t max_texels = uint64_t(256) << 20;   // 1 GiB of RGBA8
    uint64_t max_polygon_corners = 256;          // ear clipping is quadratic: the cost at 256 is in BENCHMARKS.md
    uint64_t max_pixels = uint64_t(64) << 20;    // 8192 x 8192: 4 GiB of host memory at kBytesPerPixel
    // glTF files, their buffers and images, all counted: tinygltf keeps a copy of each buffer a file names,
    // so 150 buffers naming one 64 MB file would take 9.6 GB.
    uint64_t max_asset_bytes = uint64_t(4) << 30;
    MissingTextures missing_textures = MissingTextures::kError;  // a policy beside the limits, read by the same loaders
};

// Peak host memory per triangle while loading and preparing: vertices and shading (112 B), the OBJ text
// and the OBJ library's copies, BVH nodes and the build's scratch arrays. An upper estimate of the peak
// RSS per triangle measured on real and generated scenes (BENCHMARKS.md, "Numbers from code comments").
constexpr uint64_t kBytesPerTriangle = 600;
constexpr uint64_t kBytesPerTexel = 4;
// An environment map's texel costs as much as this many texture texels: 28 bytes at the peak, float RGB
// radiance (12), its sampling table (4) and the decoder's float RGB copy while the file is read (12).
constexpr uint64_t kEnvironmentTexelWeight = 7;
// A float texture's texel (Radiance .hdr, OpenEXR) likewise: 28 bytes at the peak, RGBA32F (16) and the
// decoder's float RGB (12) while the file is read.
constexpr uint64_t kFloatTexelWeight = 7;

// Per pixel of the frame: accumulation and image (RGB float each), 8-bit copy and the encoded outputs.
constexpr uint64_t kBytesPerPixel = 64;

// The most host memory a render of this size needs (what `pkrt render` says before rendering);
// `decode_bytes`: the most one decoding held for a moment beyond that (SceneLoadStats::decode_peak_bytes).
inline uint64_t render_memory_estimate(uint64_t triangles, uint64_t texels, uint64_t pixels,
                                       uint64_t decode_bytes = 0) {
    return triangles * kBytesPerTriangle + texels * kBytesPerTexel + pixels * kBytesPerPixel + decode_bytes;
}

// "1.5 GiB" and the like, for messages.
std::string format_bytes(uint64_t bytes);

// Throw Error naming `what` (a file, or a JSON key) when `used + more` exceeds the limit.
void check_triangle_budget(const LoadLimits& limits, const std::string& what, uint64_t used, uint64_t more);
void check_texel_budget(const LoadLimits& limits, const std::string& what, uint64_t used, uint64_t more);
void check_asset_budget(const LoadLimits& limits, const std::string& what, uint64_t used, uint64_t more);
// The same for an image of width x height: the frame buffers grow with it, the scene's budgets do not cover them.
void check_pixel_budget(const LoadLimits& limits, const std::string& what, int width, int height);

}  // namespace pkrt
