// Texture decode benchmark (not a test): a SIDE x SIDE image (default 4096) in each format pkrt reads,
// written here in memory by the format's own encoder, then decoded by decode_texture as a scene would
// (best of REPEATS, default 3). The image is a smooth gradient with noise in the low bits, so the
// compressed formats neither collapse nor blow up; the TGA RLE image has runs of 8 equal pixels.
//   texture_bench [SIDE [REPEATS]]
#include <cstdio>  // before jpeglib.h, which needs FILE and size_t

#include <jpeglib.h>
#include <png.h>
#include <stb_image_write.h>

#include <ImfRgbaFile.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "render/scene/loaders.h"
#include "render/scene/scene.h"
#include "tests/texture/test_jpeg_util.h"

namespace {

unsigned noise(unsigned x, unsigned y) { return (x * 73856093u ^ y * 19349663u) >> 7 & 7; }

unsigned char channel(int c, unsigned x, unsigned y, int side) {
    unsigned v = c == 0 ? x * 255 / side : c == 1 ? y * 255 / side : (x + y) * 127 / side;
    return static_cast<unsigned char>((v & ~7u) | noise(x, y));
}

void append(png_structp p, png_bytep d, size_t n) {
    static_cast<std::string*>(png_get_io_ptr(p))->append(reinterpret_cast<char*>(d), n);
}

std::string png(int side, int depth) {
    std::string out;
    png_structp p = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
    png_infop info = png_create_info_struct(p);
    png_set_write_fn(p, &out, append, nullptr);
    png_set_IHDR(p, info, side, side, depth, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, 0, 0);
    png_write_info(p, info);
    std::vector<png_byte> row(static_cast<size_t>(side) * 3 * depth / 8);
    for (int y = 0; y < side; ++y) {
        for (int x = 0; x < side; ++x)
            for (int c = 0; c < 3; ++c) {
                unsigned char v = channel(c, x, y, side);
                if (depth == 8) row[3 * x + c] = v;
                else row[6 * x + 2 * c] = v, row[6 * x + 2 * c + 1] = static_cast<png_byte>(noise(y, x) * 31);
            }
        png_write_row(p, row.data());
    }
    png_write_end(p, nullptr);
    png_destroy_write_struct(&p, &info);
    return out;
}

std::string jpeg(int side) {
    std::vector<unsigned char> pixels(static_cast<size_t>(side) * side * 3);
    for (int y = 0; y < side; ++y)
        for (int x = 0; x < side; ++x)
            for (int k = 0; k < 3; ++k) pixels[(static_cast<size_t>(y) * side + x) * 3 + k] = channel(k, x, y, side);
    return pkrt_test::encode_jpeg(side, side, pixels, 3, JCS_RGB, 90);
}

void put16(std::string& s, unsigned v) {
    s += static_cast<char>(v & 0xff);
    s += static_cast<char>(v >> 8);
}

std::string tga(int side, bool rle) {
    std::string s(18, '\0');
    s[2] = rle ? 10 : 2;
    s[12] = static_cast<char>(side & 0xff);
    s[13] = static_cast<char>(side >> 8);
    s[14] = s[12];
    s[15] = s[13];
    s[16] = 24;
    for (int y = 0; y < side; ++y)
        for (int x = 0; x < side; x += rle ? 8 : 1) {
            if (rle) s += static_cast<char>(0x80 | 7);
            for (int c = 2; c >= 0; --c) s += static_cast<char>(channel(c, x, y, side));
        }
    return s;
}

std::string bmp(int side) {
    const uint32_t stride = (side * 3 + 3) / 4 * 4, offset = 54;
    std::string s = "BM";
    auto put32 = [&](uint32_t v) {
        put16(s, v & 0xffff);
        put16(s, v >> 16);
    };
    put32(offset + stride * side);
    put32(0);
    put32(offset);
    put32(40);
    put32(side);
    put32(side);
    put16(s, 1);
    put16(s, 24);
    for (int i = 0; i < 6; ++i) put32(0);
    for (int y = side - 1; y >= 0; --y) {
        size_t start = s.size();
        for (int x = 0; x < side; ++x)
            for (int c = 2; c >= 0; --c) s += static_cast<char>(channel(c, x, y, side));
        s.resize(start + stride, '\0');
    }
    return s;
}

std::vector<float> floats(int side) {
    std::vector<float> f(static_cast<size_t>(side) * side * 3);
    for (int y = 0; y < side; ++y)
        for (int x = 0; x < side; ++x)
            for (int c = 0; c < 3; ++c) f[(static_cast<size_t>(y) * side + x) * 3 + c] = channel(c, x, y, side) / 64.0f;
    return f;
}

void append_stb(void* ctx, void* data, int n) { static_cast<std::string*>(ctx)->append(static_cast<char*>(data), n); }

std::string hdr(int side) {
    std::string out;
    std::vector<float> f = floats(side);
    stbi_write_hdr_to_func(append_stb, &out, side, side, 3, f.data());  // run-length encoded scanlines
    return out;
}

std::string exr(int side) {
    std::string path = (std::filesystem::temp_directory_path() / "pkrt-texture-bench.exr").string();
    {
        std::vector<float> f = floats(side);
        std::vector<Imf::Rgba> px(static_cast<size_t>(side) * side);
        for (size_t i = 0; i < px.size(); ++i) px[i] = Imf::Rgba(f[3 * i], f[3 * i + 1], f[3 * i + 2], 1.0f);
        Imf::RgbaOutputFile out(path.c_str(), side, side, Imf::WRITE_RGBA);  // half, ZIP: OpenEXR's defaults
        out.setFrameBuffer(px.data(), 1, side);
        out.writePixels(side);
    }
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    std::filesystem::remove(path);
    return ss.str();
}

}  // namespace

int main(int argc, char** argv) {
    const int side = argc > 1 ? std::atoi(argv[1]) : 4096;
    const int repeats = argc > 2 ? std::atoi(argv[2]) : 3;
    struct Case {
        const char* name;
        std::string bytes;
    };
    std::vector<Case> cases = {{"PNG 8-bit RGB", png(side, 8)},     {"PNG 16-bit RGB", png(side, 16)},
                               {"JPEG q90 4:2:0", jpeg(side)},      {"TGA raw 24-bit", tga(side, false)},
                               {"TGA RLE 24-bit", tga(side, true)}, {"BMP 24-bit", bmp(side)},
                               {"Radiance .hdr (RLE)", hdr(side)},  {"OpenEXR half ZIP", exr(side)}};
    const char* ext[] = {"png", "png", "jpg", "tga", "tga", "bmp", "hdr", "exr"};
    std::printf("| format | file size | decode (best of %d) | Mtexel/s |\n|---|---|---|---|\n", repeats);
    for (size_t i = 0; i < cases.size(); ++i) {
        double best = 1e30;
        for (int r = 0; r < repeats; ++r) {
            pkrt::Scene s;
            auto t0 = std::chrono::steady_clock::now();
            const std::string name = std::string("bench.") + ext[i];
            pkrt::decode_texture(s, name, name, reinterpret_cast<const unsigned char*>(cases[i].bytes.data()),
                                 cases[i].bytes.size());
            best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        }
        std::printf("| %s | %.1f MB | %.0f ms | %.0f |\n", cases[i].name, cases[i].bytes.size() / 1e6, best * 1e3,
                    double(side) * side / best / 1e6);
    }
    return 0;
}
