// Adaptive sampling (kernels/adaptive.h, render/adaptive.h) on the CPU backend: the rule's parts
// against hand-computed cases, and whole renders against uniform ones and against the furnace.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>
#include <vector>

#include "kernels/adaptive.h"
#include "kernels/path_stages.h"
#include "render/adaptive.h"
#include "render/backend.h"
#include "tests/test_render_util.h"

using namespace pkrt;

namespace {

const std::string kScenes = PKRT_SCENES_DIR;

struct Adaptive {
    Accumulation acc;
    RenderStats stats;
};

Adaptive render_adaptive(const Scene& scene, int w, int h, int depth, uint32_t seed, AdaptiveSettings a,
                         unsigned threads = 0) {
    auto backend = make_cpu_backend(threads);
    RenderSettings rs = pkrt_test::settings(w, h, a.max_spp, depth, seed);
    rs.adaptive = a;
    RenderOutput out = render_view(*backend, scene, scene.camera, rs, nullptr, false);
    return Adaptive{std::move(out.accumulation), std::move(out.stats)};
}

Accumulation render_uniform(const Scene& scene, int w, int h, int spp, int depth, uint32_t seed) {
    auto backend = make_cpu_backend();
    return render_view(*backend, scene, scene.camera, pkrt_test::settings(w, h, spp, depth, seed), nullptr, false)
        .accumulation;
}

Vec3 pixel_mean(const Accumulation& a, size_t p) {
    float n = static_cast<float>(a.counts[p]);
    return Vec3{a.sums[3 * p] / n, a.sums[3 * p + 1] / n, a.sums[3 * p + 2] / n};
}

}  // namespace

TEST(AdaptiveRule, PixelErrorIsTheRelativeGapBetweenAllSamplesAndTheOddHalf) {
    // 4 samples of 1 and 3 alternating (odd ones 3): mean 2, odd mean 3, per channel 1 / (4 + 0.01).
    Vec3 sum = splat(8.0f), odd = splat(6.0f);
    EXPECT_NEAR(pixel_error(sum, odd, 4), std::sqrt(1.0 / 4.01), 1e-6);
    // Dark pixels are weighed absolutely (relMSE's 0.01): a gap of 0.01 around 0 is an error of 0.1.
    EXPECT_NEAR(pixel_error(splat(0.0f), splat(0.01f), 2), 0.1, 1e-6);
    EXPECT_EQ(pixel_error(splat(0.0f), splat(0.0f), 6), 0.0f);
    EXPECT_GT(pixel_error(splat(1.0f), splat(0.0f), 1), 1e30f) << "one sample says nothing of its error";
}

TEST(AdaptiveRule, ATileGrowsByAQuarterRoundedToAPowerOfTwoAndStopsAtMaxSpp) {
    EXPECT_EQ(adaptive_tile_samples(16, 1000), 4u);
    EXPECT_EQ(adaptive_tile_samples(1000, 10000), 128u) << "250, rounded down to a power of two";
    EXPECT_EQ(adaptive_tile_samples(1024, 10000), 256u);
    EXPECT_EQ(adaptive_tile_samples(2, 1000), 2u) << "at least 2";
    EXPECT_EQ(adaptive_tile_samples(400, 424), 16u) << "never past max_spp: 24 left, a step of 16, then 8";
    EXPECT_EQ(adaptive_tile_samples(416, 424), 8u);
    EXPECT_EQ(adaptive_class(2), 0);
    EXPECT_EQ(adaptive_class(256), 7);
    EXPECT_LT(adaptive_class(adaptive_tile_samples(1u << 20, (1u << 20) + 2)), kAdaptiveClasses);
    EXPECT_LT(adaptive_class(adaptive_tile_samples((1u << 20) - 2, 1u << 20)), kAdaptiveClasses);
    AdaptiveSettings odd = pkrt_test::adaptive_settings(0.1f, 3, 101);
    EXPECT_EQ(odd.rule().min_spp, 4u);
    EXPECT_EQ(odd.rule().max_spp, 100u);
    EXPECT_EQ(pkrt_test::adaptive_settings(0.1f, 1, 1000).rule().min_spp, 2u);
}

