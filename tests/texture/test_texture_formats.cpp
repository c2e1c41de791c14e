// Texture formats (render/texture_*.cpp): each format and variant, written here byte by byte or by its
// own library's encoder, decodes to known texels; hostile variants fail with one Error naming the file.
#include <gtest/gtest.h>
#include <jpeglib.h>
#include <png.h>

#include <ImfRgbaFile.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "kernels/shading/texture.h"
#include "render/backend.h"
#include "render/error.h"
#include "render/image/image.h"
#include "render/scene/loaders.h"
#include "render/scene/scene.h"
#include "tests/cli/test_cli_util.h"
#include "tests/texture/test_jpeg_util.h"
#include "tests/test_render_util.h"

using namespace pkrt;
using pkrt_test::TempDir;

namespace {

uint32_t rgba(unsigned r, unsigned g, unsigned b, unsigned a = 255) { return r | g << 8 | b << 16 | a << 24; }

const TextureImage& decoded(Scene& s, const std::string& name, const std::string& bytes) {
    int32_t i = decode_texture(s, name, name, reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
    return s.textures.at(static_cast<size_t>(i));
}

TextureImage decode_one(const std::string& name, const std::string& bytes) {
    Scene s;
    return decoded(s, name, bytes);
}

// The Error decoding gives, or "" when it decodes.
std::string decode_error(const std::string& name, const std::string& bytes, const LoadLimits& limits = {}) {
    Scene s;
    s.limits = limits;
    try {
        decoded(s, name, bytes);
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

#define EXPECT_DECODE_ERROR(name, bytes, needle)                                                    \
    do {                                                                                            \
        std::string err_ = decode_error(name, bytes);                                               \
        EXPECT_NE(err_.find(needle), std::string::npos) << name << " gave: '" << err_ << "'";       \
        EXPECT_EQ(err_.rfind(std::string(name) + ": ", 0), 0u) << "names the file first: " << err_; \
        EXPECT_EQ(err_.find('\n'), std::string::npos) << "one line: " << err_;                      \
    } while (0)

void put16(std::string& s, unsigned v) {
    s += static_cast<char>(v & 0xff);
    s += static_cast<char>((v >> 8) & 0xff);
}

void put32le(std::string& s, uint32_t v) {
    put16(s, v & 0xffff);
    put16(s, v >> 16);
}

// ---- TGA ----

struct Tga {
    int type = 2, width = 0, height = 0, bits = 24;
    bool top = false;  // descriptor bit 5: rows top to bottom
    int map_bits = 0, map_length = 0, map_first = 0;
    std::string id, map, data;  // data already in file order (and encoding)
    std::string bytes() const {
        std::string s;
        s += static_cast<char>(id.size());
        s += static_cast<char>(map_length ? 1 : 0);
        s += static_cast<char>(type);
        put16(s, map_first);
        put16(s, map_length);
        s += static_cast<char>(map_bits);
        put16(s, 0);
        put16(s, 0);
        put16(s, width);
        put16(s, height);
        s += static_cast<char>(bits);
        s += static_cast<char>((top ? 0x20 : 0) | (bits == 32 ? 8 : 0));
        return s + id + map + data;
    }
};

// Rows of `pixel_bytes`-byte pixels (top row first) in the file's order.
std::string tga_rows(const std::vector<std::string>& rows_top_first, bool top) {
    std::string out;
    for (size_t i = 0; i < rows_top_first.size(); ++i) out += rows_top_first[top ? i : rows_top_first.size() - 1 - i];
    return out;
}

// Run-length packets over the whole stream (runs may cross rows, as writers do): repeats for runs of
// two or more, raw packets otherwise.
std::string tga_rle(const std::string& raw, size_t pb) {
    std::string out;
    const size_t n = raw.size() / pb;
    auto px = [&](size_t i) { return raw.substr(i * pb, pb); };
    for (size_t i = 0; i < n;) {
        size_t run = 1;
        while (i + run < n && run < 128 && px(i + run) == px(i)) ++run;
        if (run >= 2) {
            out += static_cast<char>(0x80 | (run - 1));
            out += px(i);
            i += run;
            continue;
        }
        size_t lit = 1;
        while (i + lit < n && lit < 128 && !(i + lit + 1 < n && px(i + lit) == px(i + lit + 1))) ++lit;
        out += static_cast<char>(lit - 1);
        out += raw.substr(i * pb, lit * pb);
        i += lit;
    }
    return out;
}

std::string bgr(unsigned r, unsigned g, unsigned b) {
    return {static_cast<char>(b), static_cast<char>(g), static_cast<char>(r)};
}

// 3x2: row 0 (top) red-ish, row 1 a repeated pixel then one more (an RLE run that crosses into it).
const std::vector<std::string> kRows = {bgr(10, 20, 30) + bgr(40, 50, 60) + bgr(70, 70, 70),
                                        bgr(70, 70, 70) + bgr(70, 70, 70) + bgr(200, 100, 0)};
const std::vector<uint32_t> kTexels = {rgba(10, 20, 30), rgba(40, 50, 60), rgba(70, 70, 70),
                                       rgba(70, 70, 70), rgba(70, 70, 70), rgba(200, 100, 0)};

Tga tga24(bool top, bool rle) {
    Tga t;
    t.type = rle ? 10 : 2;
    t.width = 3;
    t.height = 2;
    t.top = top;
    std::string raw = tga_rows(kRows, top);
    t.data = rle ? tga_rle(raw, 3) : raw;
    return t;
}

// 4x1 colour-mapped: 8-bit indices into a 3-entry map of 24-bit colours.
Tga tga_mapped(bool rle, const std::string& indices = std::string("\x02\x00\x01\x01", 4)) {
    Tga t;
    t.type = rle ? 9 : 1;
    t.width = static_cast<int>(indices.size());
    t.height = 1;
    t.bits = 8;
    t.map_bits = 24;
    t.map_length = 3;
    t.map = bgr(255, 0, 0) + bgr(0, 255, 0) + bgr(0, 0, 255);
    t.data = rle ? tga_rle(indices, 1) : indices;
    return t;
}

// ---- BMP ----

// 24 or 32 bits a pixel, BITMAPINFOHEADER; rows given top first as BGR(A) bytes.
std::string bmp(int w, const std::vector<std::string>& rows_top_first, int bits, bool top_down) {
    const int h = static_cast<int>(rows_top_first.size());
    const size_t stride = (static_cast<size_t>(w) * bits / 8 + 3) / 4 * 4;
    std::string px;
    for (int i = 0; i < h; ++i) {
        std::string r = rows_top_first[top_down ? i : h - 1 - i];
        r.resize(stride, '\0');
        px += r;
    }
    std::string s = "BM";
    put32le(s, static_cast<uint32_t>(54 + px.size()));
    put32le(s, 0);
    put32le(s, 54);
    put32le(s, 40);
    put32le(s, static_cast<uint32_t>(w));
    put32le(s, static_cast<uint32_t>(top_down ? -h : h));
    put16(s, 1);
    put16(s, bits);
    for (int i = 0; i < 6; ++i) put32le(s, 0);  // BI_RGB, sizes, resolution, colours
    return s + px;
}

// An 8-bit palette BMP of one row: `palette` BGRX entries, then the indices.
std::string bmp8(const std::vector<uint32_t>& palette_rgb, const std::string& indices) {
    std::string pal;
    for (uint32_t c : palette_rgb) pal += bgr(c & 0xff, (c >> 8) & 0xff, (c >> 16) & 0xff) + std::string(1, '\0');
    std::string row = indices;
    row.resize((row.size() + 3) / 4 * 4, '\0');
    std::string s = "BM";
    const uint32_t offset = static_cast<uint32_t>(54 + pal.size());
    put32le(s, static_cast<uint32_t>(offset + row.size()));
    put32le(s, 0);
    put32le(s, offset);
    put32le(s, 40);
    put32le(s, static_cast<uint32_t>(indices.size()));
    put32le(s, 1);
    put16(s, 1);
    put16(s, 8);
    for (int i = 0; i < 6; ++i) put32le(s, 0);
    return s + pal + row;
}

// ---- Radiance .hdr: flat (not run-length) RGBE pixels ----

std::string hdr(int w, int h, const std::string& rgbe) {
    return "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y " + std::to_string(h) + " +X " + std::to_string(w) + "\n" + rgbe;
}

// ---- PNG through libpng's writer ----

struct PngSpec {
    int width = 0, height = 0, bit_depth = 8, color_type = PNG_COLOR_TYPE_RGB;
    bool interlaced = false;
    double gamma = 0.0;  // a gAMA chunk when non-zero (sRGB and cHRM too at 1 / 2.2)
    std::vector<png_color> palette;
    std::vector<png_byte> trns;
    std::vector<std::vector<png_byte>> rows;  // packed as the file stores them (16-bit big-endian)
};

void png_append(png_structp png, png_bytep data, size_t n) {
    static_cast<std::string*>(png_get_io_ptr(png))->append(reinterpret_cast<const char*>(data), n);
}

std::string png_file(const PngSpec& p) {
    std::string out;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
    png_infop info = png_create_info_struct(png);
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        ADD_FAILURE() << "libpng could not write the test image";
        return "";
    }
    png_set_write_fn(png, &out, png_append, nullptr);
    png_set_IHDR(png, info, p.width, p.height, p.bit_depth, p.color_type,
                 p.interlaced ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    if (!p.palette.empty()) png_set_PLTE(png, info, p.palette.data(), static_cast<int>(p.palette.size()));
    if (!p.trns.empty()) png_set_tRNS(png, info, p.trns.data(), static_cast<int>(p.trns.size()), nullptr);
    if (p.gamma == 0.45455) {
        png_set_sRGB_gAMA_and_cHRM(png, info, PNG_sRGB_INTENT_PERCEPTUAL);
    } else if (p.gamma > 0.0) {
        png_set_gAMA(png, info, p.gamma);
        png_color_16 grey{};
        png_set_bKGD(png, info, &grey);
    }
    png_write_info(png, info);
    std::vector<png_bytep> rows;
    for (const auto& r : p.rows) rows.push_back(const_cast<png_bytep>(r.data()));
    png_write_image(png, rows.data());
    png_write_end(png, nullptr);
    png_destroy_write_struct(&png, &info);
    return out;
}

// A 16-bit row of samples, big-endian as PNG stores them.
std::vector<png_byte> row16(const std::vector<unsigned>& samples) {
    std::vector<png_byte> r;
    for (unsigned v : samples) r.insert(r.end(), {static_cast<png_byte>(v >> 8), static_cast<png_byte>(v & 0xff)});
    return r;
}

// ---- JPEG CMYK through libjpeg-turbo's compressor ----

// 16x16 of one CMYK colour (as stored in the file), in `space` (CMYK or YCCK), with or without the Adobe marker.
std::string jpeg_cmyk(const unsigned char cmyk[4], J_COLOR_SPACE space, bool adobe) {
    std::vector<unsigned char> pixels;
    for (int i = 0; i < 16 * 16; ++i) pixels.insert(pixels.end(), cmyk, cmyk + 4);
    return pkrt_test::encode_jpeg(16, 16, pixels, 4, JCS_CMYK, 100, space, adobe);
}

// Within `tol` per channel (JPEG is lossy; flat 8x8 blocks at quality 100 come back within 1 or 2).
void expect_rgb_near(uint32_t texel, unsigned r, unsigned g, unsigned b, int tol) {
    EXPECT_NEAR(static_cast<int>(texel & 0xff), static_cast<int>(r), tol);
    EXPECT_NEAR(static_cast<int>((texel >> 8) & 0xff), static_cast<int>(g), tol);
    EXPECT_NEAR(static_cast<int>((texel >> 16) & 0xff), static_cast<int>(b), tol);
    EXPECT_EQ(texel >> 24, 255u);
}

// A 2x1 EXR of the Y channel alone, its pixels grey `a` and `b`.
void write_y_exr(const std::string& path, float a, float b) {
    Imf::Rgba px[2] = {Imf::Rgba(a, a, a, 1.0f), Imf::Rgba(b, b, b, 1.0f)};
    Imf::RgbaOutputFile out(path.c_str(), 2, 1, Imf::WRITE_Y);
    out.setFrameBuffer(px, 1, 2);
    out.writePixels(1);
}

}  // namespace

// ---- TGA ----

TEST(TextureTga, RawRleAndBothOriginsGiveTheSameTexels) {
    for (bool top : {false, true})
        for (bool rle : {false, true}) {
            SCOPED_TRACE(std::string(top ? "top-left" : "bottom-left") + (rle ? ", RLE" : ", raw"));
            TextureImage t = decode_one("a.tga", tga24(top, rle).bytes());
            EXPECT_EQ(t.width, 3);
            EXPECT_EQ(t.height, 2);
            EXPECT_EQ(t.format, kTextureRgba8);
            EXPECT_EQ(t.texels, kTexels);
        }
    // The RLE stream really is run-length encoded, with a run across the row boundary.
    EXPECT_LT(tga24(true, true).data.size(), tga24(true, false).data.size());
}

TEST(TextureTga, ThirtyTwoSixteenAndEightBitPixels) {
    Tga t32;
    t32.width = 2;
    t32.height = 1;
    t32.bits = 32;
    t32.data = bgr(1, 2, 3) + "\x80" + bgr(250, 251, 252) + std::string(1, '\xff');
    EXPECT_EQ(decode_one("a.tga", t32.bytes()).texels,
              (std::vector<uint32_t>{rgba(1, 2, 3, 0x80), rgba(250, 251, 252, 255)}));

    Tga t16;  // 5-5-5: red, green, blue, and half red (16 * 255 / 31 = 131)
    t16.width = 4;
    t16.height = 1;
    t16.bits = 16;
    for (unsigned v : {0x7c00u, 0x03e0u, 0x001fu, 16u << 10}) put16(t16.data, v);
    EXPECT_EQ(decode_one("a.tga", t16.bytes()).texels,
              (std::vector<uint32_t>{rgba(255, 0, 0), rgba(0, 255, 0), rgba(0, 0, 255), rgba(131, 0, 0)}));

    Tga grey;
    grey.type = 3;
    grey.width = 2;
    grey.height = 1;
    grey.bits = 8;
    grey.data = "\x10\xf0";
    EXPECT_EQ(decode_one("a.tga", grey.bytes()).texels, (std::vector<uint32_t>{rgba(16, 16, 16), rgba(240, 240, 240)}));

    Tga grey_rle = grey;
    grey_rle.type = 11;
    grey_rle.data = tga_rle(grey.data, 1);
    EXPECT_EQ(decode_one("a.tga", grey_rle.bytes()).texels, decode_one("a.tga", grey.bytes()).texels);

    Tga ga = grey;  // grey + alpha
    ga.bits = 16;
    ga.data = std::string("\x20\x40\x60\x80", 4);
    EXPECT_EQ(decode_one("a.tga", ga.bytes()).texels,
              (std::vector<uint32_t>{rgba(0x20, 0x20, 0x20, 0x40), rgba(0x60, 0x60, 0x60, 0x80)}));
}

TEST(TextureTga, ColourMappedIndicesMapRight) {
    const std::vector<uint32_t> want = {rgba(0, 0, 255), rgba(255, 0, 0), rgba(0, 255, 0), rgba(0, 255, 0)};
    EXPECT_EQ(decode_one("a.tga", tga_mapped(false).bytes()).texels, want);
    EXPECT_EQ(decode_one("a.tga", tga_mapped(true).bytes()).texels, want);
    // 16-bit map entries (5-5-5) and an ID field before the map.
    Tga t = tga_mapped(false);
    t.id = "pkrt";
    t.map_bits = 16;
    t.map.clear();
    for (unsigned v : {0x7c00u, 0x03e0u, 0x001fu}) put16(t.map, v);
    EXPECT_EQ(decode_one("a.tga", t.bytes()).texels, want);
}

TEST(TextureTga, FormatIsToldByExtensionOnlyForTga) {
    std::string b = tga24(false, false).bytes();
    EXPECT_EQ(decode_one("A.TGA", b).texels, kTexels);  // case-insensitive
    EXPECT_DECODE_ERROR("a.img", b,
                        "unsupported texture format (pkrt reads PNG, JPEG, TGA, BMP, Radiance .hdr and OpenEXR .exr)");
    EXPECT_DECODE_ERROR("a.tga", std::string(40, '\x07'), "unsupported texture format (pkrt reads PNG");
    EXPECT_DECODE_ERROR("a.tga", std::string(40, '\x07'), "as a TGA: unknown TGA image type");
}

TEST(TextureTga, HostileFilesFailNamingTheFile) {
    std::string rle = tga24(true, true).bytes(), raw = tga24(true, false).bytes();
    EXPECT_DECODE_ERROR("a.tga", rle.substr(0, rle.size() - 1), "truncated TGA pixel data");
    EXPECT_DECODE_ERROR("a.tga", rle.substr(0, 19), "truncated TGA pixel data");
    EXPECT_DECODE_ERROR("a.tga", raw.substr(0, raw.size() - 1), "truncated TGA pixel data");
    EXPECT_DECODE_ERROR("a.tga", raw.substr(0, 10), "shorter than a TGA header");
    // Index 3 into a map of 3 entries: stb_image would read entry 0 without a word.
    EXPECT_DECODE_ERROR("a.tga", tga_mapped(false, std::string("\x00\x03", 2)).bytes(),
                        "colour-map index 3 at pixel 1 is past the map's 3 entries");
    EXPECT_DECODE_ERROR("a.tga", tga_mapped(true, std::string("\x01\x07\x07", 3)).bytes(),
                        "colour-map index 7 at pixel 1");
    Tga cut = tga_mapped(false);
    cut.map.resize(5);
    cut.data.clear();
    EXPECT_DECODE_ERROR("a.tga", cut.bytes(), "truncated TGA (its colour map or ID field is cut off)");
    Tga first = tga_mapped(false);
    first.map_first = 1;
    EXPECT_DECODE_ERROR("a.tga", first.bytes(), "does not start at entry 0");
    // Headers that claim far more than the file: refused before any pixel memory.
    Tga huge = tga24(false, true);
    huge.width = huge.height = 65535;
    std::string b = huge.bytes();
    b.resize(100, '\0');
    EXPECT_DECODE_ERROR("a.tga", b, "texture of 65535x65535 is larger than 32768 on a side");
    huge.width = huge.height = 16000;
    b = huge.bytes();
    EXPECT_DECODE_ERROR("a.tga", b, "truncated TGA pixel data (ends at pixel 6 of 256000000)");
    huge.type = 2;
    EXPECT_DECODE_ERROR("a.tga", huge.bytes(), "truncated TGA pixel data (ends at pixel 5 of 256000000)");
}

// ---- BMP ----

TEST(TextureBmp, BottomUpAndTopDownGiveTheSameTexels) {
    for (bool top_down : {false, true}) {
        SCOPED_TRACE(top_down ? "top-down" : "bottom-up");
        TextureImage t = decode_one("a.bmp", bmp(3, kRows, 24, top_down));
        EXPECT_EQ(t.width, 3);
        EXPECT_EQ(t.height, 2);
        EXPECT_EQ(t.texels, kTexels);
    }
    // 32 bits: an alpha channel that is all 0 means none (opaque), as writers of BI_RGB leave it.
    std::vector<std::string> rows = {bgr(1, 2, 3) + std::string(1, '\0') + bgr(4, 5, 6) + std::string(1, '\0')};
    EXPECT_EQ(decode_one("a.bmp", bmp(2, rows, 32, false)).texels,
              (std::vector<uint32_t>{rgba(1, 2, 3), rgba(4, 5, 6)}));
    rows = {bgr(1, 2, 3) + "\x40" + bgr(4, 5, 6) + "\x80"};
    EXPECT_EQ(decode_one("a.bmp", bmp(2, rows, 32, true)).texels,
              (std::vector<uint32_t>{rgba(1, 2, 3, 0x40), rgba(4, 5, 6, 0x80)}));
    // 8-bit palette.
    EXPECT_EQ(decode_one("a.bmp", bmp8({rgba(9, 8, 7), rgba(1, 2, 3)}, std::string("\x01\x00\x01", 3))).texels,
              (std::vector<uint32_t>{rgba(1, 2, 3), rgba(9, 8, 7), rgba(1, 2, 3)}));
}

TEST(TextureBmp, HostileFilesFailNamingTheFile) {
    std::string b = bmp(3, kRows, 24, false);
    EXPECT_DECODE_ERROR("a.bmp", b.substr(0, b.size() - 4), "truncated BMP pixel data");
    EXPECT_DECODE_ERROR("a.bmp", b.substr(0, 30), "truncated BMP header");
    EXPECT_DECODE_ERROR("a.bmp", bmp8({rgba(9, 8, 7), rgba(1, 2, 3)}, std::string("\x01\x02", 2)),
                        "BMP palette index 2 in row 0 is past the palette's 2 entries");
    std::string huge = b;  // 65535 x -65535 on a few bytes
    for (int k = 0; k < 4; ++k) huge[18 + k] = k < 2 ? '\xff' : '\0';
    for (int k = 0; k < 4; ++k) huge[22 + k] = k < 2 ? '\x01' : '\xff';
    EXPECT_DECODE_ERROR("a.bmp", huge, "larger than 32768 on a side");
    std::string rle = b;
    rle[30] = 1;
    EXPECT_DECODE_ERROR("a.bmp", rle, "compressed BMP");
}

// ---- PNG ----

TEST(TexturePng, SixteenBitsScaleToEightWithRounding) {
    PngSpec p;
    p.width = 4;
    p.height = 1;
    p.bit_depth = 16;
    // v / 257 rounded: 0x8080 is 128 exactly, 0x1234 is 18.1, and 0x12f0 is 18.9 (19, where dropping the
    // low byte would give 18).
    p.rows = {row16({0x8080, 0x8080, 0x8080, 0xffff, 0, 0x1234, 0x0000, 0x12f0, 0xfeff, 0x0101, 0x0202, 0x0303})};
    TextureImage t = decode_one("a.png", png_file(p));
    EXPECT_EQ(t.texels,
              (std::vector<uint32_t>{rgba(0x80, 0x80, 0x80), rgba(255, 0, 18), rgba(0, 19, 254), rgba(1, 2, 3)}));
    // Grey + alpha at 16 bits.
    p.color_type = PNG_COLOR_TYPE_GRAY_ALPHA;
    p.width = 2;
    p.rows = {row16({0x8080, 0xffff, 0x4040, 0x2020})};
    EXPECT_EQ(decode_one("a.png", png_file(p)).texels,
              (std::vector<uint32_t>{rgba(0x80, 0x80, 0x80, 255), rgba(0x40, 0x40, 0x40, 0x20)}));
}

TEST(TexturePng, GammaAndColourProfileChunksAreIgnored) {
    for (double gamma : {1.0, 0.45455, 2.2}) {
        SCOPED_TRACE(gamma);
        PngSpec p;
        p.width = 2;
        p.height = 1;
        p.gamma = gamma;
        p.rows = {{0x40, 0x80, 0xc0, 0x10, 0x20, 0x30}};
        EXPECT_EQ(decode_one("a.png", png_file(p)).texels,
                  (std::vector<uint32_t>{rgba(0x40, 0x80, 0xc0), rgba(0x10, 0x20, 0x30)}));
        p.bit_depth = 16;
        p.rows = {row16({0x4040, 0x8080, 0xc0c0, 0x1010, 0x2020, 0x3030})};
        EXPECT_EQ(decode_one("a.png", png_file(p)).texels,
                  (std::vector<uint32_t>{rgba(0x40, 0x80, 0xc0), rgba(0x10, 0x20, 0x30)}));
    }
}

TEST(TexturePng, GreyPaletteAndInterlacedImagesExpand) {
    PngSpec grey;
    grey.width = 4;
    grey.height = 1;
    grey.bit_depth = 2;
    grey.color_type = PNG_COLOR_TYPE_GRAY;
    grey.rows = {{0x1b}};  // 0, 1, 2, 3 at 2 bits: 0, 85, 170, 255
    EXPECT_EQ(decode_one("a.png", png_file(grey)).texels,
              (std::vector<uint32_t>{rgba(0, 0, 0), rgba(85, 85, 85), rgba(170, 170, 170), rgba(255, 255, 255)}));

    PngSpec pal;
    pal.width = 3;
    pal.height = 1;
    pal.bit_depth = 4;
    pal.color_type = PNG_COLOR_TYPE_PALETTE;
    pal.palette = {{255, 0, 0}, {0, 255, 0}, {0, 0, 255}};
    pal.trns = {0x40};  // entry 0 is translucent, the rest opaque
    pal.rows = {{0x21, 0x00}};
    EXPECT_EQ(decode_one("a.png", png_file(pal)).texels,
              (std::vector<uint32_t>{rgba(0, 0, 255), rgba(0, 255, 0), rgba(255, 0, 0, 0x40)}));

    PngSpec il;  // Adam7 over 9x9: every pass has pixels
    il.width = il.height = 9;
    il.color_type = PNG_COLOR_TYPE_RGB_ALPHA;
    il.interlaced = true;
    std::vector<uint32_t> want;
    for (int y = 0; y < 9; ++y) {
        std::vector<png_byte> r;
        for (int x = 0; x < 9; ++x) {
            png_byte c[4] = {static_cast<png_byte>(x * 20), static_cast<png_byte>(y * 25), static_cast<png_byte>(x * y),
                             static_cast<png_byte>(255 - x - y)};
            r.insert(r.end(), c, c + 4);
            want.push_back(rgba(c[0], c[1], c[2], c[3]));
        }
        il.rows.push_back(r);
    }
    EXPECT_EQ(decode_one("a.png", png_file(il)).texels, want);
}

TEST(TexturePng, TruncatedAndOversizedFilesFail) {
    PngSpec p;
    p.width = p.height = 32;
    p.rows.assign(32, std::vector<png_byte>(96, 0x55));
    for (auto& r : p.rows)
        for (size_t i = 0; i < r.size(); ++i) r[i] = static_cast<png_byte>(i * 13);
    std::string b = png_file(p);
    EXPECT_DECODE_ERROR("a.png", b.substr(0, b.size() - 20), "cannot read PNG");
    EXPECT_DECODE_ERROR("a.png", b.substr(0, 30), "cannot read PNG");
    std::string wide = b;  // IHDR says 40000 wide: libpng's user limit refuses it (and its CRC no longer matches)
    wide[16] = 0;
    wide[17] = 0;
    wide[18] = static_cast<char>(40000 >> 8);
    wide[19] = static_cast<char>(40000 & 0xff);
    EXPECT_DECODE_ERROR("a.png", wide, "cannot read PNG");
}

// ---- JPEG ----

TEST(TextureJpeg, AdobeCmykAndYcckAreInvertedCmyk) {
    // Photoshop's inverted CMYK: 255 is no ink. C=255 M=128 Y=0 K=255 is R 255, G 128, B 0.
    const unsigned char inverted[4] = {255, 128, 0, 255};
    for (J_COLOR_SPACE space : {JCS_CMYK, JCS_YCCK}) {
        SCOPED_TRACE(space == JCS_CMYK ? "CMYK" : "YCCK");
        TextureImage t = decode_one("a.jpg", jpeg_cmyk(inverted, space, true));
        ASSERT_EQ(t.texels.size(), 256u);
        for (uint32_t p : {t.texels[0], t.texels[255]}) expect_rgb_near(p, 255, 128, 0, 2);
    }
    // K = 128 stored (inverted: half ink) halves every channel.
    const unsigned char dark[4] = {255, 255, 0, 128};
    expect_rgb_near(decode_one("a.jpg", jpeg_cmyk(dark, JCS_CMYK, true)).texels[17], 128, 128, 0, 2);
    // Without the Adobe marker the values are ink: C=0 M=127 Y=255 K=0 is R 255, G 128, B 0.
    const unsigned char ink[4] = {0, 127, 255, 0};
    expect_rgb_near(decode_one("a.jpg", jpeg_cmyk(ink, JCS_CMYK, false)).texels[0], 255, 128, 0, 2);
}

// ---- Float textures: Radiance .hdr and OpenEXR ----

TEST(TextureFloat, RadianceHdrIsLinearFloat) {
    // RGBE (128, 64, 32, 129): 128 x 2^(129 - 136) = 1, then 0.5 and 0.25; the second pixel is 4x that.
    Scene s;
    const TextureImage& t = decoded(s, "a.hdr", hdr(2, 1, std::string("\x80\x40\x20\x81\x80\x40\x20\x83", 8)));
    EXPECT_EQ(t.format, kTextureRgba32f);
    EXPECT_TRUE(t.texels.empty());
    EXPECT_EQ(t.texels_f, (std::vector<float>{1.0f, 0.5f, 0.25f, 1.0f, 4.0f, 2.0f, 1.0f, 1.0f}));
    EXPECT_EQ(texel_budget_used(s), 2u * kFloatTexelWeight);
    // Sampled as stored, even through a view that says sRGB (a JSON material's texture): a float image is linear.
    TempDir dir;
    dir.write("a.hdr", hdr(2, 1, std::string("\x80\x40\x20\x81\x80\x40\x20\x83", 8)));
    dir.write("s.json", R"({"materials": {"t": {"texture": "a.hdr"}},
        "meshes": [{"quad": [[0,0,0],[1,0,0],[1,1,0],[0,1,0]], "material": "t"}]})");
    Scene js = load_scene(dir.file("s.json"));
    prepare_scene(js);
    ASSERT_EQ(js.texture_views.size(), 1u);
    const TextureView& v = js.texture_views[0];
    EXPECT_EQ(v.srgb, 1);
    EXPECT_EQ(v.format, kTextureRgba32f);
    Vec3 c = texel_linear(v, 1, 0);
    EXPECT_EQ(c.x, 4.0f);
    EXPECT_EQ(c.y, 2.0f);
    EXPECT_EQ(c.z, 1.0f);
    Vec3 mid = texture_sample_software(v, 0.5f, 0.5f);  // halfway between the two texels
    EXPECT_FLOAT_EQ(mid.x, 2.5f);
    EXPECT_FLOAT_EQ(mid.z, 0.625f);
}

TEST(TextureFloat, OpenExrIsLinearFloatAndBadTexelsAreBlack) {
    TempDir dir;
    const std::string path = dir.file("a.exr");
    {
        Imf::Rgba px[3] = {Imf::Rgba(2.0f, 0.5f, 0.25f, 1.0f), Imf::Rgba(-1.0f, 1.0f, 1.0f, 1.0f),
                           Imf::Rgba(std::numeric_limits<float>::infinity(), 1.0f, 1.0f, 1.0f)};
        Imf::RgbaOutputFile out(path.c_str(), 3, 1, Imf::WRITE_RGBA);
        out.setFrameBuffer(px, 1, 3);
        out.writePixels(1);
    }
    Scene s;
    const TextureImage& t = s.textures.at(static_cast<size_t>(load_texture(s, path)));
    EXPECT_EQ(t.format, kTextureRgba32f);
    EXPECT_EQ(t.texels_f, (std::vector<float>{2.0f, 0.5f, 0.25f, 1.0f, 0, 0, 0, 1.0f, 0, 0, 0, 1.0f}));
    ASSERT_EQ(s.load_stats.warnings.size(), 1u);
    EXPECT_NE(s.load_stats.warnings[0].find(path + ": set 2 texels with a NaN, infinite, negative"), std::string::npos);
}

TEST(TextureFloat, FloatTexelsCountAtTheirWeight) {
    std::string b = hdr(16, 16, std::string(16 * 16 * 4, '\x80'));
    LoadLimits l;
    l.max_texels = 16 * 16 * kFloatTexelWeight - 1;
    EXPECT_NE(decode_error("a.hdr", b, l).find("a.hdr (a float texel counts as 7)"), std::string::npos)
        << decode_error("a.hdr", b, l);
    l.max_texels += 1;
    EXPECT_EQ(decode_error("a.hdr", b, l), "");
    EXPECT_DECODE_ERROR("a.hdr", b.substr(0, b.size() - 1), "truncated HDR pixel data");
    EXPECT_DECODE_ERROR("a.hdr", hdr(40000, 1, ""), "texture of 40000x1 is larger than 32768 on a side");
    EXPECT_DECODE_ERROR("a.exr", std::string("\x76\x2f\x31\x01garbage", 11), "cannot read EXR");
}

// An attribute that claims more bytes than the file holds is refused from the header: OpenEXR allocated
// the claimed 2 GB before its own error (issue 33).
TEST(TextureFloat, ExrAttributesAreCheckedAgainstTheFileSize) {
    std::string b("\x76\x2f\x31\x01\x02\x00\x00\x00", 8);
    b += std::string("comments\0string\0", 16) + std::string("\x00\x00\x00\x80", 4) + std::string(2000, 'x');
    EXPECT_DECODE_ERROR("a.exr", b,
                        "cannot read EXR: attribute 'comments' claims 2147483648 bytes, more than the 2000");
    // A multi-part header's second part is walked too.
    std::string multi("\x76\x2f\x31\x01\x02\x10\x00\x00", 8);
    multi += std::string(
                 "name\0string\0\x01\x00\x00\x00"
                 "a",
                 17) +
             std::string("\0", 1);
    multi += std::string("big\0string\0\xff\xff\xff\x7f", 15) + std::string(100, 'x');
    EXPECT_DECODE_ERROR("a.exr", multi, "attribute 'big' claims 2147483647 bytes");
}

// A --reference is read as an EXR texture is: a file with only a Y channel is refused, not compared
// against black (issue 33).
TEST(TextureFloat, ReferenceNeedsRgbChannels) {
    TempDir dir;
    const std::string path = dir.file("y.exr");
    write_y_exr(path, 0.5f, 0.5f);
    try {
        read_reference_exr(path, 2, 1);
        ADD_FAILURE() << "a Y-only reference was accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(path + ": the reference has a Y channel alone"), std::string::npos)
            << e.what();
    }
}

// A one-channel (Y) EXR is a grey texture (issue 50, class 6): bump and roughness maps are often saved so.
// Before, it was refused as "EXR has no R channel". A file with G alone is still refused.
TEST(TextureFloat, LuminanceOnlyExrIsGrey) {
    TempDir dir;
    const std::string path = dir.file("y.exr");
    write_y_exr(path, 0.25f, 2.0f);
    Scene s;
    const TextureImage& t = decoded(s, "y.exr", pkrt_test::read_text(path));
    ASSERT_EQ(t.format, kTextureRgba32f);
    ASSERT_EQ(t.texels_f.size(), 8u);
    for (int c = 0; c < 3; ++c) {
        EXPECT_FLOAT_EQ(t.texels_f[c], 0.25f);
        EXPECT_FLOAT_EQ(t.texels_f[4 + c], 2.0f);
    }
}

// ---- End to end ----

// A quad textured by a TGA through OBJ + MTL renders on the CPU with the texture's colour.
TEST(TextureTga, ObjSceneWithTgaMapKdRendersOnTheCpu) {
    TempDir dir;
    Tga t;  // 2x2 pure red, run-length encoded
    t.type = 10;
    t.width = t.height = 2;
    t.data = tga_rle(bgr(255, 0, 0) + bgr(255, 0, 0) + bgr(255, 0, 0) + bgr(255, 0, 0), 3);
    dir.write("red.TGA", t.bytes());
    dir.write("q.mtl", "newmtl m\nKd 1 1 1\nmap_Kd red.TGA\n");
    dir.write("q.obj",
              "mtllib q.mtl\nv -1 -1 0\nv 1 -1 0\nv 1 1 0\nv -1 1 0\nvt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nusemtl m\nf 1/1 "
              "2/2 3/3 4/4\n");
    Scene s = load_scene(dir.file("q.obj"));
    ASSERT_EQ(s.textures.size(), 1u);
    EXPECT_EQ(s.textures[0].texels, std::vector<uint32_t>(4, rgba(255, 0, 0)));
    prepare_scene(s);
    auto backend = make_cpu_backend(1);
    Image img = render_image(*backend, s, pkrt_test::settings(8, 8, 4, 2, 1), nullptr).image;
    const Vec3 c = img.pixels[4 * 8 + 4];  // the middle of the frame sees the quad
    EXPECT_GT(c.x, 0.05f);
    EXPECT_LT(c.y, 0.01f * c.x);
    EXPECT_LT(c.z, 0.01f * c.x);
}

// Through the binary: one `pkrt: error:` line naming the file, exit 1.
TEST(TextureTga, HostileTexturesFailCleanlyThroughTheCli) {
    TempDir dir;
    std::string rle = tga24(true, true).bytes();
    dir.write("in_cut.tga", rle.substr(0, rle.size() - 2));
    dir.write("in_t.json", R"({"materials": {"t": {"texture": "in_cut.tga"}},
        "meshes": [{"quad": [[0,0,0],[1,0,0],[1,1,0],[0,1,0]], "material": "t"}]})");
    pkrt_test::expect_clean_failure(dir, "render in_t.json --res 4x4 --spp 1 -o out.png", 1,
                                    "in_cut.tga: truncated TGA pixel data");
}
