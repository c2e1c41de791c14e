// Textures are untrusted input. The format is told by the file's signature, never its name, except TGA,
// which has none: a file named .tga whose header is one pkrt reads. Each format goes to the decoder
// that suits it (render/texture/texture_decoders.h): PNG to libpng and JPEG to libjpeg-turbo, both maintained
// and hardened against hostile files; TGA, BMP and Radiance .hdr to stb_image, compiled with only those
// decoders and fed only streams checked first (texture_stb.cpp says why stb_image no longer reads PNG
// or JPEG); OpenEXR to OpenEXR. Dimensions are read from the header and checked against the scene's
// texel budget, and against what the file could hold, before any pixel memory is allocated.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <new>

#include "render/error.h"
#include "render/scene/input_file.h"
#include "render/scene/loaders.h"
#include "render/scene/load_limits.h"
#include "render/texture/texture_decoders.h"

namespace pkrt {

namespace {

// Float texels above this are refused with the non-finite ones: an emission texture's brightest texel
// times its strength must stay far from float overflow.
constexpr float kMaxFloatTexel = 1e20f;

// Throws unless a width x height texture, each texel counting `weight`, fits the scene's remaining budget.
void check_size(const Scene& scene, const std::string& path, uint64_t w, uint64_t h, uint64_t weight) {
    if (w == 0 || h == 0) throw Error(path + ": empty texture");
    if (w > kMaxTextureSide || h > kMaxTextureSide)
        throw Error(path + ": texture of " + std::to_string(w) + "x" + std::to_string(h) + " is larger than " +
                    std::to_string(kMaxTextureSide) + " on a side");
    std::string what = weight == 1 ? path : path + " (a float texel counts as " + std::to_string(weight) + ")";
    check_texel_budget(scene.limits, what, texel_budget_used(scene), w * h * weight);
}

bool named_tga(const std::string& path) {
    if (path.size() < 4) return false;
    std::string ext = path.substr(path.size() - 4);
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return ext == ".tga";
}

// Linear float RGB to RGBA32F. A texel with a NaN, infinite, negative or absurd component would poison
// every sample that filters it; such texels become black and are reported once per file.
void to_float_texture(Scene& scene, const std::string& path, FloatImage& img, TextureImage& t) {
    t.format = kTextureRgba32f;
    t.width = img.width;
    t.height = img.height;
    t.texels_f.resize(img.texels.size() * 4);
    size_t invalid = 0;
    for (size_t i = 0; i < img.texels.size(); ++i) {
        const Vec3 c = img.texels[i];
        bool ok = true;
        for (float v : {c.x, c.y, c.z}) ok = ok && v >= 0.0f && v <= kMaxFloatTexel;  // false for NaN too
        invalid += ok ? 0 : 1;
        float* out = &t.texels_f[4 * i];
        out[0] = ok ? c.x : 0.0f;
        out[1] = ok ? c.y : 0.0f;
        out[2] = ok ? c.z : 0.0f;
        out[3] = 1.0f;
    }
    img.texels = {};
    if (invalid)
        scene.load_stats.warnings.push_back(path + ": set " + std::to_string(invalid) +
                                            " texels with a NaN, infinite, negative or above 1e20 component to 0");
}

// `file_name`: the name whose extension tells a TGA, which has no signature.
// The texture's texels from its file's bytes. Returns what the decoding held for a moment beyond the texels
// and their weight (SceneLoadStats::decode_peak_bytes): the file's bytes, and for TGA and BMP stb_image's RGBA
// buffer, which is copied into the texels.
uint64_t decode_image(Scene& scene, const InputFile& f, const std::string& file_name, TextureImage& t) {
    SizeCheck rgba8 = [&](uint64_t w, uint64_t h) { check_size(scene, f.path, w, h, 1); };
    SizeCheck rgba32f = [&](uint64_t w, uint64_t h) { check_size(scene, f.path, w, h, kFloatTexelWeight); };
    const std::string& b = f.bytes;
    const uint64_t file = b.size();
    auto stb_rgba = [&]() { return file + static_cast<uint64_t>(t.width) * t.height * kBytesPerTexel; };
    if (is_png(b) || is_jpeg(b)) {  // libpng and libjpeg write into the texels
        if (is_png(b)) decode_png(f, rgba8, t);
        else decode_jpeg(f, rgba8, t);
        return file;
    }
    if (is_bmp(b)) {
        decode_bmp(f, rgba8, t);
        return stb_rgba();
    }
    if (is_radiance(b) || is_openexr(b)) {
        FloatImage img;
        if (is_radiance(b)) decode_radiance(f, rgba32f, img);
        else decode_openexr(f, rgba32f, img);
        to_float_texture(scene, f.path, img, t);
        return file;  // the float copies are in kFloatTexelWeight
    }
    const char* tga = named_tga(file_name) ? tga_header_problem(b) : "";
    if (!tga) {
        decode_tga(f, rgba8, t);
        return stb_rgba();
    }
    throw Error(f.path +
                ": unsupported texture format (pkrt reads PNG, JPEG, TGA, BMP, Radiance .hdr and OpenEXR .exr)" +
                (*tga ? std::string("; as a TGA: ") + tga : std::string()));
}

// decode_image, its peak recorded; running out of memory is an error naming the file, in pkrt's words.
void decode(Scene& scene, const InputFile& f, const std::string& file_name, TextureImage& t) {
    uint64_t peak = 0;
    try {
        peak = decode_image(scene, f, file_name, t);
    } catch (const std::bad_alloc&) {
        throw Error(f.path + ": not enough memory to decode this texture");
    }
    scene.load_stats.decode_peak_bytes = std::max(scene.load_stats.decode_peak_bytes, peak);
}

}  // namespace

void check_plausible(const InputFile& f, uint64_t w, uint64_t h, uint64_t min_bytes) {
    if (f.bytes.size() < min_bytes)
        throw Error(f.path + ": claims " + std::to_string(w) + "x" + std::to_string(h) + " pixels but has only " +
                    std::to_string(f.bytes.size()) + " bytes (truncated, or a decompression bomb)");
}

uint64_t texel_budget_used(const Scene& scene) {
    uint64_t used = 0;
    for (const auto& t : scene.textures)
        used += static_cast<uint64_t>(t.width) * t.height * (t.format == kTextureRgba32f ? kFloatTexelWeight : 1);
    return used + static_cast<uint64_t>(scene.env_map.texels.size()) * kEnvironmentTexelWeight;
}

int32_t load_texture(Scene& scene, const std::string& path) {
    InputFile f = read_input_file(path, "texture file not found");
    // The same file under another name (hard link, symlink, ../ path) is loaded once.
    for (size_t i = 0; i < scene.textures.size(); ++i)
        if (scene.textures[i].id == f.id) return static_cast<int32_t>(i);
    scene.inputs.push_back({f.path, f.id});
    TextureImage t;
    t.path = path;
    t.id = f.id;
    decode(scene, f, path, t);
    scene.textures.push_back(std::move(t));
    return static_cast<int32_t>(scene.textures.size()) - 1;
}

int32_t decode_texture(Scene& scene, const std::string& name, const std::string& file_name, const unsigned char* bytes,
                       size_t size) {
    InputFile f;
    f.path = name;
    f.bytes.assign(reinterpret_cast<const char*>(bytes), size);
    TextureImage t;
    t.path = name;
    decode(scene, f, file_name, t);
    scene.textures.push_back(std::move(t));
    return static_cast<int32_t>(scene.textures.size()) - 1;
}

}  // namespace pkrt
