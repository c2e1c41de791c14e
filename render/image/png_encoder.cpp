// The PNG encoder behind every PNG pkrt writes (renders, sequences, charts, screenshots). Sequences of
// small frames are paced by it, not by the GPU (BENCHMARKS.md, sessions 7 and 8), so it is built for
// speed: each row takes whichever of the None, Sub and Up filters leaves the smallest sum of absolute
// differences (libpng's heuristic, without Average and Paeth, whose cost bought nothing at level 1 on
// rendered frames), and libdeflate compresses the whole filtered image at level 1 in one call: faster
// than libpng with zlib at level 1, and smaller files (BENCHMARKS.md, "Numbers from code comments"). libdeflate has no streaming interface, so the filtered image (the size of the
// RGB bytes) is held whole. The chunks around the data are the PNG specification's own: IHDR, the
// colour space (sRGB, with the gAMA and cHRM values the specification pairs with it), IDAT, IEND.
#include <libdeflate.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "render/error.h"
#include "render/image/image.h"

namespace pkrt {

namespace {

constexpr size_t kIdatBytes = size_t{1} << 18;  // compressed data per IDAT chunk

void put_u32(std::string& out, uint32_t v) {
    const char b[4] = {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
                       static_cast<char>(v)};
    out.append(b, 4);
}

// Length, type, data and the CRC of type and data.
void put_chunk(std::string& out, const char type[4], const unsigned char* data, size_t size) {
    put_u32(out, static_cast<uint32_t>(size));
    size_t at = out.size();
    out.append(type, 4);
    if (size > 0) out.append(reinterpret_cast<const char*>(data), size);
    put_u32(out, libdeflate_crc32(0, out.data() + at, size + 4));
}

void put_chunk(std::string& out, const char type[4], const std::vector<uint32_t>& words) {
    std::vector<unsigned char> data;
    for (uint32_t w : words)
        for (int s = 24; s >= 0; s -= 8) data.push_back(static_cast<unsigned char>(w >> s));
    put_chunk(out, type, data.data(), data.size());
}

// Each row behind its filter byte: None (0), Sub (1) or Up (2), whichever has the least sum of absolute
// values of its bytes read as signed.
std::vector<unsigned char> filter_rows(int width, int height, const unsigned char* rgb) {
    const size_t row = static_cast<size_t>(width) * 3;
    std::vector<unsigned char> out((row + 1) * static_cast<size_t>(height));
    auto magnitude = [](unsigned char d) { return static_cast<uint32_t>(d < 128 ? d : 256 - d); };
    for (int y = 0; y < height; ++y) {
        const unsigned char* cur = rgb + static_cast<size_t>(y) * row;
        const unsigned char* up = y > 0 ? cur - row : nullptr;
        uint64_t none = 0, sub = 0, upper = 0;
        for (size_t i = 0; i < row; ++i) {
            unsigned char left = i >= 3 ? cur[i - 3] : 0, above = up ? up[i] : 0;
            none += magnitude(cur[i]);
            sub += magnitude(static_cast<unsigned char>(cur[i] - left));
            upper += magnitude(static_cast<unsigned char>(cur[i] - above));
        }
        unsigned char* o = out.data() + static_cast<size_t>(y) * (row + 1);
        if (none <= sub && none <= upper) {
            o[0] = 0;
            std::memcpy(o + 1, cur, row);
        } else if (sub <= upper) {
            o[0] = 1;
            for (size_t i = 0; i < row; ++i) o[1 + i] = static_cast<unsigned char>(cur[i] - (i >= 3 ? cur[i - 3] : 0));
        } else {
            o[0] = 2;
            for (size_t i = 0; i < row; ++i) o[1 + i] = static_cast<unsigned char>(cur[i] - up[i]);
        }
    }
    return out;
}

}  // namespace

std::string encode_png_rgb8(int width, int height, const std::vector<unsigned char>& rgb) {
    if (width <= 0 || height <= 0 || rgb.size() != static_cast<size_t>(width) * height * 3)
        throw Error("PNG encoding: " + std::to_string(width) + "x" + std::to_string(height) + " image of " +
                    std::to_string(rgb.size()) + " bytes");
    std::vector<unsigned char> filtered = filter_rows(width, height, rgb.data());
    std::unique_ptr<libdeflate_compressor, void (*)(libdeflate_compressor*)> zip(libdeflate_alloc_compressor(1),
                                                                                 libdeflate_free_compressor);
    if (!zip) throw Error("PNG encoding: out of memory");
    std::vector<unsigned char> data(libdeflate_zlib_compress_bound(zip.get(), filtered.size()));
    size_t size = libdeflate_zlib_compress(zip.get(), filtered.data(), filtered.size(), data.data(), data.size());
    if (size == 0)
        throw Error("PNG encoding: the compressor's bound was too small");  // libdeflate's bound is exact: never

    std::string out;
    out.reserve(size + size / kIdatBytes * 12 + 128);
    out.append("\x89PNG\r\n\x1a\n", 8);
    const unsigned char ihdr[13] = {static_cast<unsigned char>(width >> 24),
                                    static_cast<unsigned char>(width >> 16),
                                    static_cast<unsigned char>(width >> 8),
                                    static_cast<unsigned char>(width),
                                    static_cast<unsigned char>(height >> 24),
                                    static_cast<unsigned char>(height >> 16),
                                    static_cast<unsigned char>(height >> 8),
                                    static_cast<unsigned char>(height),
                                    8,   // bits per channel
                                    2,   // truecolour
                                    0,   // deflate
                                    0,   // adaptive filtering
                                    0};  // not interlaced
    put_chunk(out, "IHDR", ihdr, sizeof ihdr);
    // sRGB, perceptual intent; gAMA 1/2.2 and the BT.709 primaries and D65 white, both times 100000.
    put_chunk(out, "gAMA", std::vector<uint32_t>{45455});
    const unsigned char intent = 0;
    put_chunk(out, "sRGB", &intent, 1);
    put_chunk(out, "cHRM", std::vector<uint32_t>{31270, 32900, 64000, 33000, 30000, 60000, 15000, 6000});
    for (size_t at = 0; at < size; at += kIdatBytes)
        put_chunk(out, "IDAT", data.data() + at, std::min(kIdatBytes, size - at));
    put_chunk(out, "IEND", nullptr, 0);
    return out;
}

}  // namespace pkrt
