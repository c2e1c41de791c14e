// TGA, BMP and Radiance .hdr through stb_image, compiled here alone and static (STB_IMAGE_STATIC), with
// only those three decoders. stb_image's PNG and JPEG decoders, which pkrt once used, over-read the heap
// on 16-bit PGMs and wrote out of bounds in the JPEG Huffman decoder; libpng and libjpeg-turbo read
// those formats now. The three kept here are simple byte readers with few allocations, but they trust
// their input in ways that are not memory errors: a read past the end of the data yields zeros (a
// truncated file decodes as black), a colour-map index past the map reads entry 0, a BMP palette index
// past the palette reads uninitialised entries, and the HDR decoder loops forever on an empty run
// (CVE-2021-42715, still in Debian's 2.27). So each file's structure is walked here first, without
// pixel memory, and only a stream that decodes exactly as written reaches stb_image; every decoder here
// has its own fuzz target (tests/fuzz/).
#include <algorithm>
#include <climits>
#include <cstring>
#include <memory>

#include "render/error.h"
#include "render/texture/texture_decoders.h"

#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_STATIC
#define STBI_ONLY_TGA
#define STBI_ONLY_BMP
#define STBI_ONLY_HDR
#define STBI_NO_STDIO
#define STBI_MAX_DIMENSIONS pkrt::kMaxTextureSide
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#include <stb_image.h>
#pragma GCC diagnostic pop

