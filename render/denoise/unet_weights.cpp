// Reading and writing the U-Net's weight file (unet_weights.h has the layout). The reader trusts nothing:
// every size is checked against the architecture and the limits before anything is allocated.
#include "render/denoise/unet_weights.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>

#include "render/denoise/half.h"
#include "render/error.h"
#include "render/scene/input_file.h"

namespace pkrt {

namespace {

constexpr size_t kHeaderBytes = 36;
constexpr size_t kLayerBytes = 16;
constexpr uint64_t kMaxFileBytes = kHeaderBytes + kLayerBytes * kUnetLayers + 2 * kUnetMaxParameters;

int channel_count(uint32_t inputs) {
    if (!(inputs & kUnetColor) || (inputs & ~uint32_t(kUnetColor | kUnetAlbedo | kUnetNormal))) return -1;
    return 3 + ((inputs & kUnetAlbedo) ? 3 : 0) + ((inputs & kUnetNormal) ? 3 : 0);
}

// The layer whose output joins the upsampled tensor before layer `index` (-2: the network's input; -1: none).
int skip_of(int index) {
    switch (index) {
        case 7: return 3;
        case 9: return 2;
        case 11: return 1;
        case 13: return -2;
        default: return -1;
    }
}

void put_u32(std::string& out, uint32_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xffu));
}
void put_f32(std::string& out, float f) {
    uint32_t v;
    std::memcpy(&v, &f, 4);
    put_u32(out, v);
}

class Reader {
public:
    Reader(const std::string& bytes, const std::string& source) : bytes_(bytes), source_(source) {}
    uint32_t u32(const char* what) {
        need(4, what);
        uint32_t v = 0;
        for (int i = 0; i < 4; ++i) v |= uint32_t(static_cast<unsigned char>(bytes_[pos_ + i])) << (8 * i);
        pos_ += 4;
        return v;
    }
    float f32(const char* what) {
        uint32_t v = u32(what);
        float f;
        std::memcpy(&f, &v, 4);
        return f;
    }
    uint16_t u16() {
        uint16_t v = static_cast<uint16_t>(static_cast<unsigned char>(bytes_[pos_]) |
                                           (static_cast<unsigned char>(bytes_[pos_ + 1]) << 8));
        pos_ += 2;
        return v;
    }
    void need(size_t n, const std::string& what) const {
        if (bytes_.size() - pos_ < n)
            fail("truncated: " + what + " needs " + std::to_string(n) + " bytes at offset " + std::to_string(pos_) +
                 ", the file has " + std::to_string(bytes_.size() - pos_) + " left");
    }
    void skip(size_t n) { pos_ += n; }
    size_t left() const { return bytes_.size() - pos_; }
    size_t pos() const { return pos_; }
    [[noreturn]] void fail(const std::string& problem) const { throw Error(source_ + ": " + problem); }

private:
    const std::string& bytes_;
    const std::string& source_;
    size_t pos_ = 0;
};

void read_header(Reader& r, const std::string& bytes, UnetWeights& w) {
    // A short file that is not one says so, not that it is truncated.
    if (std::memcmp(bytes.data(), kUnetMagic, std::min<size_t>(8, bytes.size())) != 0)
        r.fail("not a pkrt U-Net weight file (no PKRTUNET magic)");
    r.need(8, "the magic");
    r.skip(8);
    const uint32_t version = r.u32("the version");
    if (version != 1 && version != 2)
        r.fail("version " + std::to_string(version) + " (this pkrt reads versions 1 and 2)");
    w.inputs = r.u32("the input channels");
    if (channel_count(w.inputs) < 0)
        r.fail("input channel set " + std::to_string(w.inputs) + " is not colour [+ albedo] [+ normal]");
    const uint32_t exposure = r.u32("the exposure"), curve = r.u32("the transfer curve");
    if (exposure > 1) r.fail("unknown exposure mode " + std::to_string(exposure));
    if (curve != 1) r.fail("unknown transfer curve " + std::to_string(curve));
    w.transfer.exposure = static_cast<UnetExposure>(exposure);
    w.transfer.curve = static_cast<UnetCurve>(curve);
    w.transfer.scale = r.f32("the curve's scale");
    w.transfer.max_input = r.f32("the curve's max_input");
    const uint32_t output = version >= 2 ? r.u32("the output") : 0;
    if (output > 1) r.fail("unknown output " + std::to_string(output) + " (0 the curve's value, 1 residual)");
    w.transfer.output = static_cast<UnetOutput>(output);
    const uint32_t count = r.u32("the layer count");
    if (count != kUnetLayers)
        r.fail(std::to_string(count) + " layers (the U-Net has " + std::to_string(kUnetLayers) + ")");
}

}  // namespace