// 24 x 8 pixels: tiles 0, 1, 2 side by side. One noisy pixel at x = 16 (tile 2's first column) keeps
// tile 1 sampling (it is in tile 1's halo) but not tile 0.
TEST(AdaptiveRule, ATileSamplesWhileAPixelOfItsHaloIsAboveTheTarget) {
    const int w = 24, h = 8;
    std::vector<float> sums(3 * w * h, 8.0f), odd(3 * w * h, 4.0f);  // 8 samples, mean 1: no error
    std::vector<uint32_t> counts(w * h, 8);
    AdaptiveRule rule{0.01f, 8, 64};
    for (int tx = 0; tx < 3; ++tx)
        EXPECT_FALSE(tile_needs_samples(tx, 0, w, h, AllAndOddSums{sums.data(), odd.data(), counts.data()}, rule));
    size_t p = 3 * (3 * w + 16);
    odd[p] = 6.0f;
    EXPECT_FALSE(tile_needs_samples(0, 0, w, h, AllAndOddSums{sums.data(), odd.data(), counts.data()}, rule));
    EXPECT_TRUE(tile_needs_samples(1, 0, w, h, AllAndOddSums{sums.data(), odd.data(), counts.data()}, rule));
    EXPECT_TRUE(tile_needs_samples(2, 0, w, h, AllAndOddSums{sums.data(), odd.data(), counts.data()}, rule));
    for (int y = 0; y < h; ++y)
        for (int x = 16; x < 24; ++x) counts[y * w + x] = 64;  // tile 2 reaches max_spp
    EXPECT_FALSE(tile_needs_samples(2, 0, w, h, AllAndOddSums{sums.data(), odd.data(), counts.data()}, rule))
        << "at max_spp";
}

TEST(AdaptiveRule, HistogramBinsArePowersOfTwo) {
    std::vector<uint64_t> bins = spp_histogram({1, 2, 3, 4, 7, 8, 1000});
    ASSERT_EQ(bins.size(), 10u);
    EXPECT_EQ(bins[0], 1u);  // [1, 2)
    EXPECT_EQ(bins[1], 2u);  // [2, 4)
    EXPECT_EQ(bins[2], 2u);  // [4, 8)
    EXPECT_EQ(bins[3], 1u);  // [8, 16)
    EXPECT_EQ(bins[9], 1u);  // [512, 1024)
}

// With min_spp = max_spp the adaptive render is one round of the uniform render's samples, whatever the
// rule (proportional: the pilot, weighed 1).
TEST(Adaptive, MinEqualToMaxIsTheUniformImage) {
    Scene s = pkrt_test::load_prepared(kScenes + "/cornell.json");
    Accumulation u = render_uniform(s, 24, 20, 16, 4, 3);
    for (AdaptiveMethod m : {AdaptiveMethod::stop, AdaptiveMethod::proportional}) {
        AdaptiveSettings settings = pkrt_test::adaptive_settings(0.01f, 16, 16);
        settings.method = m;
        Adaptive a = render_adaptive(s, 24, 20, 4, 3, settings);
        EXPECT_EQ(a.acc.sums, u.sums) << adaptive_method_name(m);
        EXPECT_EQ(a.acc.counts, u.counts) << adaptive_method_name(m);
        EXPECT_EQ(a.stats.adaptive.rounds.size(), 1u) << adaptive_method_name(m);
    }
}

// A target no pixel reaches: every tile takes rounds up to max_spp, and holds exactly the samples of
// a uniform render at max_spp (summed in another grouping, so equal to float rounding).
TEST(Adaptive, ATileAtMaxSppHoldsTheUniformRendersSamples) {
    Scene s = pkrt_test::load_prepared(kScenes + "/cornell.json");
    Adaptive a = render_adaptive(s, 20, 12, 4, 5, pkrt_test::adaptive_settings(1e-6f, 8, 32));
    Accumulation u = render_uniform(s, 20, 12, 32, 4, 5);
    ASSERT_EQ(a.acc.counts, u.counts);
    for (size_t i = 0; i < u.sums.size(); ++i)
        EXPECT_NEAR(a.acc.sums[i], u.sums[i], 1e-4f * (1.0f + std::fabs(u.sums[i]))) << i;
    EXPECT_GT(a.stats.adaptive.rounds.size(), 3u);
    EXPECT_EQ(a.stats.samples, 20u * 12u * 32u);
}

