// The denoiser (kernels/denoise.h, render/denoise/): noise on a surface goes, a texture's edges and a
// shadow's stay, the sky is left alone, and on a rendered Cornell box a 4-spp image denoised is closer
// to the converged one than a 16-spp image.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "render/backend.h"
#include "render/denoise/denoiser.h"
#include "render/error.h"
#include "tests/test_render_util.h"

using namespace pkrt;
using pkrt_test::load_prepared;
using pkrt_test::settings;

namespace {

Image flat(int w, int h, Vec3 v) { return Image{w, h, std::vector<Vec3>(static_cast<size_t>(w) * h, v)}; }

// A plane facing the camera at depth 2 under a checker texture of 8-pixel squares (albedo 0.2 or 0.8),
// lit by 1 with noise of standard deviation `noise` (relative), the left half in shadow (0.1).
struct Synthetic {
    Image truth, noisy;
    FeatureImages f;
};
Synthetic synthetic(int w, int h, float noise, uint32_t seed) {
    Synthetic s;
    s.f.albedo = flat(w, h, splat(0.0f));
    s.f.normal = flat(w, h, Vec3{0.0f, 0.0f, 1.0f});
    s.f.depth = flat(w, h, splat(2.0f));
    s.truth = flat(w, h, splat(0.0f));
    s.noisy = s.truth;
    std::mt19937 rng(seed);
    std::normal_distribution<float> n(0.0f, 1.0f);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            float a = ((x / 8 + y / 8) & 1) ? 0.8f : 0.2f;
            float light = x < w / 2 ? 0.1f : 1.0f;
            s.f.albedo.at(x, y) = splat(a);
            s.truth.at(x, y) = splat(a * light);
            s.noisy.at(x, y) = splat(a * light * std::max(0.0f, 1.0f + noise * n(rng)));
        }
    return s;
}

double mse(const Image& a, const Image& b, int x0, int x1) {
    double e = 0;
    size_t n = 0;
    for (int y = 0; y < a.height; ++y)
        for (int x = x0; x < x1; ++x, ++n) e += std::pow(a.at(x, y).y - b.at(x, y).y, 2);
    return e / n;
}

}  // namespace

TEST(Denoise, NoiseGoesTexturesAndShadowEdgesStay) {
    Synthetic s = synthetic(64, 64, 0.5f, 1);
    auto d = make_cpu_denoiser(2);
    Image out = d->denoise(s.noisy, s.f);
    // Away from the shadow's edge (columns 28..35), the noise is cut by more than 10x on both sides.
    EXPECT_LT(mse(out, s.truth, 0, 28), 0.1 * mse(s.noisy, s.truth, 0, 28));
    EXPECT_LT(mse(out, s.truth, 36, 64), 0.1 * mse(s.noisy, s.truth, 36, 64));
    // The texture comes back sharp: every lit pixel keeps its square's albedo ratio (0.2 : 0.8).
    double dark = 0, bright = 0;
    for (int y = 0; y < 64; ++y)
        for (int x = 40; x < 64; ++x) ((x / 8 + y / 8) & 1 ? bright : dark) += out.at(x, y).y;
    EXPECT_NEAR(bright / dark, 4.0, 0.2);
    // The shadow's edge is not blurred away: beside it, the lit side stays lit.
    double lit = 0, shadowed = 0;
    for (int y = 0; y < 64; ++y) {
        lit += out.at(33, y).y / s.f.albedo.at(33, y).y;
        shadowed += out.at(30, y).y / s.f.albedo.at(30, y).y;
    }
    EXPECT_GT(lit / 64, 0.8);
    EXPECT_LT(shadowed / 64, 0.3);
}

TEST(Denoise, WithoutNoiseTheImageIsKept) {
    Synthetic s = synthetic(32, 32, 0.0f, 2);
    Image out = make_cpu_denoiser()->denoise(s.truth, s.f);
    for (size_t i = 0; i < out.pixels.size(); ++i) EXPECT_NEAR(out.pixels[i].y, s.truth.pixels[i].y, 1e-5f) << i;
}