namespace pkrt {

namespace {

unsigned le16(const std::string& b, size_t at) {
    return static_cast<unsigned char>(b[at]) | static_cast<unsigned>(static_cast<unsigned char>(b[at + 1])) << 8;
}

uint32_t le32(const std::string& b, size_t at) { return le16(b, at) | static_cast<uint32_t>(le16(b, at + 2)) << 16; }

using StbPixels = std::unique_ptr<stbi_uc, void (*)(void*)>;

// stb_image's reasons are terse words of its own ("outofmem", "bad BMP"): said in pkrt's where it matters.
std::string stb_reason() {
    const char* r = stbi_failure_reason();
    if (!r) return "unknown error";
    if (std::strcmp(r, "outofmem") == 0) return "not enough memory to decode this texture";
    return r;
}

// stb_image's own reading of the header must agree with the one checked here.
void stb_info_agrees(const InputFile& f, const char* format, uint64_t w, uint64_t h) {
    int sw = 0, sh = 0, comp = 0;
    if (!stbi_info_from_memory(reinterpret_cast<const stbi_uc*>(f.bytes.data()), static_cast<int>(f.bytes.size()), &sw,
                               &sh, &comp))
        throw Error(f.path + ": cannot read " + format + ": " + stb_reason());
    const int64_t rows = sh < 0 ? -int64_t(sh) : sh;  // a top-down BMP's height is negative here
    if (sw < 0 || uint64_t(sw) != w || uint64_t(rows) != h)
        throw Error(f.path + ": " + format + " decoder disagrees about the size");
}

// RGBA8 from stb_image into t, which the checks have sized. For a moment stb_image's buffers (the file's
// channels, then RGBA) and the texels are all held: one image's, freed before the next loads.
void stb_decode_rgba(const InputFile& f, const char* format, TextureImage& t) {
    int w = 0, h = 0, comp = 0;
    StbPixels px(stbi_load_from_memory(reinterpret_cast<const stbi_uc*>(f.bytes.data()),
                                       static_cast<int>(f.bytes.size()), &w, &h, &comp, 4),
                 stbi_image_free);
    if (!px) throw Error(f.path + ": cannot read " + format + ": " + stb_reason());
    if (w != t.width || h != t.height) throw Error(f.path + ": " + format + " decoder disagrees about the size");
    t.texels.resize(static_cast<size_t>(w) * h);
    std::memcpy(static_cast<void*>(t.texels.data()), px.get(), t.texels.size() * 4);
}

// ---- TGA ----

struct TgaLayout {
    unsigned id_length = 0, map_type = 0, type = 0, map_first = 0, map_length = 0, map_bits = 0;
    unsigned width = 0, height = 0, bits = 0, descriptor = 0;
    bool rle = false, indexed = false;
    unsigned pixel_bytes = 0;  // a stored pixel, or a colour-map index
    uint64_t data = 0;         // offset of the pixel data
};

// The header as stb_image reads it, limited to what it decodes right: nullptr when fine, else why not.
const char* parse_tga(const std::string& b, TgaLayout& l) {
    if (b.size() < 18) return "shorter than a TGA header";
    l.id_length = static_cast<unsigned char>(b[0]);
    l.map_type = static_cast<unsigned char>(b[1]);
    l.type = static_cast<unsigned char>(b[2]);
    l.map_first = le16(b, 3);
    l.map_length = le16(b, 5);
    l.map_bits = static_cast<unsigned char>(b[7]);
    l.width = le16(b, 12);
    l.height = le16(b, 14);
    l.bits = static_cast<unsigned char>(b[16]);
    l.descriptor = static_cast<unsigned char>(b[17]);
    l.rle = l.type >= 8;
    unsigned base = l.type & 7;
    if (l.map_type > 1 || (l.type != base && l.type != base + 8)) return "unknown TGA image type";
    l.indexed = base == 1;
    if (l.indexed != (l.map_type == 1)) return "TGA colour map and image type disagree";
    if (l.indexed) {
        if (l.bits != 8 && l.bits != 16) return "TGA colour-map index is neither 8 nor 16 bits";
        if (l.map_bits != 8 && l.map_bits != 15 && l.map_bits != 16 && l.map_bits != 24 && l.map_bits != 32)
            return "unsupported TGA colour-map entry size";
        if (l.map_length == 0) return "TGA colour map is empty";
        // stb_image skips map_first bytes where the format means the first entry's index.
        if (l.map_first != 0) return "TGA colour map does not start at entry 0 (unsupported)";
    } else if (base == 2) {
        if (l.bits != 15 && l.bits != 16 && l.bits != 24 && l.bits != 32) return "unsupported TGA pixel size";
    } else if (base == 3) {
        if (l.bits != 8 && l.bits != 16) return "unsupported TGA greyscale pixel size";
    } else {
        return "unknown TGA image type";
    }
    if (l.width == 0 || l.height == 0) return "empty TGA image";
    if (l.descriptor & 0xc0) return "interleaved TGA (unsupported)";
    l.pixel_bytes = (l.bits + 7) / 8;
    l.data = 18 + uint64_t(l.id_length) + (l.indexed ? uint64_t(l.map_length) * ((l.map_bits + 7) / 8) : 0);
    return nullptr;
}

// Walks the pixel stream as stb_image decodes it, storing nothing: truncated data, and colour-map
// indices past the map, are errors rather than black or entry 0.
void check_tga_stream(const InputFile& f, const TgaLayout& l) {
    const std::string& b = f.bytes;
    const uint64_t n = uint64_t(l.width) * l.height, pb = l.pixel_bytes;
    uint64_t pos = l.data, done = 0;
    auto truncated = [&] {
        return Error(f.path + ": truncated TGA pixel data (ends at pixel " + std::to_string(done) + " of " +
                     std::to_string(n) + ")");
    };
    auto check_indices = [&](uint64_t at, uint64_t count) {
        if (!l.indexed) return;
        for (uint64_t i = 0; i < count; ++i, at += pb) {
            unsigned index = pb == 1 ? static_cast<unsigned char>(b[at]) : le16(b, at);
            if (index >= l.map_length)
                throw Error(f.path + ": TGA colour-map index " + std::to_string(index) + " at pixel " +
                            std::to_string(done + i) + " is past the map's " + std::to_string(l.map_length) +
                            " entries");
        }
    };
    if (!l.rle) {
        if (b.size() - pos < n * pb) {
            done = (b.size() - pos) / pb;
            throw truncated();
        }
        check_indices(pos, n);
        return;
    }
    // Packets may run across rows (stb_image reads them so); a final packet may overrun the image.
    while (done < n) {
        if (pos >= b.size()) throw truncated();
        unsigned head = static_cast<unsigned char>(b[pos++]);
        uint64_t count = std::min<uint64_t>(1 + (head & 127), n - done);
        uint64_t stored = head & 128 ? 1 : count;
        if (b.size() - pos < stored * pb) throw truncated();
        check_indices(pos, stored);
        pos += stored * pb;
        done += count;
    }
}

// ---- BMP ----

struct BmpLayout {
    uint32_t offset = 0, header_size = 0, compression = 0;
    int64_t width = 0, height = 0;  // height < 0: rows top to bottom
    unsigned bits = 0;
    int64_t palette = 0;  // entries, as stb_image counts them
};

const char* parse_bmp(const std::string& b, BmpLayout& l) {
    if (b.size() < 26) return "shorter than a BMP header";
    l.offset = le32(b, 10);
    l.header_size = le32(b, 14);
    const uint32_t hs = l.header_size;
    if (hs != 12 && hs != 40 && hs != 56 && hs != 108 && hs != 124) return "unknown BMP header type";
    if (b.size() < 14 + uint64_t(hs)) return "truncated BMP header";
    unsigned planes;
    if (hs == 12) {
        l.width = le16(b, 18);
        l.height = le16(b, 20);
        planes = le16(b, 22);
        l.bits = le16(b, 24);
    } else {
        l.width = static_cast<int32_t>(le32(b, 18));
        l.height = static_cast<int32_t>(le32(b, 22));
        planes = le16(b, 26);
        l.bits = le16(b, 28);
        l.compression = le32(b, 30);
    }
    if (planes != 1) return "BMP has more than one plane";
    if (l.width <= 0 || l.height == 0 || l.height == INT32_MIN) return "BMP has an invalid size";
    if (l.bits != 1 && l.bits != 4 && l.bits != 8 && l.bits != 16 && l.bits != 24 && l.bits != 32)
        return "unsupported BMP pixel size";
    if (l.compression == 3 ? l.bits != 16 && l.bits != 32 : l.compression != 0)
        return "compressed BMP (RLE, JPEG or PNG; unsupported)";
    if (l.bits < 16) {
        int64_t room = int64_t(l.offset) - 14 - (hs == 12 ? 24 : hs);  // stb_image's reckoning
        l.palette = hs == 12 ? room / 3 : room / 4;
        if (l.palette < 1 || l.palette > 256) return "BMP colour palette is missing or has more than 256 entries";
    }
    return nullptr;
}

void check_bmp_stream(const InputFile& f, const BmpLayout& l) {
    const std::string& b = f.bytes;
    const uint64_t w = uint64_t(l.width), h = uint64_t(l.height < 0 ? -l.height : l.height);
    const uint64_t row_bytes = (w * l.bits + 7) / 8, stride = (row_bytes + 3) / 4 * 4;
    if (l.offset > b.size() || b.size() - l.offset < stride * (h - 1) + row_bytes)
        throw Error(f.path + ": truncated BMP pixel data (" + std::to_string(b.size()) + " bytes for " +
                    std::to_string(w) + "x" + std::to_string(h) + " pixels of " + std::to_string(l.bits) + " bits)");
    if (l.bits >= 16) return;
    const unsigned per_byte = 8 / l.bits, mask = (1u << l.bits) - 1;
    for (uint64_t y = 0; y < h; ++y) {
        const unsigned char* row = reinterpret_cast<const unsigned char*>(b.data()) + l.offset + y * stride;
        for (uint64_t x = 0; x < w; ++x) {
            unsigned shift = 8 - l.bits * (1 + x % per_byte);
            unsigned index = (row[x / per_byte] >> shift) & mask;
            if (index >= l.palette)
                throw Error(f.path + ": BMP palette index " + std::to_string(index) + " in row " + std::to_string(y) +
                            " is past the palette's " + std::to_string(l.palette) + " entries");
        }
    }
}

// ---- Radiance RGBE ----

struct HdrLayout {
    int width = 0, height = 0;
};

// Reads one header line as stb_image does (up to '\n', which is consumed); false at the end of the file.
bool hdr_line(const std::string& b, size_t& pos, std::string& line) {
    if (pos >= b.size()) return false;
    size_t end = b.find('\n', pos);
    if (end == std::string::npos) return false;  // a header line must end: the pixels follow it
    line.assign(b, pos, end - pos);
    pos = end + 1;
    return true;
}

bool parse_side(const std::string& s, size_t& i, int* out) {
    size_t start = i;
    int64_t v = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9' && i - start < 10) v = v * 10 + (s[i++] - '0');
    if (i == start || (i < s.size() && s[i] >= '0' && s[i] <= '9')) return false;
    *out = v > INT_MAX ? INT_MAX : static_cast<int>(v);
    return true;
}

// Header: the magic line, variables up to an empty line (FORMAT=32-bit_rle_rgbe among them), then the
// resolution "-Y H +X W" (rows top to bottom: the only orientation stb_image reads). Returns the offset
// of the pixel data.
size_t parse_hdr_header(const InputFile& f, HdrLayout& out) {
    const std::string& b = f.bytes;
    size_t pos = 0;
    std::string line;
    if (!hdr_line(b, pos, line) || (line != "#?RADIANCE" && line != "#?RGBE"))
        throw Error(f.path + ": not a Radiance HDR file (no #?RADIANCE line)");
    bool rgbe = false;
    for (;;) {
        if (!hdr_line(b, pos, line)) throw Error(f.path + ": truncated HDR header");
        // stb_image reads header lines into a 1024-byte buffer and skips the rest of longer ones.
        if (line.size() >= 1023) throw Error(f.path + ": HDR header line longer than 1022 bytes");
        if (line.empty()) break;
        if (line == "FORMAT=32-bit_rle_rgbe") rgbe = true;
        else if (line.rfind("FORMAT=", 0) == 0)
            throw Error(f.path + ": unsupported HDR pixel format '" + line.substr(7) +
                        "' (pkrt reads 32-bit_rle_rgbe)");
    }
    if (!rgbe) throw Error(f.path + ": HDR header has no FORMAT=32-bit_rle_rgbe line");
    if (!hdr_line(b, pos, line)) throw Error(f.path + ": truncated HDR header (no resolution line)");
    size_t i = 3;
    int w = 0, h = 0;
    bool ok = line.rfind("-Y ", 0) == 0 && parse_side(line, i, &h);
    if (ok) {
        while (i < line.size() && line[i] == ' ') ++i;
        ok = line.compare(i, 3, "+X ") == 0;
        i += 3;
        ok = ok && parse_side(line, i, &w) && i == line.size();
    }
    if (!ok)
        throw Error(f.path + ": unsupported HDR resolution line '" + line.substr(0, 64) +
                    "' (pkrt reads \"-Y height +X width\")");
    out.width = w;
    out.height = h;
    return pos;
}

// Walks the pixel stream as stb_image will decode it, without storing pixels: any stream that would not
// decode exactly as written is an error here.
void check_hdr_stream(const InputFile& f, const HdrLayout& l, size_t pos) {
    const std::string& b = f.bytes;
    const uint64_t w = static_cast<uint64_t>(l.width), h = static_cast<uint64_t>(l.height);
    auto truncated = [&](uint64_t row) {
        return Error(f.path + ": truncated HDR pixel data (ends in row " + std::to_string(row) + " of " +
                     std::to_string(h) + ")");
    };
    auto flat = [&](uint64_t from_row) {
        uint64_t need = 4 * w * h;
        if (b.size() - pos < need) throw truncated(from_row + (b.size() - pos) / (4 * w));
    };
    if (w < 8 || w >= 32768) return flat(0);  // stb_image reads these widths uncompressed
    for (uint64_t j = 0; j < h; ++j) {
        if (b.size() - pos < 4) throw truncated(j);
        auto c = [&](size_t k) { return static_cast<unsigned char>(b[pos + k]); };
        if (c(0) != 2 || c(1) != 2 || (c(2) & 0x80)) {
            if (j == 0) return flat(0);  // a file written without run-length encoding
            throw Error(f.path + ": HDR row " + std::to_string(j) +
                        " is not run-length encoded like the rows before it");
        }
        if ((static_cast<uint64_t>(c(2)) << 8 | c(3)) != w)
            throw Error(f.path + ": HDR row " + std::to_string(j) + " has the wrong length");
        pos += 4;
        for (int k = 0; k < 4; ++k) {
            uint64_t i = 0;
            while (i < w) {
                if (pos >= b.size()) throw truncated(j);
                unsigned count = static_cast<unsigned char>(b[pos++]);
                if (count > 128) {  // a run of one value
                    count -= 128;
                    if (pos >= b.size()) throw truncated(j);
                    ++pos;
                } else {  // a dump of literal values
                    if (count == 0)
                        throw Error(f.path + ": HDR row " + std::to_string(j) + " has an empty run (corrupt)");
                    if (b.size() - pos < count) throw truncated(j);
                    pos += count;
                }
                if (count > w - i)
                    throw Error(f.path + ": HDR row " + std::to_string(j) + " has a run past its end (corrupt)");
                i += count;
            }
        }
    }
}

void check_stb_size(const InputFile& f) {
    if (f.bytes.size() > static_cast<size_t>(INT_MAX)) throw Error(f.path + ": file larger than 2 GiB");
}

}  // namespace

bool is_bmp(const std::string& b) { return b.size() >= 2 && b[0] == 'B' && b[1] == 'M'; }

bool is_radiance(const std::string& b) { return b.size() >= 2 && b[0] == '#' && b[1] == '?'; }

const char* tga_header_problem(const std::string& b) {
    TgaLayout l;
    return parse_tga(b, l);
}

void decode_tga(const InputFile& f, const SizeCheck& check, TextureImage& t) {
    TgaLayout l;
    if (const char* why = parse_tga(f.bytes, l)) throw Error(f.path + ": cannot read TGA: " + why);
    check(l.width, l.height);
    if (f.bytes.size() < l.data) throw Error(f.path + ": truncated TGA (its colour map or ID field is cut off)");
    // The walk stands for check_plausible, exactly: its work is bounded by the file's bytes, not the header's claim.
    check_tga_stream(f, l);
    check_stb_size(f);
    stb_info_agrees(f, "TGA", l.width, l.height);
    t.width = static_cast<int>(l.width);
    t.height = static_cast<int>(l.height);
    stb_decode_rgba(f, "TGA", t);
    if (l.descriptor & 0x10)  // rows stored right to left: stb_image honours only the top/bottom bit
        for (int y = 0; y < t.height; ++y)
            std::reverse(t.texels.begin() + size_t(y) * t.width, t.texels.begin() + size_t(y + 1) * t.width);
}

void decode_bmp(const InputFile& f, const SizeCheck& check, TextureImage& t) {
    BmpLayout l;
    if (const char* why = parse_bmp(f.bytes, l)) throw Error(f.path + ": cannot read BMP: " + why);
    const uint64_t h = uint64_t(l.height < 0 ? -l.height : l.height);
    check(uint64_t(l.width), h);
    check_bmp_stream(f, l);  // pixels are stored uncompressed: exactly as plausible as they are complete
    check_stb_size(f);
    stb_info_agrees(f, "BMP", uint64_t(l.width), h);
    t.width = static_cast<int>(l.width);
    t.height = static_cast<int>(h);
    stb_decode_rgba(f, "BMP", t);
}

void decode_radiance(const InputFile& f, const SizeCheck& check, FloatImage& out) {
    HdrLayout l;
    size_t data = parse_hdr_header(f, l);
    check(l.width, l.height);
    if (l.width <= 0 || l.height <= 0) throw Error(f.path + ": empty HDR image");
    check_hdr_stream(f, l, data);
    check_stb_size(f);
    stb_info_agrees(f, "HDR", l.width, l.height);
    int w = 0, h = 0, comp = 0;
    std::unique_ptr<float, void (*)(void*)> px(
        stbi_loadf_from_memory(reinterpret_cast<const stbi_uc*>(f.bytes.data()), static_cast<int>(f.bytes.size()), &w,
                               &h, &comp, 3),
        stbi_image_free);
    if (!px) throw Error(f.path + ": cannot read HDR: " + stb_reason());
    if (w != l.width || h != l.height) throw Error(f.path + ": HDR decoder disagrees about the size");
    out.width = w;
    out.height = h;
    out.texels.resize(static_cast<size_t>(w) * h);
    std::memcpy(static_cast<void*>(out.texels.data()), px.get(), out.texels.size() * sizeof(Vec3));
}

}  // namespace pkrt
