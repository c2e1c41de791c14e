// The image decoders behind load_texture (render/texture/texture_loader.cpp) and the environment map loader,
// one file per library: texture_png.cpp (libpng), texture_jpeg.cpp (libjpeg-turbo), texture_stb.cpp
// (TGA, BMP and Radiance .hdr through stb_image, each file's structure checked here first) and
// texture_exr.cpp (OpenEXR). All input is untrusted: each decoder throws Error naming the file, and
// calls `check` with the image's size before it allocates any pixel memory (the caller's budget).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "render/scene/input_file.h"
#include "kernels/vec3.h"
#include "render/scene/scene.h"

namespace pkrt {

constexpr int kMaxTextureSide = 32768;  // texel offsets stay within 32 bits on the device

// Throws when a width x height image does not fit; called before pixel memory is allocated.
using SizeCheck = std::function<void(uint64_t width, uint64_t height)>;

// Within the budget a header may still claim far more pixels than the file can hold: decoding would
// allocate the texels and then fail or fill them with nothing. `min_bytes` is a safe lower bound on the
// size of a file with that many pixels.
void check_plausible(const InputFile& f, uint64_t w, uint64_t h, uint64_t min_bytes);

// Signatures. TGA has none: tga_header_problem is nullptr for a header pkrt reads, else what is wrong.
bool is_png(const std::string& b);
bool is_jpeg(const std::string& b);
bool is_bmp(const std::string& b);
bool is_radiance(const std::string& b);
bool is_openexr(const std::string& b);
const char* tga_header_problem(const std::string& b);

// Into t.width, t.height and t.texels (RGBA8, row 0 at the top): code values as stored, taken as sRGB
// colour (or linear data, as the material says); no file's gamma or colour profile is applied.
void decode_png(const InputFile& f, const SizeCheck& check, TextureImage& t);
void decode_jpeg(const InputFile& f, const SizeCheck& check, TextureImage& t);
void decode_tga(const InputFile& f, const SizeCheck& check, TextureImage& t);
void decode_bmp(const InputFile& f, const SizeCheck& check, TextureImage& t);

// Linear float RGB, row 0 at the top: environment maps and float textures.
struct FloatImage {
    int width = 0, height = 0;
    std::vector<Vec3> texels;
    bool luminance_only = false;  // an EXR of one Y channel, read as grey
};
void decode_radiance(const InputFile& f, const SizeCheck& check, FloatImage& out);
void decode_openexr(const InputFile& f, const SizeCheck& check, FloatImage& out);

}  // namespace pkrt