TEST(Denoise, TheSkyAndASurfaceDoNotMix) {
    // Left half a surface lit at 0.5, right half sky (features 0) at 3: neither bleeds into the other.
    Synthetic s = synthetic(32, 32, 0.3f, 3);
    for (int y = 0; y < 32; ++y)
        for (int x = 16; x < 32; ++x) {
            s.noisy.at(x, y) = splat(3.0f);
            s.f.albedo.at(x, y) = splat(0.0f);
            s.f.normal.at(x, y) = splat(0.0f);
            s.f.depth.at(x, y) = splat(0.0f);
        }
    Image out = make_cpu_denoiser()->denoise(s.noisy, s.f);
    for (int y = 0; y < 32; ++y) {
        EXPECT_NEAR(out.at(16, y).y, 3.0f, 1e-5f);
        EXPECT_LT(out.at(15, y).y, 0.2f);
    }
}

// The guide's packed normals (kernels/denoise.h): each component within half a step (1/1022) of the
// unit normal's, so the normal tests see the cosine to 0.005; no unit normal packs to 0, the sky's mark.
TEST(Denoise, GuideNormalsPackToWithinHalfAStep) {
    std::mt19937 rng(7);
    std::normal_distribution<float> g;
    std::vector<Vec3> normals = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
    for (int i = 0; i < 10000; ++i) normals.push_back(normalize(Vec3{g(rng), g(rng), g(rng)}));
    for (const Vec3& n : normals) {
        const uint32_t p = pack_guide_normal(n);
        ASSERT_NE(p, 0u);
        const Vec3 d = guide_normal(p);
        EXPECT_LE(std::fabs(d.x - n.x), 0.5f / 511.0f + 1e-6f);
        EXPECT_LE(std::fabs(d.y - n.y), 0.5f / 511.0f + 1e-6f);
        EXPECT_LE(std::fabs(d.z - n.z), 0.5f / 511.0f + 1e-6f);
        EXPECT_GT(dot(d, n), 0.995f);
    }
    EXPECT_EQ(pack_guide_normal(splat(0.0f)), 0u);
    const Vec3 sky = guide_normal(0u);
    EXPECT_EQ(sky.x, 0.0f);
    EXPECT_EQ(sky.y, 0.0f);
    EXPECT_EQ(sky.z, 0.0f);
}

TEST(Denoise, FeaturesOfAnotherSizeAreRefused) {
    Synthetic s = synthetic(16, 16, 0.1f, 4);
    Image small = flat(8, 8, splat(1.0f));
    EXPECT_THROW(make_cpu_denoiser()->denoise(small, s.f), Error);
}

// The rendered property: at 4 spp, denoised, the Cornell box is closer to a 2048-spp render (relMSE)
// than the 16-spp render is. Measured against 64 spp in BENCHMARKS.md.
TEST(Denoise, FourSppDenoisedBeatSixteenOnTheCornellBox) {
    Scene s = load_prepared(std::string(PKRT_SCENES_DIR) + "/cornell.json");
    auto cpu = make_cpu_backend();
    auto render = [&](int spp, uint32_t seed, bool features) {
        RenderSettings rs = settings(64, 64, spp, 8, seed);
        rs.features = features;
        return render_image(*cpu, s, rs, nullptr);
    };
    Image reference = render(2048, 100, false).image;
    RenderOutput four = render(4, 1, true);
    Image denoised = make_cpu_denoiser()->denoise(four.image, four.features);
    double e_denoised = relative_mse(denoised, reference), e_four = relative_mse(four.image, reference),
           e_sixteen = relative_mse(render(16, 1, false).image, reference);
    EXPECT_LT(e_denoised, e_sixteen) << "4 spp denoised " << e_denoised << ", 4 spp " << e_four << ", 16 spp "
                                     << e_sixteen;
    EXPECT_LT(e_denoised, 0.25 * e_four);
}
