// Textures are untrusted input: PNG through libpng's simplified API and JPEG through libjpeg-turbo, both
// maintained and hardened against hostile files (stb_image, used before, over-read the heap on 16-bit
// PGMs and wrote out of bounds in its JPEG Huffman decoder). Dimensions are read from the header and
// checked against the scene's texel budget before any pixel memory is allocated (decompression bombs).
#include <csetjmp>
#include <cstdio>
#include <cstring>

#include <jpeglib.h>
#include <jerror.h>
#include <png.h>

#include "error.h"
#include "input_file.h"
#include "loaders.h"
#include "load_limits.h"

namespace pkrt {

namespace {

constexpr int kMaxTextureSide = 32768;      // texel offsets stay within 32 bits on the device
constexpr int kMaxProgressiveScans = 1000;  // a real JPEG has tens; a hostile one makes each scan cost a pass

// Throws unless a width x height texture fits the scene's remaining texel budget.
void check_size(const Scene& scene, const std::string& path, uint64_t w, uint64_t h) {
    if (w == 0 || h == 0) throw Error(path + ": empty texture");
    if (w > kMaxTextureSide || h > kMaxTextureSide)
        throw Error(path + ": texture of " + std::to_string(w) + "x" + std::to_string(h) + " is larger than " +
                    std::to_string(kMaxTextureSide) + " on a side");
    check_texel_budget(scene.limits, path, texel_budget_used(scene), w * h);
}

// Within the budget a header may still claim far more pixels than the file can hold: decoding would
// allocate the texels and then fail or fill them with nothing. `min_bytes` is a safe lower bound on the
// size of a file with that many pixels.
void check_plausible(const InputFile& f, uint64_t w, uint64_t h, uint64_t min_bytes) {
    if (f.bytes.size() < min_bytes)
        throw Error(f.path + ": claims " + std::to_string(w) + "x" + std::to_string(h) + " pixels but has only " +
                    std::to_string(f.bytes.size()) + " bytes (truncated, or a decompression bomb)");
}

void decode_png(const Scene& scene, const InputFile& f, TextureImage& t) {
    png_image img;
    std::memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&img, f.bytes.data(), f.bytes.size()))
        throw Error(f.path + ": cannot read PNG: " + img.message);
    try {
        check_size(scene, f.path, img.width, img.height);
        // Rows of at least 1 bit a pixel plus a filter byte, deflated at most 1032:1 (zlib's limit).
        check_plausible(f, img.width, img.height, uint64_t(img.height) * (1 + (uint64_t(img.width) + 7) / 8) / 1032);
    } catch (...) {
        png_image_free(&img);
        throw;
    }
    img.format = PNG_FORMAT_RGBA;  // any bit depth, palette or grey converted by libpng; sRGB-encoded bytes
    t.width = static_cast<int>(img.width);
    t.height = static_cast<int>(img.height);
    t.texels.resize(static_cast<size_t>(t.width) * t.height);
    if (!png_image_finish_read(&img, nullptr, t.texels.data(), 0, nullptr))
        throw Error(f.path + ": cannot read PNG: " + img.message);
}

struct JpegError {
    jpeg_error_mgr mgr;
    std::jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
};

void jpeg_fail(j_common_ptr cinfo) {
    auto* err = reinterpret_cast<JpegError*>(cinfo->err);
    cinfo->err->format_message(cinfo, err->message);
    std::longjmp(err->jump, 1);
}

// libjpeg only warns about corrupt or truncated data and fills the missing pixels with grey: a JPEG cut
// after its header would decode to a silently wrong texture. Such warnings are errors here, except
// extraneous bytes between markers, which some cameras write and which lose no data.
void jpeg_warning(j_common_ptr cinfo, int level) {
    if (level >= 0 || cinfo->err->msg_code == JWRN_EXTRANEOUS_DATA) return;  // trace messages; padding
    jpeg_fail(cinfo);
}

void jpeg_limit_scans(j_common_ptr cinfo) {
    auto* d = reinterpret_cast<j_decompress_ptr>(cinfo);
    if (d->input_scan_number > kMaxProgressiveScans) {
        auto* err = reinterpret_cast<JpegError*>(cinfo->err);
        std::snprintf(err->message, sizeof err->message, "more than %d progressive scans", kMaxProgressiveScans);
        std::longjmp(err->jump, 1);
    }
}