TEST(Adaptive, EveryPixelEndsAtTheTargetOrAtMaxSpp) {
    Scene s = pkrt_test::load_prepared(kScenes + "/cornell.json");
    const AdaptiveSettings settings = pkrt_test::adaptive_settings(0.08f, 16, 512);
    Adaptive a = render_adaptive(s, 32, 32, 6, 1, settings);
    const AdaptiveReport& r = a.stats.adaptive;
    ASSERT_FALSE(r.time_limit_hit);
    uint64_t total = 0;
    uint32_t least = UINT32_MAX;
    for (size_t p = 0; p < a.acc.counts.size(); ++p) {
        Vec3 sum{a.acc.sums[3 * p], a.acc.sums[3 * p + 1], a.acc.sums[3 * p + 2]};
        Vec3 odd{a.acc.odd_sums[3 * p], a.acc.odd_sums[3 * p + 1], a.acc.odd_sums[3 * p + 2]};
        uint32_t n = a.acc.counts[p];
        EXPECT_TRUE(n == 512u || pixel_error(sum, odd, n) <= settings.target_error)
            << "pixel " << p << ": " << n << " spp";
        EXPECT_GE(n, 16u);
        total += n;
        least = std::min(least, n);
    }
    EXPECT_EQ(total, a.stats.samples) << "every sample the statistics count is in a pixel";
    EXPECT_DOUBLE_EQ(r.converged, 1.0);
    EXPECT_LT(least, 512u) << "the target stopped some tiles early";
    EXPECT_LT(r.mean_spp, 400.0);
}

// The adaptive image's mean against a uniform render's. With tens of thousands of samples in each the
// mean's statistical error is a fraction of a percent; 2% catches a rule that favours dark or bright
// samples (a stop that depended on the last samples' values without halving them).
TEST(Adaptive, ImageMeanMatchesTheUniformRender) {
    Scene s = pkrt_test::load_prepared(kScenes + "/cornell.json");
    Adaptive a = render_adaptive(s, 32, 32, 6, 2, pkrt_test::adaptive_settings(0.08f, 16, 512));
    Accumulation u = render_uniform(s, 32, 32, 256, 6, 9);
    for (int c = 0; c < 3; ++c) {
        double ma = 0, mu = 0;
        for (size_t p = 0; p < u.counts.size(); ++p) {
            ma += pixel_mean(a.acc, p)[c];
            mu += pixel_mean(u, p)[c];
        }
        EXPECT_NEAR(ma / mu, 1.0, 0.02) << "channel " << c;
    }
}

TEST(Adaptive, SameImageWhateverTheThreadCount) {
    Scene s = pkrt_test::load_prepared(kScenes + "/cornell.json");
    Adaptive one = render_adaptive(s, 20, 20, 5, 4, pkrt_test::adaptive_settings(0.1f, 8, 128), 1);
    Adaptive three = render_adaptive(s, 20, 20, 5, 4, pkrt_test::adaptive_settings(0.1f, 8, 128), 3);
    EXPECT_EQ(one.acc.sums, three.acc.sums);
    EXPECT_EQ(one.acc.odd_sums, three.acc.odd_sums);
    EXPECT_EQ(one.acc.counts, three.acc.counts);
}

TEST(Adaptive, TimeLimitEndsAfterTheRoundThatPassesIt) {
    Scene s = pkrt_test::load_prepared(kScenes + "/cornell.json");
    AdaptiveSettings settings = pkrt_test::adaptive_settings(0.001f, 8, 4096);
    settings.time_limit_s = 1e-9;
    Adaptive a = render_adaptive(s, 16, 16, 4, 1, settings);
    EXPECT_TRUE(a.stats.adaptive.time_limit_hit);
    ASSERT_EQ(a.stats.adaptive.rounds.size(), 1u);
    for (uint32_t n : a.acc.counts) EXPECT_EQ(n, 8u);
}

// The furnace (radiance 5 everywhere, TEST(Furnace, ...) in test_render.cpp) sampled adaptively: the
// rule's stop must leave every pixel within 1% of 5. 4x4 pixels are one tile whose halo holds all 16,
// so all 16 estimates must be below the target at once (with 2x2 pixels, four lucky estimates at
// min_spp ended the render with a pixel 0.8% off: one pixel's estimate is a single draw).
TEST(Adaptive, FurnaceStaysFiveWithinOnePercent) {
    Scene s = pkrt_test::load_prepared(kScenes + "/furnace.json");
    Adaptive a = render_adaptive(s, 4, 4, 100, 1, pkrt_test::adaptive_settings(0.005f, 4096, 131072));
    for (size_t p = 0; p < 16; ++p) {
        for (int c = 0; c < 3; ++c) EXPECT_NEAR(pixel_mean(a.acc, p)[c], 5.0f, 0.05f) << "pixel " << p;
        EXPECT_LT(a.acc.counts[p], 131072u) << "the target, not max_spp, ended it";
        EXPECT_GT(a.acc.counts[p], 4096u) << "the target was not met at min_spp";
    }
    EXPECT_EQ(a.stats.nonfinite_samples, 0u);
}

