// Environment maps: equirectangular Radiance .hdr (decoded by stb_image) and OpenEXR, and their sampling
// distribution. Both are untrusted input. stb_image's HDR decoder trusts its file: a run-length scanline
// with a zero-length dump loops forever at the end of the data (CVE-2021-42715 is still in Debian's
// 2.27), a truncated file decodes as black, and a flat scanline after run-length ones restarts the image
// at the top. So the header is parsed here and the whole pixel stream walked (no pixel memory) before
// stb_image sees it; only a stream that decodes exactly as written reaches it. OpenEXR checks its own
// structure and throws; its image size is capped and the data window checked against the texel budget
// before pixel memory is allocated.
#include <stb_image.h>

#include <ImfChannelList.h>
#include <ImfHeader.h>
#include <ImfIO.h>
#include <ImfInputFile.h>
#include <Iex.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <memory>

#include "error.h"
#include "exr_rgb.h"
#include "input_file.h"
#include "load_limits.h"
#include "loaders.h"

namespace pkrt {

namespace {

constexpr int kMaxMapSide = 32768;  // as textures: texel offsets stay within 32 bits on the device

void check_map_size(const Scene& scene, const std::string& path, int64_t w, int64_t h) {
    if (w <= 0 || h <= 0) throw Error(path + ": empty environment map");
    if (w > kMaxMapSide || h > kMaxMapSide)
        throw Error(path + ": environment map of " + std::to_string(w) + "x" + std::to_string(h) + " is larger than " +
                    std::to_string(kMaxMapSide) + " on a side");
    check_texel_budget(scene.limits, path + " (an environment texel counts as " + std::to_string(kEnvironmentTexelWeight) + ")",
                       texel_budget_used(scene), static_cast<uint64_t>(w) * static_cast<uint64_t>(h) * kEnvironmentTexelWeight);
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
        else if (line.rfind("FORMAT=", 0) == 0) throw Error(f.path + ": unsupported HDR pixel format '" + line.substr(7) + "' (pkrt reads 32-bit_rle_rgbe)");
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
    if (!ok) throw Error(f.path + ": unsupported HDR resolution line '" + line.substr(0, 64) + "' (pkrt reads \"-Y height +X width\")");
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
        return Error(f.path + ": truncated HDR pixel data (ends in row " + std::to_string(row) + " of " + std::to_string(h) + ")");
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
            throw Error(f.path + ": HDR row " + std::to_string(j) + " is not run-length encoded like the rows before it");
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
                } else {            // a dump of literal values
                    if (count == 0) throw Error(f.path + ": HDR row " + std::to_string(j) + " has an empty run (corrupt)");
                    if (b.size() - pos < count) throw truncated(j);
                    pos += count;
                }
                if (count > w - i) throw Error(f.path + ": HDR row " + std::to_string(j) + " has a run past its end (corrupt)");
                i += count;
            }
        }
    }
}

void decode_hdr(const Scene& scene, const InputFile& f, EnvironmentMap& m) {
    HdrLayout l;
    size_t data = parse_hdr_header(f, l);
    check_map_size(scene, f.path, l.width, l.height);
    check_hdr_stream(f, l, data);
    if (f.bytes.size() > static_cast<size_t>(INT_MAX)) throw Error(f.path + ": HDR file larger than 2 GiB");
    int w = 0, h = 0, comp = 0;
    std::unique_ptr<float, void (*)(void*)> px(
        stbi_loadf_from_memory(reinterpret_cast<const stbi_uc*>(f.bytes.data()), static_cast<int>(f.bytes.size()), &w, &h, &comp, 3),
        stbi_image_free);
    if (!px) throw Error(f.path + ": cannot read HDR: " + (stbi_failure_reason() ? stbi_failure_reason() : "unknown error"));
    if (w != l.width || h != l.height) throw Error(f.path + ": HDR decoder disagrees about the size");
    m.width = w;
    m.height = h;
    m.texels.resize(static_cast<size_t>(w) * h);
    std::memcpy(static_cast<void*>(m.texels.data()), px.get(), m.texels.size() * sizeof(Vec3));
}

// ---- OpenEXR ----

// The file's bytes as an OpenEXR stream, so the library never opens the path itself (input_file.h).
class MemoryStream : public Imf::IStream {
public:
    MemoryStream(const std::string& bytes, const std::string& name) : Imf::IStream(name.c_str()), b_(bytes) {}
    bool read(char c[], int n) override {
        if (n < 0 || pos_ > b_.size() || b_.size() - pos_ < static_cast<uint64_t>(n))
            throw IEX_NAMESPACE::InputExc("unexpected end of file");
        std::memcpy(c, b_.data() + pos_, static_cast<size_t>(n));
        pos_ += static_cast<uint64_t>(n);
        return pos_ < b_.size();
    }
    uint64_t tellg() override { return pos_; }
    void seekg(uint64_t pos) override { pos_ = pos; }

private:
    const std::string& b_;
    uint64_t pos_ = 0;
};

