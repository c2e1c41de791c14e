// The U-Net's layers and whole network (render/denoise/unet.h) against direct, slow references written
// here apart from the production code; tiles against the whole image; a hand-built identity network.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "render/denoise/denoiser.h"
#include "render/denoise/unet.h"
#include "render/error.h"
#include "render/image/look.h"
#include "tests/denoise/unet_test_nets.h"

using namespace pkrt;
using namespace pkrt_test;

namespace {

// ---- the reference: doubles, [c][y][x] vectors, every sum written out ----
struct Ref {
    int c, h, w;
    std::vector<double> v;
    double get(int ch, int y, int x) const {
        return y < 0 || y >= h || x < 0 || x >= w ? 0.0 : v[(size_t(ch) * h + y) * w + x];
    }
};

Ref ref_conv(const Ref& in, const ConvLayer& l, bool relu) {
    Ref out{l.out, in.h, in.w, std::vector<double>(size_t(l.out) * in.h * in.w)};
    for (int o = 0; o < l.out; ++o)
        for (int y = 0; y < in.h; ++y)
            for (int x = 0; x < in.w; ++x) {
                double s = l.bias[o];
                for (int i = 0; i < l.in; ++i)
                    for (int dy = -1; dy <= 1; ++dy)
                        for (int dx = -1; dx <= 1; ++dx)
                            s += l.weight(o, i, dy + 1, dx + 1) * in.get(i, y + dy, x + dx);
                out.v[(size_t(o) * in.h + y) * in.w + x] = relu && s < 0 ? 0.0 : s;
            }
    return out;
}
Ref ref_pool(const Ref& in) {
    Ref out{in.c, in.h / 2, in.w / 2, {}};
    for (int ch = 0; ch < in.c; ++ch)
        for (int y = 0; y < out.h; ++y)
            for (int x = 0; x < out.w; ++x) {
                double m = -INFINITY;
                for (int k = 0; k < 4; ++k) m = std::max(m, in.get(ch, 2 * y + k / 2, 2 * x + k % 2));
                out.v.push_back(m);
            }
    return out;
}
Ref ref_up(const Ref& in) {
    Ref out{in.c, in.h * 2, in.w * 2, {}};
    for (int ch = 0; ch < in.c; ++ch)
        for (int y = 0; y < out.h; ++y)
            for (int x = 0; x < out.w; ++x) out.v.push_back(in.get(ch, y / 2, x / 2));
    return out;
}
Ref ref_cat(Ref a, const Ref& b) {
    a.c += b.c;
    a.v.insert(a.v.end(), b.v.begin(), b.v.end());
    return a;
}
Ref ref_unet(const UnetWeights& w, const Ref& input) {
    auto conv = [&](const Ref& x, int i) { return ref_conv(x, w.layers[i], i != 15); };
    const Ref e1 = conv(conv(input, 0), 1), s1 = ref_pool(e1), s2 = ref_pool(conv(s1, 2)), s3 = ref_pool(conv(s2, 3));
    Ref x = conv(conv(ref_pool(conv(s3, 4)), 5), 6);
    x = conv(conv(ref_cat(ref_up(x), s3), 7), 8);
    x = conv(conv(ref_cat(ref_up(x), s2), 9), 10);
    x = conv(conv(ref_cat(ref_up(x), s1), 11), 12);
    x = conv(conv(ref_cat(ref_up(x), input), 13), 14);
    return conv(x, 15);
}

Ref ref_of(const Tensor& t) { return Ref{t.c, t.h, t.w, std::vector<double>(t.data.begin(), t.data.end())}; }

void expect_near(const Tensor& got, const Ref& want, double tolerance) {
    ASSERT_EQ(got.c, want.c);
    ASSERT_EQ(got.h, want.h);
    ASSERT_EQ(got.w, want.w);
    for (size_t i = 0; i < want.v.size(); ++i)
        ASSERT_NEAR(got.data[i], want.v[i], tolerance * (1 + std::abs(want.v[i]))) << "element " << i;
}

Tensor random_tensor(std::mt19937& rng, int c, int h, int w) {
    Tensor t(c, h, w);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    for (float& x : t.data) x = u(rng);
    return t;
}

TEST(UnetLayers, ConvolutionMatchesTheDirectSum) {
    std::mt19937 rng(7);
    for (int width : {1, 5, 32, 37, 70})
        for (int out : {1, 4, 6}) {
            const Tensor in = random_tensor(rng, 5, 7, width);
            const ConvLayer l = random_layer(rng, 5, out);
            for (bool relu : {false, true})
                for (unsigned threads : {1u, 2u})
                    expect_near(conv3x3(in, pack_conv(l), relu, threads), ref_conv(ref_of(in), l, relu), 1e-5);
        }
}

TEST(UnetLayers, PoolUpsampleConcatMatchTheirDefinitions) {
    std::mt19937 rng(8);
    const Tensor a = random_tensor(rng, 3, 6, 8), b = random_tensor(rng, 2, 6, 8);
    expect_near(max_pool2(a), ref_pool(ref_of(a)), 0);
    expect_near(upsample2(a), ref_up(ref_of(a)), 0);
    expect_near(concat(a, b), ref_cat(ref_of(a), ref_of(b)), 0);
    EXPECT_EQ(max_pool2(a).at(2, 1, 3), std::max({a.at(2, 2, 6), a.at(2, 2, 7), a.at(2, 3, 6), a.at(2, 3, 7)}));
}

TEST(UnetLayers, TransferCurveAndItsInverse) {
    UnetTransfer t;
    t.scale = 0.25f;
    t.max_input = 500.0f;
    for (double x : {0.0, 1e-6, 0.01, 0.18, 1.0, 7.5, 100.0, 499.0}) {
        EXPECT_NEAR(transfer_forward(float(x), t), 0.25 * std::log(1.0 + x), 1e-6 * (1 + x));
        EXPECT_NEAR(transfer_inverse(transfer_forward(float(x), t), t), x, 1e-5 * (1 + x));
    }
    EXPECT_EQ(transfer_forward(-3.0f, t), 0.0f);
    EXPECT_EQ(transfer_forward(std::nanf(""), t), 0.0f);
    EXPECT_EQ(transfer_forward(INFINITY, t), 0.0f);
    EXPECT_NEAR(transfer_forward(1e6f, t), 0.25 * std::log(501.0), 1e-5);
    EXPECT_EQ(transfer_inverse(-1.0f, t), 0.0f);
    EXPECT_EQ(transfer_inverse(std::nanf(""), t), 0.0f);
    EXPECT_EQ(transfer_inverse(1e30f, t), 500.0f);
}

// The whole image through the reference: exposure, curve, padding to 16, network, inverse curve.
Image ref_denoise(const UnetWeights& w, const UnetScene& s) {
    const int pw = (s.color.width + 15) / 16 * 16, ph = (s.color.height + 15) / 16 * 16;
    const double e = std::exp2(double(auto_exposure_stops(s.color)));
    Ref in{9, ph, pw, std::vector<double>(size_t(9) * ph * pw, 0.0)};
    for (int y = 0; y < s.color.height; ++y)
        for (int x = 0; x < s.color.width; ++x)
            for (int k = 0; k < 3; ++k) {
                const double c = std::min(double(s.color.at(x, y)[k]) * e, double(w.transfer.max_input));
                in.v[(size_t(k) * ph + y) * pw + x] = w.transfer.scale * std::log(1.0 + c);
                in.v[(size_t(3 + k) * ph + y) * pw + x] = std::min(double(s.features.albedo.at(x, y)[k]), 1.0);
                in.v[(size_t(6 + k) * ph + y) * pw + x] = std::clamp(double(s.features.normal.at(x, y)[k]), -1.0, 1.0);
            }
    const Ref out = ref_unet(w, in);
    Image img = s.color;
    for (int y = 0; y < s.color.height; ++y)
        for (int x = 0; x < s.color.width; ++x) {
            double rgb[3];
            for (int k = 0; k < 3; ++k) {
                const double v = std::exp(out.get(k, y, x) / w.transfer.scale) - 1.0;
                rgb[k] = std::min(std::max(v, 0.0), double(w.transfer.max_input)) / e;
            }
            img.at(x, y) = Vec3{float(rgb[0]), float(rgb[1]), float(rgb[2])};
        }
    return img;
}

TEST(Unet, WholeNetworkMatchesTheReference) {
    for (auto [width, height] : {std::pair{48, 40}, std::pair{33, 17}}) {
        const UnetWeights w = random_net(11 + width);
        const UnetScene s = random_scene(5 + width, width, height);
        const Image got = UnetNetwork(w).denoise(s.color, s.features, 2), want = ref_denoise(w, s);
        double largest = 0;
        for (size_t i = 0; i < want.pixels.size(); ++i)
            for (int k = 0; k < 3; ++k) {
                ASSERT_NEAR(got.pixels[i][k], want.pixels[i][k], 1e-4 * (1 + want.pixels[i][k])) << i;
                largest = std::max(largest, double(want.pixels[i][k]));
            }
        EXPECT_GT(largest, 0.01);  // the network is not giving black, which would match trivially
    }
}

TEST(Unet, TilesGiveTheWholeImageBitForBit) {
    const UnetWeights w = random_net(21);
    const UnetNetwork net(w);
    const UnetScene s = random_scene(22, 260, 150);
    const Image whole = net.denoise(s.color, s.features, 2, 1 << 20);
    for (int tile : {32, 112}) {
        const Image tiled = net.denoise(s.color, s.features, 2, tile);
        ASSERT_EQ(tiled.pixels.size(), whole.pixels.size());
        EXPECT_EQ(std::memcmp(tiled.pixels.data(), whole.pixels.data(), whole.pixels.size() * sizeof(Vec3)), 0)
            << "tile " << tile;
    }
    // The margin is needed: with 64 the tiles' edges show.
    const Image short_margin = net.denoise(s.color, s.features, 2, 112, 64);
    EXPECT_NE(std::memcmp(short_margin.pixels.data(), whole.pixels.data(), whole.pixels.size() * sizeof(Vec3)), 0);
}

TEST(Unet, IdentityNetworkReturnsTheInputColour) {
    const UnetScene s = random_scene(31, 50, 37);
    for (auto [inputs, exposure] :
         {std::pair{7u, UnetExposure::kAuto}, std::pair{7u, UnetExposure::kNone}, std::pair{1u, UnetExposure::kAuto},
          std::pair{3u, UnetExposure::kAuto}, std::pair{5u, UnetExposure::kNone}}) {
        UnetWeights w = identity_net(inputs);
        w.transfer.exposure = exposure;
        const auto denoiser = make_cpu_unet_denoiser(w, 2);
        const Image out = denoiser->denoise(s.color, s.features, {});
        EXPECT_GT(denoiser->last_device_ms(), 0.0);
        for (size_t i = 0; i < s.color.pixels.size(); ++i)
            for (int k = 0; k < 3; ++k)
                ASSERT_NEAR(out.pixels[i][k], s.color.pixels[i][k], 2e-5 * (1 + s.color.pixels[i][k])) << i;
    }
}

// A residual network adds its output to the input colour's curve value: with every weight 0 it gives the
// input back to float32's precision, fireflies included; the same network giving the curve's value gives
// black (the inverse of 0).
TEST(Unet, ZeroResidualNetworkReturnsTheInputColour) {
    const UnetScene s = random_scene(33, 50, 37);
    for (uint32_t inputs : {7u, 1u}) {
        UnetWeights w = zero_residual_net(inputs);
        const Image out = make_cpu_unet_denoiser(w, 2)->denoise(s.color, s.features, {});
        for (size_t i = 0; i < s.color.pixels.size(); ++i)
            for (int k = 0; k < 3; ++k)
                ASSERT_NEAR(out.pixels[i][k], s.color.pixels[i][k], 2e-6 * (1 + s.color.pixels[i][k])) << i;
        w.transfer.output = UnetOutput::kCurve;
        const Image black = make_cpu_unet_denoiser(w, 2)->denoise(s.color, s.features, {});
        for (const Vec3& p : black.pixels) ASSERT_EQ(p.x + p.y + p.z, 0.0f);
    }
}

TEST(Unet, DenoiserRefusesBadWeightsAndMismatchedFeatures) {
    UnetWeights w = identity_net();
    w.layers[3].bias.pop_back();
    EXPECT_THROW(make_cpu_unet_denoiser(w), Error);
    UnetScene s = random_scene(41, 20, 20);
    s.features.normal.pixels.pop_back();
    EXPECT_THROW(make_cpu_unet_denoiser(identity_net())->denoise(s.color, s.features, {}), Error);
}

}  // namespace