static std::string shape_problem(const UnetWeights& w, int i) {
    return std::string("layer ") + std::to_string(i) + " (" + kUnetLayerNames[i] + ") takes " +
           std::to_string(w.layers[i].in) + " channels, the architecture gives it " +
           std::to_string(unet_expected_in(w, i));
}

int UnetWeights::input_channels() const { return channel_count(inputs); }

size_t UnetWeights::parameter_count() const {
    size_t n = 0;
    for (const ConvLayer& l : layers) n += l.weights.size() + l.bias.size();
    return n;
}

int unet_expected_in(const UnetWeights& w, int index) {
    const int input = w.input_channels();
    if (index == 0 || input < 0) return input;
    const int prev = w.layers[index - 1].out, skip = skip_of(index);
    if (skip == -1) return prev;
    return prev + (skip == -2 ? input : w.layers[skip].out);
}

void validate_unet(const UnetWeights& w, const std::string& source) {
    auto fail = [&](const std::string& problem) { throw Error(source + ": " + problem); };
    if (w.input_channels() < 0) fail("input channel set is not colour [+ albedo] [+ normal]");
    const UnetTransfer& t = w.transfer;
    if (!(std::isfinite(t.scale) && t.scale > 0) || !(std::isfinite(t.max_input) && t.max_input > 0))
        fail("the transfer curve's scale and max_input must be finite and positive");
    if (w.layers.size() != kUnetLayers)
        fail(std::to_string(w.layers.size()) + " layers (the U-Net has " + std::to_string(kUnetLayers) + ")");
    uint64_t parameters = 0;
    for (int i = 0; i < kUnetLayers; ++i) {
        const ConvLayer& l = w.layers[i];
        const std::string name = std::string("layer ") + std::to_string(i) + " (" + kUnetLayerNames[i] + ")";
        if (l.out < 1 || l.out > int(kUnetMaxChannels) || l.in < 1 || l.in > int(kUnetMaxChannels))
            fail(name + " is " + std::to_string(l.in) + " -> " + std::to_string(l.out) + " channels (1 to " +
                 std::to_string(kUnetMaxChannels) + " each)");
        if (l.in != unet_expected_in(w, i)) fail(shape_problem(w, i));
        if (i == kUnetLayers - 1 && l.out != 3)
            fail(name + " gives " + std::to_string(l.out) + " channels, not 3 (RGB)");
        if (l.weights.size() != size_t(l.out) * l.in * 9 || l.bias.size() != size_t(l.out))
            fail(name + "'s weights or biases are not of its shape");
        parameters += l.weights.size() + l.bias.size();
        for (const std::vector<float>* v : {&l.weights, &l.bias})
            for (float x : *v)
                if (!std::isfinite(x)) fail(name + " has a NaN or infinite weight");
    }
    if (parameters > kUnetMaxParameters)
        fail(std::to_string(parameters) + " parameters (at most " + std::to_string(kUnetMaxParameters) + ")");
}

std::string encode_unet_weights(const UnetWeights& w) {
    std::string out(kUnetMagic, 8);
    put_u32(out, kUnetVersion);
    put_u32(out, w.inputs);
    put_u32(out, static_cast<uint32_t>(w.transfer.exposure));
    put_u32(out, static_cast<uint32_t>(w.transfer.curve));
    put_f32(out, w.transfer.scale);
    put_f32(out, w.transfer.max_input);
    put_u32(out, static_cast<uint32_t>(w.transfer.output));
    put_u32(out, static_cast<uint32_t>(w.layers.size()));
    for (const ConvLayer& l : w.layers) {
        put_u32(out, uint32_t(l.in));
        put_u32(out, uint32_t(l.out));
        put_u32(out, 3);
        put_u32(out, 3);
    }
    for (const ConvLayer& l : w.layers)
        for (const std::vector<float>* v : {&l.weights, &l.bias})
            for (float x : *v) {
                const uint16_t h = float_to_half(x);
                out.push_back(static_cast<char>(h & 0xffu));
                out.push_back(static_cast<char>(h >> 8));
            }
    return out;
}