// A GPU round's path numbers through its plan (kernels/path_stages.h): every pixel of the work list
// gets exactly its part's samples, numbered on from its count, with empty classes between the parts.
TEST(AdaptiveRule, ARoundsPathsGiveEachPixelItsPartsSamplesOnce) {
    std::vector<WorkPixel> work{{10, 6}, {11, 6}, {12, 6}, {40, 20}, {41, 20}};
    AdaptivePlan plan{};
    const uint32_t samples[kAdaptiveClasses] = {0, 4, 0, 16};  // classes 0 and 2 empty
    const uint32_t pixels[kAdaptiveClasses] = {0, 3, 0, 2};
    unsigned long long path = 0;
    uint32_t offset = 0;
    for (int k = 0; k < kAdaptiveClasses; ++k) {
        plan.first_path[k] = path;
        plan.offset[k] = offset;
        plan.pixels[k] = pixels[k];
        path += static_cast<unsigned long long>(pixels[k]) * samples[k];
        offset += pixels[k];
    }
    plan.first_path[kAdaptiveClasses] = path;
    FrameRecord f{};
    f.width = 8;
    f.height = 8;
    f.work = work.data();
    f.plan = &plan;
    f.plan_paths = path;
    ASSERT_EQ(f.paths(), 3u * 4u + 2u * 16u);
    std::map<uint32_t, std::vector<uint32_t>> got;
    for (unsigned long long i = 0; i < f.paths(); ++i) {
        PathIndex k = path_index(f, i);
        got[k.pixel].push_back(k.sample);
    }
    ASSERT_EQ(got.size(), work.size());
    for (const WorkPixel& w : work) {
        std::vector<uint32_t> s = got[w.pixel];
        std::sort(s.begin(), s.end());
        uint32_t n = w.pixel < 40 ? 4u : 16u;
        ASSERT_EQ(s.size(), n) << "pixel " << w.pixel;
        for (uint32_t j = 0; j < n; ++j) EXPECT_EQ(s[j], w.first_sample + j) << "pixel " << w.pixel;
    }
    EXPECT_EQ(path_index(f, 1).pixel, 11u) << "neighbouring paths: neighbouring entries";
    EXPECT_EQ(generate_path(f, PathIndex{12, 7}).pixel, 12u + 64u) << "an odd sample adds to the second half";
    EXPECT_EQ(generate_path(f, PathIndex{12, 8}).pixel, 12u);
}

// --adaptive-rule proportional (kernels/adaptive_weights.h, render/cpu/proportional_rounds.h).
namespace {

AdaptiveSettings proportional(float e, int min_spp, int max_spp) {
    AdaptiveSettings a = pkrt_test::adaptive_settings(e, min_spp, max_spp);
    a.method = AdaptiveMethod::proportional;
    return a;
}

}  // namespace

// A target no tile can reach: every plan is the maximum from the start, so the rounds' weights are their
// shares of the samples and the image is the plain mean of a uniform render at max_spp.
TEST(Proportional, UnreachableTargetIsTheUniformRenderAtMaxSpp) {
    Scene s = pkrt_test::load_prepared(kScenes + "/cornell.json");
    Adaptive a = render_adaptive(s, 20, 12, 4, 5, proportional(1e-5f, 8, 32));
    Accumulation u = render_uniform(s, 20, 12, 32, 4, 5);
    ASSERT_EQ(a.acc.counts, u.counts);
    for (size_t i = 0; i < u.sums.size(); ++i)
        EXPECT_NEAR(a.acc.sums[i], u.sums[i], 1e-4f * (1.0f + std::fabs(u.sums[i]))) << i;
    EXPECT_EQ(a.stats.adaptive.rounds.size(), 3u) << "8, then doubling to 16 and 32";
    EXPECT_EQ(a.stats.samples, 20u * 12u * 32u);
}

