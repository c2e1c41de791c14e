#include "render/image/image.h"
#include "render/scene/input_file.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <regex>
#include <sstream>

#include <ImfChannelList.h>
#include <ImfFrameBuffer.h>
#include <ImfHeader.h>
#include <ImfInputFile.h>
#include <ImfOutputFile.h>
#include <ImfStdIO.h>
#include <ImfStringAttribute.h>
#include <unistd.h>

#include "render/cpu/parallel.h"
#include "render/error.h"
#include "render/image/exr_input.h"
#include "render/texture/exr_rgb.h"
#include "render/texture/texture_decoders.h"
#include "kernels/shading/texture.h"
#include "render/image/output_files.h"

namespace pkrt {

namespace {

std::string lower_ext(const std::string& path) {
    std::string ext = std::filesystem::path(path).extension().string();
    for (auto& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return ext;
}

}  // namespace

double linear_to_srgb(double v) { return v <= 0.0031308 ? 12.92 * v : 1.055 * std::pow(v, 1.0 / 2.4) - 0.055; }

namespace {

// Where the 8-bit codes step up, and the code at the start of each of 256 buckets per octave of the
// float's exponent, from 2^-14 (below it every value is code 0) to 1: a value's code is its bucket's,
// or the next when it lies past a step inside the bucket (a bucket is narrower than a code's step).
struct SrgbTable {
    static constexpr int kBuckets = 256 * 14;
    static constexpr float kLow = 0x1p-14f;
    std::array<float, 257> steps{};  // steps[k]: the least float whose code is k; steps[256] = +inf
    std::array<uint8_t, kBuckets> start{};
    static uint32_t bits(float f) {
        uint32_t b;
        std::memcpy(&b, &f, 4);
        return b;
    }
    static int bucket(float v) { return static_cast<int>((bits(v) >> 15) - (bits(kLow) >> 15)); }
    SrgbTable() {
        steps[0] = 0.0f;
        for (int k = 1; k < 256; ++k) {
            // From the inverse curve at the sRGB value where rounding reaches k, moved to the least
            // float that the forward curve in double puts there.
            float f = srgb_to_linear(static_cast<float>((k - 0.5) / 255.0));
            while (f > 0.0f && linear_to_srgb(std::nextafter(f, 0.0f)) * 255.0 >= k - 0.5) f = std::nextafter(f, 0.0f);
            while (linear_to_srgb(f) * 255.0 < k - 0.5) f = std::nextafter(f, 2.0f);
            steps[k] = f;
        }
        steps[256] = INFINITY;
        uint32_t first = bits(kLow);
        for (int i = 0; i < kBuckets; ++i) {
            float lo;
            uint32_t b = first + (static_cast<uint32_t>(i) << 15);
            std::memcpy(&lo, &b, 4);
            start[i] =
                static_cast<uint8_t>(std::upper_bound(steps.begin() + 1, steps.begin() + 256, lo) - steps.begin() - 1);
        }
    }
};

}  // namespace

// A table, not a pow per channel: the conversion took a third of a 512x512 frame's PNG time. Each step
// is the least float whose code (the curve in double, rounded half up) is k, so the result is exactly
// the curve's.
unsigned char linear_to_srgb8(float v) {
    static const SrgbTable t;
    if (!(v >= SrgbTable::kLow)) return 0;  // also maps NaN to black
    if (v >= 1.0f) return 255;
    unsigned c = t.start[SrgbTable::bucket(v)];
    while (v >= t.steps[c + 1]) ++c;
    return static_cast<unsigned char>(c);
}

void write_file_atomically(const std::string& path, const std::string& bytes) {
    write_outputs({{"", path, bytes}}, {});
}

void parse_resolution(const std::string& text, int* width, int* height, int min_side, int max_side) {
    static const std::regex re(R"(^(\d{1,9})[xX](\d{1,9})$)");  // no blanks: " 16x16" is not a size
    std::smatch m;
    if (!std::regex_match(text, m, re)) throw Error("--res " + text + ": expected WIDTHxHEIGHT, for example 1280x720");
    long long w = std::stoll(m[1]), h = std::stoll(m[2]);
    if (w < min_side || h < min_side || w > max_side || h > max_side)
        throw Error("--res " + text + ": each side must be between " + std::to_string(min_side) + " and " +
                    std::to_string(max_side));
    *width = static_cast<int>(w);
    *height = static_cast<int>(h);
}

Image resolve_accumulation(const Accumulation& a) {
    Image img;
    resolve_accumulation(a, img);
    return img;
}

void resolve_accumulation(const Accumulation& a, Image& img) {
    size_t n = static_cast<size_t>(a.width) * a.height;
    bool interleaved = a.rgba.size() == 4 * n;
    if (!interleaved && (a.sums.size() != 3 * n || a.counts.size() != n))
        throw Error("internal: an accumulation of " + std::to_string(a.width) + "x" + std::to_string(a.height) +
                    " without its pixels");
    img.width = a.width;
    img.height = a.height;
    img.pixels.resize(n);
    parallel_for(n, [&](size_t i) {
        const float* s = interleaved ? &a.rgba[4 * i] : &a.sums[3 * i];
        float count = interleaved ? a.rgba[4 * i + 3] : static_cast<float>(a.counts[i]);
        float inv = count > 0.0f ? 1.0f / count : 0.0f;
        img.pixels[i] = Vec3{s[0] * inv, s[1] * inv, s[2] * inv};
    });
}

std::vector<float> accumulation_samples(const Accumulation& a) {
    size_t n = static_cast<size_t>(a.width) * a.height;
    bool interleaved = a.rgba.size() == 4 * n;
    if (!interleaved && a.counts.size() != n) throw Error("internal: an accumulation without its sample counts");
    std::vector<float> out(n);
    for (size_t i = 0; i < n; ++i) out[i] = interleaved ? a.rgba[4 * i + 3] : static_cast<float>(a.counts[i]);
    return out;
}

void expand_preview(Accumulation& a, int block) {
    if (block <= 1) return;
    Accumulation full;
    full.width = a.width;
    full.height = a.height;
    size_t n = static_cast<size_t>(a.width) * a.height;
    bool interleaved = !a.rgba.empty();
    if (interleaved) full.rgba.resize(4 * n);
    else {
        full.sums.resize(3 * n);
        full.counts.resize(n);
        if (!a.odd_sums.empty()) full.odd_sums.resize(3 * n);
    }
    if (!a.features.empty()) full.features.resize(kFeatureFloats * n);
    for (int y = 0; y < a.height; ++y) {
        for (int x = 0; x < a.width; ++x) {
            size_t i = static_cast<size_t>(y) * a.width + x, s = preview_source(x, y, a.width, block);
            if (interleaved) {
                std::copy_n(&a.rgba[4 * s], 4, &full.rgba[4 * i]);
            } else {
                std::copy_n(&a.sums[3 * s], 3, &full.sums[3 * i]);
                if (!a.odd_sums.empty()) std::copy_n(&a.odd_sums[3 * s], 3, &full.odd_sums[3 * i]);
                full.counts[i] = a.counts[s];
            }
            if (!a.features.empty())
                std::copy_n(&a.features[kFeatureFloats * s], kFeatureFloats, &full.features[kFeatureFloats * i]);
        }
    }
    a = std::move(full);
}

std::string encode_png(const Image& image, const Look& look) {
    float scale = std::exp2(exposure_stops_for(look, image));
    std::vector<unsigned char> rgb(static_cast<size_t>(image.width) * image.height * 3);
    for (size_t i = 0; i < image.pixels.size(); ++i) {
        Vec3 c = tone_curve(image.pixels[i] * scale, look.curve);
        rgb[3 * i + 0] = linear_to_srgb8(c.x);
        rgb[3 * i + 1] = linear_to_srgb8(c.y);
        rgb[3 * i + 2] = linear_to_srgb8(c.z);
    }
    return encode_png_rgb8(image.width, image.height, rgb);
}

void write_png(const std::string& path, const Image& image, const Look& look) {
    write_file_atomically(path, encode_png(image, look));
}

void write_png_rgb8(const std::string& path, int width, int height, const std::vector<unsigned char>& rgb) {
    write_file_atomically(path, encode_png_rgb8(width, height, rgb));
}

std::string encode_pfm(const Image& image) {
    // PFM: "PF\n<w> <h>\n-1.0\n" then little-endian float RGB rows, bottom row first.
    std::string header = "PF\n" + std::to_string(image.width) + " " + std::to_string(image.height) + "\n-1.0\n";
    std::string bytes = header;
    size_t row = static_cast<size_t>(image.width) * 12;
    bytes.resize(header.size() + row * image.height);
    char* dst = bytes.data() + header.size();
    for (int y = image.height - 1; y >= 0; --y) {
        for (int x = 0; x < image.width; ++x) {
            const Vec3& p = image.at(x, y);
            float f[3] = {p.x, p.y, p.z};
            std::memcpy(dst, f, 12);
            dst += 12;
        }
    }
    return bytes;
}

void write_pfm(const std::string& path, const Image& image) { write_file_atomically(path, encode_pfm(image)); }

std::string encode_exr(const Image& image, const ExrAttributes& attributes) {
    try {
        Imf::Header header(image.width, image.height);
        for (const auto& [name, value] : attributes) header.insert(name, Imf::StringAttribute(value));
        header.channels().insert("R", Imf::Channel(Imf::FLOAT));
        header.channels().insert("G", Imf::Channel(Imf::FLOAT));
        header.channels().insert("B", Imf::Channel(Imf::FLOAT));
        Imf::StdOSStream stream;
        {
            // The file writes its line offset table as it closes: the bytes are whole only after that.
            Imf::OutputFile file(stream, header);
            Imf::FrameBuffer fb;
            char* base = reinterpret_cast<char*>(const_cast<Vec3*>(image.pixels.data()));
            size_t xs = sizeof(Vec3), ys = sizeof(Vec3) * image.width;
            fb.insert("R", Imf::Slice(Imf::FLOAT, base + 0, xs, ys));
            fb.insert("G", Imf::Slice(Imf::FLOAT, base + 4, xs, ys));
            fb.insert("B", Imf::Slice(Imf::FLOAT, base + 8, xs, ys));
            file.setFrameBuffer(fb);
            file.writePixels(image.height);
        }
        return stream.str();
    } catch (const std::exception& e) {
        throw Error(std::string("cannot encode EXR: ") + e.what());
    }
}

void write_exr(const std::string& path, const Image& image) { write_file_atomically(path, encode_exr(image)); }

std::string image_extension(const std::string& path) { return lower_ext(path); }

std::string encode_image(const std::string& path, const Image& image, const Look& look,
                         const ExrAttributes& exr_attributes) {
    std::string ext = lower_ext(path);
    if (ext == ".png") return encode_png(image, look);
    if (ext == ".exr") return encode_exr(image, exr_attributes);
    if (ext == ".pfm") return encode_pfm(image);
    if (ext == ".hdr") return encode_hdr(image);
    throw Error(path + ": unknown image type '" + ext + "'");
}

void write_image(const std::string& path, const Image& image) {
    write_file_atomically(path, encode_image(path, image));
}

Image read_pfm(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(path + ": cannot open");
    std::string magic;
    int w = 0, h = 0;
    float scale = 0.0f;
    in >> magic >> w >> h >> scale;
    in.get();
    if (magic != "PF" || w <= 0 || h <= 0 || scale >= 0.0f) throw Error(path + ": not a little-endian RGB PFM");
    Image img;
    img.width = w;
    img.height = h;
    img.pixels.resize(static_cast<size_t>(w) * h);
    for (int y = h - 1; y >= 0; --y) {
        for (int x = 0; x < w; ++x) {
            float f[3];
            in.read(reinterpret_cast<char*>(f), 12);
            img.at(x, y) = {f[0], f[1], f[2]};
        }
    }
    if (!in) throw Error(path + ": truncated PFM");
    return img;
}

void read_exr_rgb(Imf::InputFile& file, Vec3* pixels) {
    const Imath::Box2i dw = file.header().dataWindow();
    const int64_t w = int64_t(dw.max.x) - dw.min.x + 1;
    // OpenEXR addresses a slice by pixel coordinates: the base is where pixel (0, 0) would be.
    char* base = exr_slice_base(pixels, dw, uint64_t(w), sizeof(Vec3));
    const size_t xs = sizeof(Vec3), ys = sizeof(Vec3) * static_cast<size_t>(w);
    Imf::FrameBuffer fb;
    fb.insert("R", Imf::Slice(Imf::FLOAT, base + 0, xs, ys));
    fb.insert("G", Imf::Slice(Imf::FLOAT, base + 4, xs, ys));
    fb.insert("B", Imf::Slice(Imf::FLOAT, base + 8, xs, ys));
    file.setFrameBuffer(fb);
    file.readPixels(dw.min.y, dw.max.y);
}

Image read_exr(const std::string& path) {
    try {
        ExrInput exr(path);
        Imf::InputFile& file = exr.file();
        Imath::Box2i dw = file.header().dataWindow();
        Image img;
        img.width = dw.max.x - dw.min.x + 1;
        img.height = dw.max.y - dw.min.y + 1;
        img.pixels.resize(static_cast<size_t>(img.width) * img.height);
        read_exr_rgb(file, img.pixels.data());
        return img;
    } catch (const std::exception& e) {
        throw Error(path + ": cannot read EXR: " + e.what());
    }
}

ExrAttributes read_exr_attributes(ExrInput& exr) {
    try {
        Imf::InputFile& file = exr.file();
        ExrAttributes out;
        for (auto a = file.header().begin(); a != file.header().end(); ++a)
            if (const auto* text = dynamic_cast<const Imf::StringAttribute*>(&a.attribute()))
                out.emplace_back(a.name(), text->value());
        return out;
    } catch (const std::exception& e) {
        throw Error(exr.path() + ": cannot read EXR: " + quote_input(e.what()));
    }
}

ExrAttributes read_exr_attributes(const std::string& path) {
    return read_exr_file(path, [](ExrInput& exr) { return read_exr_attributes(exr); });
}

void check_reference_path(const std::string& path, const std::string& flag) {
    if (lower_ext(path) != ".exr") throw Error(flag + " " + path + ": must be a linear OpenEXR file (.exr)");
}

Image read_reference_exr(const std::string& path, int width, int height) {
    check_reference_path(path);
    return read_reference_exr(read_input_file(path, "no such file"), width, height);
}

Image read_reference_exr(const InputFile& in, int width, int height) {
    const std::string& path = in.path;
    // The reference is read as an EXR texture is: through read_input_file, its header walked before
    // OpenEXR sees it, and R, G and B required (a Y-only file would be compared with black).
    FloatImage exr;
    decode_openexr(
        in,
        [&](uint64_t w, uint64_t h) {
            if (w != static_cast<uint64_t>(width) || h != static_cast<uint64_t>(height))
                throw Error(path + ": the reference is " + std::to_string(w) + "x" + std::to_string(h) +
                            ", the render " + std::to_string(width) + "x" + std::to_string(height));
        },
        exr);
    if (exr.luminance_only)  // compared with R, G and B, a grey file would measure colour as error
        throw Error(path + ": the reference has a Y channel alone; it needs R, G and B");
    Image img;
    img.width = width;
    img.height = height;
    img.pixels = std::move(exr.texels);
    size_t bad = 0;
    for (const Vec3& p : img.pixels) bad += all_finite(p) ? 0 : 1;
    if (bad) throw Error(path + ": the reference has " + std::to_string(bad) + " pixels that are NaN or infinite");
    return img;
}

double relative_mse(const Image& image, const Image& reference) {
    if (image.width != reference.width || image.height != reference.height)
        throw Error("internal: relMSE of images of different sizes");
    double sum = 0.0;
    for (size_t i = 0; i < image.pixels.size(); ++i) {
        for (int c = 0; c < 3; ++c) {
            double x = image.pixels[i][c], r = reference.pixels[i][c];
            sum += (x - r) * (x - r) / (r * r + 0.01);
        }
    }
    return image.pixels.empty() ? 0.0 : sum / (3.0 * static_cast<double>(image.pixels.size()));
}

void check_output_path(const std::string& path, const std::vector<std::string>& extensions, const std::string& flag) {
    std::string ext = lower_ext(path);
    if (std::find(extensions.begin(), extensions.end(), ext) == extensions.end()) {
        std::string list;
        for (const auto& e : extensions) list += (list.empty() ? "" : ", ") + e;
        throw Error(flag + " " + path + ": unsupported file type '" + ext + "' (use " + list + ")");
    }
    std::filesystem::path dir = std::filesystem::path(output_target(path)).parent_path();
    if (dir.empty()) dir = ".";
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec))
        throw Error(flag + " " + path + ": directory " + dir.string() + " does not exist");
    if (::access(dir.c_str(), W_OK) != 0)
        throw Error(flag + " " + path + ": directory " + dir.string() + " is not writable");
    check_output_kind(flag + " " + path, path);
}

}  // namespace pkrt