UnetWeights decode_unet_weights(const std::string& bytes, const std::string& source) {
    Reader r(bytes, source);
    UnetWeights w;
    read_header(r, bytes, w);
    w.layers.resize(kUnetLayers);
    uint64_t parameters = 0;
    for (int i = 0; i < kUnetLayers; ++i) {
        ConvLayer& l = w.layers[i];
        const uint32_t in = r.u32("a layer's shape"), out = r.u32("a layer's shape");
        const uint32_t kh = r.u32("a layer's shape"), kw = r.u32("a layer's shape");
        const std::string name = std::string("layer ") + std::to_string(i) + " (" + kUnetLayerNames[i] + ")";
        if (kh != 3 || kw != 3)
            r.fail(name + " has a " + std::to_string(kh) + "x" + std::to_string(kw) + " kernel (the U-Net's are 3x3)");
        if (in < 1 || in > kUnetMaxChannels || out < 1 || out > kUnetMaxChannels)
            r.fail(name + " is " + std::to_string(in) + " -> " + std::to_string(out) + " channels (1 to " +
                   std::to_string(kUnetMaxChannels) + " each)");
        l.in = int(in);
        l.out = int(out);
        parameters += uint64_t(in) * out * 9 + out;
    }
    if (parameters > kUnetMaxParameters)
        r.fail(std::to_string(parameters) + " parameters (at most " + std::to_string(kUnetMaxParameters) + ")");
    // Shapes before data: a file whose widths do not fit the architecture says so, not "truncated".
    for (int i = 0; i < kUnetLayers; ++i)
        if (w.layers[i].in != unet_expected_in(w, i)) r.fail(shape_problem(w, i));
    if (w.layers.back().out != 3)
        r.fail(std::string("layer 15 (") + kUnetLayerNames.back() + ") gives " + std::to_string(w.layers.back().out) +
               " channels, not 3 (RGB)");
    if (r.left() != 2 * parameters)
        r.fail(r.left() < 2 * parameters
                   ? "truncated: the layers' shapes need " + std::to_string(2 * parameters) +
                         " bytes of fp16 weights, the file has " + std::to_string(r.left())
                   : std::to_string(r.left() - 2 * parameters) + " bytes after the last layer's biases");
    for (ConvLayer& l : w.layers) {
        l.weights.resize(size_t(l.out) * l.in * 9);
        l.bias.resize(size_t(l.out));
        for (std::vector<float>* v : {&l.weights, &l.bias})
            for (float& x : *v) x = half_to_float(r.u16());
    }
    validate_unet(w, source);
    return w;
}

UnetWeights read_unet_weights(const std::string& path) {
    // Through read_input_file: a FIFO, a device or a directory is refused, never read from.
    InputFile in;
    try {
        in = read_input_file(path, "no such file", kMaxFileBytes);
    } catch (const InputTooLarge& e) {
        throw Error(path + ": " + std::to_string(e.size) + " bytes, more than a U-Net weight file may have (" +
                    std::to_string(kMaxFileBytes) + ")");
    } catch (const Error& e) {
        throw Error(std::string(e.what()) + " (the U-Net weights)");
    }
    return decode_unet_weights(in.bytes, path);
}

void write_unet_weights(const std::string& path, const UnetWeights& w) {
    validate_unet(w, path);
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    const std::string bytes = encode_unet_weights(w);
    out.write(bytes.data(), std::streamsize(bytes.size()));
    if (!out) throw Error(path + ": cannot write the U-Net weights");
}

std::array<int, kUnetLayers> unet_default_widths() {
    return {32, 32, 48, 64, 80, 96, 96, 112, 112, 96, 96, 64, 64, 64, 32, 3};
}

UnetWeights unet_with_widths(uint32_t inputs, const std::array<int, kUnetLayers>& out_widths) {
    UnetWeights w;
    w.inputs = inputs;
    w.layers.resize(kUnetLayers);
    for (int i = 0; i < kUnetLayers; ++i) {
        ConvLayer& l = w.layers[i];
        l.out = out_widths[i];
        l.in = unet_expected_in(w, i);
        l.weights.assign(size_t(std::max(l.in, 0)) * l.out * 9, 0.0f);
        l.bias.assign(size_t(l.out), 0.0f);
    }
    return w;
}

}  // namespace pkrt