// No C++ object with a destructor may live between setjmp and longjmp here; the texels vector is
// sized before and only written through a raw pointer.
void decode_jpeg(const Scene& scene, const InputFile& f, TextureImage& t) {
    jpeg_decompress_struct cinfo;
    JpegError err;
    jpeg_progress_mgr progress;
    std::string size_error;
    cinfo.err = jpeg_std_error(&err.mgr);
    err.mgr.error_exit = jpeg_fail;
    err.mgr.emit_message = jpeg_warning;
    err.message[0] = '\0';
    if (setjmp(err.jump)) {
        jpeg_destroy_decompress(&cinfo);
        throw Error(f.path + ": cannot read JPEG: " + err.message);
    }
    jpeg_create_decompress(&cinfo);
    progress.progress_monitor = jpeg_limit_scans;
    cinfo.progress = &progress;
    jpeg_mem_src(&cinfo, reinterpret_cast<const unsigned char*>(f.bytes.data()), f.bytes.size());
    jpeg_read_header(&cinfo, TRUE);
    try {
        check_size(scene, f.path, cinfo.image_width, cinfo.image_height);
        // Every 8x8 block of the first component costs at least one bit (its DC Huffman code).
        uint64_t blocks = ((uint64_t(cinfo.image_width) + 7) / 8) * ((uint64_t(cinfo.image_height) + 7) / 8);
        check_plausible(f, cinfo.image_width, cinfo.image_height, blocks / 8);
        t.width = static_cast<int>(cinfo.image_width);
        t.height = static_cast<int>(cinfo.image_height);
        t.texels.resize(static_cast<size_t>(t.width) * t.height);
    } catch (const std::exception& e) {  // also bad_alloc: nothing may unwind past the setjmp
        size_error = e.what();
    }
    if (!size_error.empty()) {
        jpeg_destroy_decompress(&cinfo);
        throw Error(size_error);
    }
    cinfo.out_color_space = JCS_EXT_RGBA;  // libjpeg-turbo writes the RGBA8 words the renderer samples
    jpeg_start_decompress(&cinfo);
    if (cinfo.output_width != static_cast<unsigned>(t.width) || cinfo.output_height != static_cast<unsigned>(t.height) ||
        cinfo.output_components != 4) {
        std::snprintf(err.message, sizeof err.message, "unexpected output size");
        std::longjmp(err.jump, 1);
    }
    unsigned char* base = reinterpret_cast<unsigned char*>(t.texels.data());
    while (cinfo.output_scanline < cinfo.output_height) {
        unsigned char* row = base + static_cast<size_t>(cinfo.output_scanline) * t.width * 4;
        jpeg_read_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
}

void decode(const Scene& scene, const InputFile& f, TextureImage& t) {
    const auto* b = reinterpret_cast<const unsigned char*>(f.bytes.data());
    if (f.bytes.size() >= 8 && png_sig_cmp(b, 0, 8) == 0) decode_png(scene, f, t);
    else if (f.bytes.size() >= 3 && b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF) decode_jpeg(scene, f, t);
    else throw Error(f.path + ": unsupported texture format (pkrt reads PNG and JPEG)");
}

}  // namespace

uint64_t texel_budget_used(const Scene& scene) {
    uint64_t used = 0;
    for (const auto& t : scene.textures) used += static_cast<uint64_t>(t.width) * t.height;
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
    decode(scene, f, t);
    scene.textures.push_back(std::move(t));
    return static_cast<int32_t>(scene.textures.size()) - 1;
}

int32_t decode_texture(Scene& scene, const std::string& name, const unsigned char* bytes, size_t size) {
    InputFile f;
    f.path = name;
    f.bytes.assign(reinterpret_cast<const char*>(bytes), size);
    TextureImage t;
    t.path = name;
    decode(scene, f, t);
    scene.textures.push_back(std::move(t));
    return static_cast<int32_t>(scene.textures.size()) - 1;
}

}  // namespace pkrt