// The samples go where the error is: the image ends near its target error (mean over pixels of the
// error estimate squared: the rounds plan for it, rounded up to powers of two), with more samples in the
// noisier tiles and fewer samples than uniform sampling needs for the same estimate.
TEST(Proportional, ReachesTheTargetWithSamplesWhereTheErrorIs) {
    Scene s = pkrt_test::load_prepared(kScenes + "/cornell.json");
    const float e = 0.06f;
    Adaptive a = render_adaptive(s, 32, 32, 6, 1, proportional(e, 16, 4096));
    const AdaptiveReport& r = a.stats.adaptive;
    ASSERT_FALSE(r.time_limit_hit);
    EXPECT_DOUBLE_EQ(r.converged, 1.0);
    double err2 = 0.0;
    uint64_t total = 0;
    for (size_t p = 0; p < a.acc.counts.size(); ++p) {
        Vec3 sum{a.acc.sums[3 * p], a.acc.sums[3 * p + 1], a.acc.sums[3 * p + 2]};
        Vec3 odd{a.acc.odd_sums[3 * p], a.acc.odd_sums[3 * p + 1], a.acc.odd_sums[3 * p + 2]};
        err2 += pixel_error2(sum, odd, a.acc.counts[p]);
        total += a.acc.counts[p];
    }
    err2 /= static_cast<double>(a.acc.counts.size());
    std::printf("estimated RMS error %.4f (target %.4f), %.1f spp on average, %u..%u\n", std::sqrt(err2), e, r.mean_spp,
                r.least_spp, r.most_spp);
    EXPECT_LT(err2, 1.3 * e * e) << "the target is reached (the estimate's own noise allowed)";
    EXPECT_GT(err2, e * e / 8) << "and not overshot past the rounding to powers of two";
    EXPECT_EQ(total, a.stats.samples) << "every sample the statistics count is in a pixel";
    EXPECT_LT(r.least_spp, r.most_spp) << "tiles of different error got different samples";
    EXPECT_GE(r.least_spp, 16u);
}

TEST(Proportional, SameImageWhateverTheThreadCount) {
    Scene s = pkrt_test::load_prepared(kScenes + "/cornell.json");
    Adaptive one = render_adaptive(s, 20, 20, 5, 4, proportional(0.1f, 8, 128), 1);
    Adaptive three = render_adaptive(s, 20, 20, 5, 4, proportional(0.1f, 8, 128), 3);
    EXPECT_EQ(one.acc.sums, three.acc.sums);
    EXPECT_EQ(one.acc.odd_sums, three.acc.odd_sums);
    EXPECT_EQ(one.acc.counts, three.acc.counts);
}

// A time limit ends the rounds with the weight given so far: the image is the pilot's, normalised.
TEST(Proportional, TimeLimitKeepsTheImageNormalised) {
    Scene s = pkrt_test::load_prepared(kScenes + "/cornell.json");
    AdaptiveSettings settings = proportional(0.001f, 8, 4096);
    settings.time_limit_s = 1e-9;
    Adaptive a = render_adaptive(s, 16, 16, 4, 1, settings);
    Accumulation u = render_uniform(s, 16, 16, 8, 4, 1);
    EXPECT_TRUE(a.stats.adaptive.time_limit_hit);
    ASSERT_EQ(a.stats.adaptive.rounds.size(), 1u);
    ASSERT_EQ(a.acc.counts, u.counts);
    for (size_t i = 0; i < u.sums.size(); ++i)
        EXPECT_NEAR(a.acc.sums[i], u.sums[i], 1e-5f * (1.0f + std::fabs(u.sums[i]))) << i;
}

// The furnace (radiance 5 everywhere): the adaptive image's mean over its independent pixels matches a
// uniform render's within four standard errors of their difference (both sit a little below 5, by a
// third of a percent at 1024 spp: many long paths and a few far longer), and 5 within 0.5%.
TEST(Proportional, FurnaceMeanIsTheUniformRenders) {
    Scene s = pkrt_test::load_prepared(kScenes + "/furnace.json");
    Adaptive a = render_adaptive(s, 24, 16, 100, 1, proportional(0.045f, 16, 1024));
    Accumulation u = render_uniform(s, 24, 16, 512, 100, 7);
    auto mean_se = [](const Accumulation& acc) {  // of channel 0 (the furnace is grey)
        double sum = 0.0, sq = 0.0;
        const double n = static_cast<double>(acc.counts.size());
        for (size_t p = 0; p < acc.counts.size(); ++p) {
            const double v = pixel_mean(acc, p).x;
            sum += v;
            sq += v * v;
        }
        const double mean = sum / n;
        return std::pair{mean, std::sqrt((sq / n - mean * mean) / (n - 1))};
    };
    const auto [ma, sa] = mean_se(a.acc);
    const auto [mu, su] = mean_se(u);
    std::printf("furnace: adaptive %.5f +- %.5f (%.1f spp on average), uniform %.5f +- %.5f\n", ma, sa,
                a.stats.adaptive.mean_spp, mu, su);
    EXPECT_LT(std::fabs(ma - mu), 4.0 * std::sqrt(sa * sa + su * su));
    EXPECT_NEAR(ma, 5.0, 0.025);
    EXPECT_LT(sa, 0.02) << "a test that measures something";
    EXPECT_GT(a.stats.adaptive.rounds.size(), 1u);
}
