// The U-Net's weight file (render/denoise/unet_weights.h) and its fp16 conversion (half.h).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>

#include "render/denoise/half.h"
#include "render/denoise/unet_weights.h"
#include "render/error.h"
#include "tests/test_util.h"

using namespace pkrt;

namespace {

uint32_t bits_of(float f) {
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
}

// binary16's definition: (-1)^s 2^(e-15) (1 + m/1024), subnormals 2^-14 (m/1024).
double half_reference(uint16_t h) {
    const int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
    const double v = e == 0 ? std::ldexp(double(m), -24) : std::ldexp(1024.0 + m, e - 25);
    return s ? -v : v;
}

TEST(Half, EveryFiniteHalfConvertsExactlyAndBack) {
    for (uint32_t h = 0; h < 65536; ++h) {
        const float f = half_to_float(uint16_t(h));
        const int e = (h >> 10) & 31;
        if (e == 31) {
            EXPECT_TRUE((h & 1023) ? std::isnan(f) : std::isinf(f)) << h;
            if (h & 1023) EXPECT_TRUE(std::isnan(half_to_float(float_to_half(f)))) << h;
            else EXPECT_EQ(float_to_half(f), h);
            continue;
        }
        ASSERT_EQ(double(f), half_reference(uint16_t(h))) << h;
        ASSERT_EQ(std::signbit(f), bool(h & 0x8000)) << h;
        ASSERT_EQ(float_to_half(f), h) << h;
    }
}

TEST(Half, FloatsRoundToTheNearestHalfTiesToEven) {
    for (uint16_t h = 0; h < 0x7bff; ++h) {  // every pair of neighbouring positive finite halves
        const float a = half_to_float(h), b = half_to_float(uint16_t(h + 1));
        const float mid = (a + b) / 2;  // exact: halves have 11 significant bits
        const uint16_t even = (h & 1) ? uint16_t(h + 1) : h;
        ASSERT_EQ(float_to_half(mid), even) << h;
        ASSERT_EQ(float_to_half(-mid), uint16_t(even | 0x8000)) << h;
        ASSERT_EQ(float_to_half(std::nextafter(mid, 0.0f)), h) << h;
        ASSERT_EQ(float_to_half(std::nextafter(mid, 1e9f)), h + 1) << h;
    }
    EXPECT_EQ(float_to_half(65519.99f), 0x7bff);
    EXPECT_EQ(float_to_half(65520.0f), 0x7c00);  // the tie above 65504 rounds to even: Inf
    EXPECT_EQ(float_to_half(1e10f), 0x7c00);
    EXPECT_EQ(float_to_half(std::ldexp(1.0f, -25)), 0);  // half the smallest subnormal: the tie to 0
    EXPECT_EQ(float_to_half(std::nextafter(std::ldexp(1.0f, -25), 1.0f)), 1);
    EXPECT_EQ(float_to_half(1e-30f), 0);
    EXPECT_EQ(bits_of(half_to_float(float_to_half(-0.0f))), 0x80000000u);
}

UnetWeights random_net(uint32_t seed, const std::array<int, kUnetLayers>& widths,
                       uint32_t inputs = kUnetColor | kUnetAlbedo | kUnetNormal) {
    UnetWeights w = unet_with_widths(inputs, widths);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    for (ConvLayer& l : w.layers) {
        for (float& x : l.weights) x = u(rng);
        for (float& x : l.bias) x = u(rng);
    }
    w.transfer.scale = 0.7f;
    w.transfer.max_input = 1000.0f;
    return w;
}

const std::array<int, kUnetLayers> kSmall = {4, 5, 6, 7, 8, 9, 10, 11, 8, 7, 6, 5, 6, 5, 4, 3};

TEST(UnetWeights, DefaultWidthsAreOidnsMillionParameters) {
    const UnetWeights w = unet_with_widths(kUnetColor | kUnetAlbedo | kUnetNormal, unet_default_widths());
    validate_unet(w, "default");
    EXPECT_EQ(w.layers[7].in, 96 + 64);
    EXPECT_EQ(w.layers[13].in, 64 + 9);
    EXPECT_EQ(w.parameter_count(), 918720u + 1091u);
    EXPECT_EQ(unet_with_widths(kUnetColor, unet_default_widths()).layers[0].in, 3);
}

TEST(UnetWeights, RoundTripsThroughAFile) {
    pkrt_test::TempDir dir;
    for (uint32_t inputs : {1u, 3u, 5u, 7u}) {
        UnetWeights w = random_net(inputs, kSmall, inputs);
        w.transfer.exposure = inputs == 3 ? UnetExposure::kNone : UnetExposure::kAuto;
        w.transfer.output = inputs == 5 ? UnetOutput::kResidual : UnetOutput::kCurve;
        const std::string path = dir.file("w.unet");
        write_unet_weights(path, w);
        const UnetWeights r = read_unet_weights(path);
        EXPECT_EQ(r.inputs, inputs);
        EXPECT_EQ(r.transfer.exposure, w.transfer.exposure);
        EXPECT_EQ(r.transfer.output, w.transfer.output);
        EXPECT_EQ(r.transfer.scale, 0.7f);
        EXPECT_EQ(r.transfer.max_input, 1000.0f);
        ASSERT_EQ(r.layers.size(), size_t(kUnetLayers));
        for (int i = 0; i < kUnetLayers; ++i) {
            EXPECT_EQ(r.layers[i].in, w.layers[i].in);
            EXPECT_EQ(r.layers[i].out, w.layers[i].out);
            ASSERT_EQ(r.layers[i].weights.size(), w.layers[i].weights.size());
            for (size_t k = 0; k < w.layers[i].weights.size(); ++k)
                ASSERT_EQ(r.layers[i].weights[k], half_to_float(float_to_half(w.layers[i].weights[k])));
            for (size_t k = 0; k < w.layers[i].bias.size(); ++k)
                ASSERT_EQ(r.layers[i].bias[k], half_to_float(float_to_half(w.layers[i].bias[k])));
        }
        EXPECT_EQ(encode_unet_weights(r), pkrt_test::read_text(path));
    }
}

void put_u32(std::string& bytes, size_t offset, uint32_t v) {
    for (int i = 0; i < 4; ++i) bytes[offset + i] = char((v >> (8 * i)) & 0xff);
}

// decode_unet_weights refuses `bytes` with an Error naming the file and containing `problem`.
void expect_refused(const std::string& bytes, const std::string& problem) {
    try {
        decode_unet_weights(bytes, "bad.unet");
        ADD_FAILURE() << "accepted a file that should fail with: " << problem;
    } catch (const Error& e) {
        const std::string m = e.what();
        EXPECT_EQ(m.rfind("bad.unet: ", 0), 0u) << m;
        EXPECT_NE(m.find(problem), std::string::npos) << m << "\n  expected: " << problem;
    }
}

constexpr size_t kShapes = 40;                        // the first layer's shape's offset
constexpr size_t kData = kShapes + 16 * kUnetLayers;  // the first weight's offset

TEST(UnetWeights, RefusesEveryKindOfMalformedFile) {
    const std::string good = encode_unet_weights(random_net(1, kSmall));
    EXPECT_NO_THROW(decode_unet_weights(good, "good.unet"));
    auto with = [&](size_t offset, uint32_t v) {
        std::string b = good;
        put_u32(b, offset, v);
        return b;
    };
    std::string b = good;
    b[0] = 'X';
    expect_refused(b, "no PKRTUNET magic");
    expect_refused("GIF89a", "no PKRTUNET magic");
    expect_refused("PKRT", "truncated: the magic needs 8 bytes at offset 0, the file has 4 left");
    expect_refused("", "truncated: the magic");
    expect_refused(with(8, 3), "version 3 (this pkrt reads versions 1 and 2)");
    expect_refused(with(8, 0), "version 0");
    for (size_t n : {size_t(10), size_t(30), size_t(40), kData + 1, good.size() - 1})
        expect_refused(good.substr(0, n), "truncated");
    expect_refused(good + "x", "1 bytes after the last layer's biases");
    expect_refused(with(12, 6), "input channel set 6");
    expect_refused(with(12, 9), "input channel set 9");
    expect_refused(with(16, 2), "unknown exposure mode 2");
    expect_refused(with(20, 0), "unknown transfer curve 0");
    expect_refused(with(24, 0), "scale and max_input must be finite and positive");
    expect_refused(with(28, 0x7fc00000u), "scale and max_input must be finite and positive");
    expect_refused(with(32, 2), "unknown output 2 (0 the curve's value, 1 residual)");
    expect_refused(with(36, 15), "15 layers");
    expect_refused(with(kShapes + 16 * 4 + 8, 5), "layer 4 (enc_conv4) has a 5x3 kernel");
    expect_refused(with(kShapes + 16 * 3 + 4, 8), "layer 4 (enc_conv4) takes 7 channels, the architecture gives it 8");
    expect_refused(with(kShapes + 16 * 13, 9), "layer 13 (dec_conv1a) takes 9 channels, the architecture gives it 15");
    expect_refused(with(kShapes, 0), "layer 0 (enc_conv0) is 0 -> 4 channels");
    expect_refused(with(kShapes + 4, 513), "is 9 -> 513 channels (1 to 512 each)");
    expect_refused(with(kShapes + 16 * 15 + 4, 4), "gives 4 channels, not 3");
    std::string big = good;
    for (int i = 0; i < kUnetLayers; ++i) put_u32(big, kShapes + 16 * i, 500), put_u32(big, kShapes + 16 * i + 4, 500);
    expect_refused(big, "parameters (at most 4194304)");
    for (uint16_t bad : {uint16_t(0x7e00), uint16_t(0x7c00), uint16_t(0xfc00)}) {
        std::string n = good;
        n[kData + 20] = char(bad & 0xff), n[kData + 21] = char(bad >> 8);
        expect_refused(n, "layer 0 (enc_conv0) has a NaN or infinite weight");
        n = good;
        n[good.size() - 2] = char(bad & 0xff), n[good.size() - 1] = char(bad >> 8);
        expect_refused(n, "layer 15 (dec_conv0) has a NaN or infinite weight");
    }
}

// Version 1 files (written before the output field, as tests/denoise/golden/golden.pkrtunet) are read as
// giving the curve's value: version 2's bytes without the field are version 1's.
TEST(UnetWeights, ReadsVersionOneFilesAsCurveOutput) {
    UnetWeights w = random_net(4, kSmall);
    w.transfer.output = UnetOutput::kResidual;
    std::string v1 = encode_unet_weights(w);
    v1.erase(32, 4);
    put_u32(v1, 8, 1);
    const UnetWeights r = decode_unet_weights(v1, "v1.unet");
    EXPECT_EQ(r.transfer.output, UnetOutput::kCurve);
    EXPECT_EQ(r.transfer.scale, 0.7f);
    EXPECT_EQ(r.layers.back().bias, decode_unet_weights(encode_unet_weights(w), "v2.unet").layers.back().bias);
    EXPECT_EQ(read_unet_weights(std::string(PKRT_SOURCE_DIR) + "/tests/denoise/golden/golden.pkrtunet").transfer.output,
              UnetOutput::kCurve);
}

TEST(UnetWeights, RefusesMissingAndOversizedFiles) {
    pkrt_test::TempDir dir;
    const std::string path = dir.file("huge.unet");
    EXPECT_THROW(read_unet_weights(path), Error);
    write_unet_weights(path, random_net(2, kSmall));
    std::filesystem::resize_file(path, 64u << 20);  // sparse: no disk used, and never read
    try {
        read_unet_weights(path);
        ADD_FAILURE() << "read a 64 MiB weight file";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(path + ": 67108864 bytes, more than"), std::string::npos) << e.what();
    }
}

