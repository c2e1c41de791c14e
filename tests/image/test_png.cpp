// The PNG encoder (render/image/png_encoder.cpp) against libpng's decoder, which checks every chunk's CRC and
// the zlib stream: exact pixels back at odd sizes and across several IDAT chunks, the chunks a viewer
// needs to know the bytes are sRGB, and the per-row filter choice doing what it is for.
#include <gtest/gtest.h>
#include <png.h>
#include <zlib.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "render/image/image.h"

using namespace pkrt;

namespace {

struct Chunk {
    std::string type;
    std::string data;
};

std::vector<Chunk> chunks_of(const std::string& png) {
    std::vector<Chunk> out;
    EXPECT_EQ(png.compare(0, 8, "\x89PNG\r\n\x1a\n", 8), 0);
    auto u32 = [&](size_t at) {
        return static_cast<uint32_t>(static_cast<unsigned char>(png[at])) << 24 |
               static_cast<uint32_t>(static_cast<unsigned char>(png[at + 1])) << 16 |
               static_cast<uint32_t>(static_cast<unsigned char>(png[at + 2])) << 8 |
               static_cast<unsigned char>(png[at + 3]);
    };
    for (size_t at = 8; at + 12 <= png.size();) {
        uint32_t n = u32(at);
        out.push_back({png.substr(at + 4, 4), png.substr(at + 8, n)});
        at += 12 + n;
    }
    return out;
}

// Decoded by libpng (CRCs and the zlib stream checked); empty on any error.
std::vector<unsigned char> decode(const std::string& png, int* w, int* h) {
    png_image img;
    std::memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&img, png.data(), png.size())) return {};
    img.format = PNG_FORMAT_RGB;
    std::vector<unsigned char> rgb(PNG_IMAGE_SIZE(img));
    if (!png_image_finish_read(&img, nullptr, rgb.data(), 0, nullptr)) return {};
    *w = static_cast<int>(img.width);
    *h = static_cast<int>(img.height);
    return rgb;
}

// The filter byte of each row, from the inflated IDAT data.
std::vector<int> row_filters(const std::string& png, int w, int h) {
    std::string z;
    for (const Chunk& c : chunks_of(png))
        if (c.type == "IDAT") z += c.data;
    size_t row = static_cast<size_t>(w) * 3 + 1;
    std::vector<unsigned char> raw(row * h);
    uLongf n = raw.size();
    EXPECT_EQ(uncompress(raw.data(), &n, reinterpret_cast<const Bytef*>(z.data()), z.size()), Z_OK);
    EXPECT_EQ(n, raw.size());
    std::vector<int> f;
    for (int y = 0; y < h; ++y) f.push_back(raw[y * row]);
    return f;
}

std::vector<unsigned char> noise(int w, int h, uint32_t seed, int range = 256) {
    std::mt19937 rng(seed);
    std::vector<unsigned char> rgb(static_cast<size_t>(w) * h * 3);
    for (auto& v : rgb) v = static_cast<unsigned char>(rng() % range);
    return rgb;
}

}  // namespace

TEST(Png, PixelsComeBackExactlyThroughLibpng) {
    for (auto [w, h] : {std::pair{1, 1}, {2, 3}, {7, 5}, {256, 17}, {1000, 1}, {1, 300}}) {
        std::vector<unsigned char> rgb = noise(w, h, static_cast<uint32_t>(w * 131 + h));
        // Half the rows smooth, so that every filter has rows to win.
        for (int y = 0; y < h; y += 2)
            for (int x = 0; x < w * 3; ++x) rgb[static_cast<size_t>(y) * w * 3 + x] = static_cast<unsigned char>(x + y);
        int dw = 0, dh = 0;
        std::vector<unsigned char> back = decode(encode_png_rgb8(w, h, rgb), &dw, &dh);
        ASSERT_EQ(dw, w);
        ASSERT_EQ(dh, h);
        EXPECT_EQ(back, rgb) << w << "x" << h;
    }
}

TEST(Png, LargeImagesSpanSeveralIdatChunks) {
    const int w = 600, h = 500;  // incompressible: about 900 KB of IDAT data
    std::vector<unsigned char> rgb = noise(w, h, 7);
    std::string png = encode_png_rgb8(w, h, rgb);
    int idats = 0;
    for (const Chunk& c : chunks_of(png)) idats += c.type == "IDAT";
    EXPECT_GE(idats, 3);
    int dw = 0, dh = 0;
    EXPECT_EQ(decode(png, &dw, &dh), rgb);
}

TEST(Png, ChunksSaySrgbAndEndTheFile) {
    std::string png = encode_png_rgb8(3, 2, noise(3, 2, 1));
    std::vector<Chunk> c = chunks_of(png);
    ASSERT_GE(c.size(), 6u);
    EXPECT_EQ(c.front().type, "IHDR");
    EXPECT_EQ(c.front().data, std::string("\0\0\0\3\0\0\0\2\x08\x02\0\0\0", 13));  // 3x2, 8-bit truecolour
    EXPECT_EQ(c.back().type, "IEND");
    size_t srgb = 0, idat = 0;
    for (size_t i = 0; i < c.size(); ++i) {
        if (c[i].type == "sRGB") srgb = i;
        if (c[i].type == "IDAT" && idat == 0) idat = i;
    }
    ASSERT_GT(srgb, 0u);
    EXPECT_LT(srgb, idat);
    EXPECT_EQ(c[srgb].data, std::string(1, '\0'));  // perceptual intent
    // Nothing after IEND.
    size_t total = 8;
    for (const Chunk& k : c) total += 12 + k.data.size();
    EXPECT_EQ(total, png.size());
}

TEST(Png, EachRowTakesTheFilterThatSuitsIt) {
    const int w = 64, h = 4;
    std::vector<unsigned char> rgb(static_cast<size_t>(w) * h * 3);
    auto px = [&](int x, int y) { return rgb.data() + (static_cast<size_t>(y) * w + x) * 3; };
    for (int x = 0; x < w; ++x) {
        for (int c = 0; c < 3; ++c) {
            px(x, 0)[c] = static_cast<unsigned char>(2 * (x & 1));      // small values that alternate: None
            px(x, 1)[c] = static_cast<unsigned char>(100 + 2 * x);      // a ramp: Sub
            px(x, 2)[c] = static_cast<unsigned char>(37 * x + 11 * c);  // a steep ramp (mod 256), ...
            px(x, 3)[c] = px(x, 2)[c];                                  // ... repeated below: Up
        }
    }
    std::string png = encode_png_rgb8(w, h, rgb);
    EXPECT_EQ(row_filters(png, w, h), (std::vector<int>{0, 1, 1, 2}));
    int dw = 0, dh = 0;
    EXPECT_EQ(decode(png, &dw, &dh), rgb);
}

TEST(Png, RefusesBufferOfTheWrongSize) {
    EXPECT_THROW(encode_png_rgb8(2, 2, std::vector<unsigned char>(11)), std::exception);
    EXPECT_THROW(encode_png_rgb8(0, 2, {}), std::exception);
}
