// An in-memory JPEG encoder for the tests and the decode benchmark (libjpeg-turbo's compressor).
#pragma once

#include <cstdio>  // before jpeglib.h, which needs FILE and size_t
#include <cstdlib>
#include <string>
#include <vector>

#include <jpeglib.h>

namespace pkrt_test {

// w x h pixels of `components` bytes each (`in`: JCS_RGB or JCS_CMYK), rows top first, stored as `stored`
// (JCS_YCbCr for RGB by default; JCS_CMYK or JCS_YCCK), with or without the Adobe APP14 marker.
inline std::string encode_jpeg(int w, int h, const std::vector<unsigned char>& pixels, int components = 3,
                               J_COLOR_SPACE in = JCS_RGB, int quality = 75, J_COLOR_SPACE stored = JCS_UNKNOWN,
                               bool adobe = false) {
    jpeg_compress_struct c;
    jpeg_error_mgr err;
    c.err = jpeg_std_error(&err);
    jpeg_create_compress(&c);
    unsigned char* mem = nullptr;
    unsigned long size = 0;
    jpeg_mem_dest(&c, &mem, &size);
    c.image_width = static_cast<JDIMENSION>(w);
    c.image_height = static_cast<JDIMENSION>(h);
    c.input_components = components;
    c.in_color_space = in;
    jpeg_set_defaults(&c);
    if (stored != JCS_UNKNOWN) jpeg_set_colorspace(&c, stored);
    jpeg_set_quality(&c, quality, TRUE);
    if (stored != JCS_UNKNOWN) c.write_Adobe_marker = adobe ? TRUE : FALSE;
    jpeg_start_compress(&c, TRUE);
    while (c.next_scanline < c.image_height) {
        JSAMPROW r = const_cast<unsigned char*>(pixels.data()) + static_cast<size_t>(c.next_scanline) * w * components;
        jpeg_write_scanlines(&c, &r, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    std::string out(reinterpret_cast<char*>(mem), size);
    free(mem);
    return out;
}

}  // namespace pkrt_test