TEST(UnetWeights, WriterRefusesAnInconsistentNetwork) {
    pkrt_test::TempDir dir;
    UnetWeights w = random_net(3, kSmall);
    w.layers[5].weights.pop_back();
    EXPECT_THROW(write_unet_weights(dir.file("w.unet"), w), Error);
    w = random_net(3, kSmall);
    w.layers[2].bias[1] = std::nanf("");
    EXPECT_THROW(write_unet_weights(dir.file("w.unet"), w), Error);
    EXPECT_TRUE(dir.entries().empty());
}

// tools/denoiser/weights_file.py (what the PyTorch exporter calls) writes what this reader reads: the
// same layer order, shapes, fp16 and header, byte for byte what the C++ writer makes of the same network.
TEST(UnetWeights, PythonWriterMatchesTheReader) {
    if (std::system("python3 -c '' >/dev/null 2>&1") != 0) GTEST_SKIP() << "no python3";
    pkrt_test::TempDir dir;
    const std::string script = std::string(PKRT_SOURCE_DIR) + "/tools/denoiser/weights_file.py";
    const auto run = pkrt_test::run_in("python3 " + pkrt_test::shell_quote(script) + " --fixture fixture.pkrtunet",
                                       dir.path().string());
    ASSERT_EQ(run.code, 0) << run.err;
    const UnetWeights r = read_unet_weights(dir.file("fixture.pkrtunet"));
    UnetWeights want = unet_with_widths(kUnetColor | kUnetAlbedo | kUnetNormal, kSmall);
    want.transfer.scale = 0.25f;
    for (int i = 0; i < kUnetLayers; ++i) {
        ConvLayer& l = want.layers[i];
        for (size_t k = 0; k < l.weights.size(); ++k) l.weights[k] = float((i * 31 + int(k) * 7) % 17 - 8) / 16.0f;
        for (size_t k = 0; k < l.bias.size(); ++k) l.bias[k] = float((i + int(k) * 3) % 9 - 4) / 8.0f;
        ASSERT_EQ(r.layers[i].weights, l.weights) << kUnetLayerNames[i];
        ASSERT_EQ(r.layers[i].bias, l.bias) << kUnetLayerNames[i];
    }
    EXPECT_EQ(encode_unet_weights(want), pkrt_test::read_text(dir.file("fixture.pkrtunet")));
}

}  // namespace
