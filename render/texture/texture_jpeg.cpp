// JPEG through libjpeg-turbo: baseline, progressive, greyscale, and CMYK or YCCK (libjpeg gives those as
// CMYK, converted to RGB here). Photoshop writes CMYK inverted (0 is full ink) and marks its files with
// an Adobe APP14 marker, which libjpeg records; a 4-component file without one is taken as plain CMYK.
#include <csetjmp>
#include <cstdio>
#include <cstring>

#include <jpeglib.h>
#include <jerror.h>

#include "render/error.h"
#include "render/texture/texture_decoders.h"

namespace pkrt {

namespace {

constexpr int kMaxProgressiveScans = 1000;  // a real JPEG has tens; a hostile one makes each scan cost a pass

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

// One CMYK row to RGBA in place (both 4 bytes a pixel). Inverted (Adobe) CMYK stores 255 - ink, so a
// channel's light is C * K / 255; plain CMYK stores the ink, (255 - C) * (255 - K) / 255.
void cmyk_to_rgba(unsigned char* p, unsigned width, bool inverted) {
    for (unsigned i = 0; i < width; ++i, p += 4) {
        unsigned c = p[0], m = p[1], y = p[2], k = p[3];
        if (!inverted) c = 255 - c, m = 255 - m, y = 255 - y, k = 255 - k;
        p[0] = static_cast<unsigned char>((c * k + 127) / 255);
        p[1] = static_cast<unsigned char>((m * k + 127) / 255);
        p[2] = static_cast<unsigned char>((y * k + 127) / 255);
        p[3] = 255;
    }
}

}  // namespace

bool is_jpeg(const std::string& b) {
    return b.size() >= 3 && static_cast<unsigned char>(b[0]) == 0xFF && static_cast<unsigned char>(b[1]) == 0xD8 &&
           static_cast<unsigned char>(b[2]) == 0xFF;
}

// No C++ object with a destructor may live between setjmp and longjmp here; the texels vector is
// sized before and only written through a raw pointer.
void decode_jpeg(const InputFile& f, const SizeCheck& check, TextureImage& t) {
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
        check(cinfo.image_width, cinfo.image_height);
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
    // libjpeg converts neither CMYK nor YCCK to RGB; it gives both as CMYK, as wide as RGBA.
    const bool cmyk = cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK;
    const bool inverted = cinfo.saw_Adobe_marker;
    cinfo.out_color_space =
        cmyk ? JCS_CMYK : JCS_EXT_RGBA;  // libjpeg-turbo writes the RGBA8 words the renderer samples
    jpeg_start_decompress(&cinfo);
    if (cinfo.output_width != static_cast<unsigned>(t.width) ||
        cinfo.output_height != static_cast<unsigned>(t.height) || cinfo.output_components != 4) {
        std::snprintf(err.message, sizeof err.message, "unexpected output size");
        std::longjmp(err.jump, 1);
    }
    unsigned char* base = reinterpret_cast<unsigned char*>(t.texels.data());
    while (cinfo.output_scanline < cinfo.output_height) {
        unsigned char* row = base + static_cast<size_t>(cinfo.output_scanline) * t.width * 4;
        if (jpeg_read_scanlines(&cinfo, &row, 1) == 1 && cmyk) cmyk_to_rgba(row, cinfo.output_width, inverted);
    }
    jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
}

}  // namespace pkrt