void decode_exr(const Scene& scene, const InputFile& f, EnvironmentMap& m) {
    try {
        // The header's sanity check then refuses larger data windows before the library allocates its
        // chunk tables for them.
        Imf::Header::setMaxImageSize(kMaxMapSide, kMaxMapSide);
        Imf::Header::setMaxTileSize(kMaxMapSide, kMaxMapSide);
        MemoryStream stream(f.bytes, f.path);
        Imf::InputFile file(stream);
        const Imath::Box2i dw = file.header().dataWindow();
        int64_t w = int64_t(dw.max.x) - dw.min.x + 1, h = int64_t(dw.max.y) - dw.min.y + 1;
        check_map_size(scene, f.path, w, h);
        const Imf::ChannelList& ch = file.header().channels();
        for (const char* name : {"R", "G", "B"})
            if (!ch.findChannel(name)) throw Error(f.path + ": EXR has no " + name + " channel (pkrt reads RGB or RGBA)");
        m.width = static_cast<int>(w);
        m.height = static_cast<int>(h);
        m.texels.assign(static_cast<size_t>(w) * h, splat(0.0f));
        read_exr_rgb(file, m.texels.data());
    } catch (const Error&) {
        throw;
    } catch (const std::exception& e) {
        throw Error(f.path + ": cannot read EXR: " + e.what());
    }
}

}  // namespace

void set_environment_map(Scene& scene, const std::string& path, float intensity, float rotation_degrees) {
    // The largest map that fits a 32-bit read; far beyond the default texel budget anyway.
    InputFile f = read_input_file(path, "environment map not found", uint64_t(INT_MAX));
    scene.env_map = EnvironmentMap{};  // a replaced map no longer counts against the budget
    EnvironmentMap m;
    m.path = path;
    const auto* b = reinterpret_cast<const unsigned char*>(f.bytes.data());
    if (f.bytes.size() >= 2 && b[0] == '#' && b[1] == '?') decode_hdr(scene, f, m);
    else if (f.bytes.size() >= 4 && b[0] == 0x76 && b[1] == 0x2f && b[2] == 0x31 && b[3] == 0x01) decode_exr(scene, f, m);
    else throw Error(path + ": unsupported environment map format (pkrt reads Radiance .hdr and OpenEXR .exr)");
    scene.inputs.push_back({f.path, f.id});

    // Negative or non-finite radiance has no physical meaning, and one NaN texel would poison every
    // sample that reads it. A few such texels are common in real EXRs (a resampling filter's ringing, a
    // renderer's stray NaN), so they become black and are counted rather than refusing the whole map.
    size_t invalid = 0;
    float max_c = 0.0f;
    for (Vec3& t : m.texels) {
        bool bad = false;
        for (float* c : {&t.x, &t.y, &t.z}) {
            if (!std::isfinite(*c) || *c < 0.0f) {
                *c = 0.0f;
                bad = true;
            }
            max_c = std::max(max_c, *c);
        }
        invalid += bad ? 1 : 0;
    }
    m.max_component = max_c;
    // In double: the brightest texel and the intensity are each finite, their product may not be.
    if (static_cast<double>(max_c) * intensity > 1e20)
        throw Error(path + ": the brightest texel times the intensity is " + std::to_string(double(max_c) * intensity) +
                    ", more than 1e20");
    scene.load_stats.invalid_environment_texels = invalid;
    scene.env_map = std::move(m);

    Environment& env = scene.environment;
    env.type = kEnvMap;
    env.intensity = intensity;
    double rad = static_cast<double>(rotation_degrees) * 3.14159265358979323846 / 180.0;
    env.sin_rotation = static_cast<float>(std::sin(rad));
    env.cos_rotation = static_cast<float>(std::cos(rad));
}

void build_environment_distribution(EnvironmentMap& map) {
    const int w = map.width, h = map.height;
    map.conditional_cdf.assign(static_cast<size_t>(w + 1) * h, 0.0f);
    map.marginal_cdf.assign(static_cast<size_t>(h) + 1, 0.0f);
    std::vector<double> row_sum(h, 0.0), partial(static_cast<size_t>(w) + 1, 0.0);
    for (int j = 0; j < h; ++j) {
        // A texel's solid angle is proportional to sin(theta) at its row; the row's centre stands for it.
        double sin_theta = std::sin(3.14159265358979323846 * (j + 0.5) / h);
        const Vec3* row = map.texels.data() + static_cast<size_t>(j) * w;
        for (int i = 0; i < w; ++i) partial[i + 1] = partial[i] + static_cast<double>(luminance(row[i])) * sin_theta;
        double sum = partial[w];
        row_sum[j] = sum;
        float* cdf = map.conditional_cdf.data() + static_cast<size_t>(j) * (w + 1);
        // A black row is never chosen; a uniform CDF keeps its entries well defined all the same.
        for (int i = 1; i <= w; ++i) cdf[i] = static_cast<float>(sum > 0.0 ? partial[i] / sum : double(i) / w);
        cdf[w] = 1.0f;
    }
    double total = 0.0;
    for (int j = 0; j < h; ++j) total += row_sum[j];
    if (!(total > 0.0)) return;  // all black: the marginal stays 0 and the map is no light
    double acc = 0.0;
    for (int j = 0; j < h; ++j) {
        acc += row_sum[j];
        map.marginal_cdf[j + 1] = static_cast<float>(acc / total);
    }
    map.marginal_cdf[h] = 1.0f;
}

}  // namespace pkrt
