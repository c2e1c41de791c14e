// kernels/adaptive_weights.h: the plan's level, the rounds' weights, and the property they exist for: on
// a pixel whose noise is a rare bright tail, rounds planned from the pixel's own estimates give an
// unbiased image with the weights and a dark one with the plain mean.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "kernels/adaptive_weights.h"

using namespace pkrt;

TEST(AdaptiveWeights, PlanIsTheShareOfSamplesRoundedUpToAPowerOfTwo) {
    // n = s mean(s) / T: 0.5 * 2 / 0.01 = 100 -> 128 (level 7).
    EXPECT_EQ(tile_plan_level(0.5f, 2.0f, 0.01f, 4, 12), 7u);
    EXPECT_EQ(tile_plan_level(0.0f, 2.0f, 0.01f, 4, 12), 4u);   // never below the pilot
    EXPECT_EQ(tile_plan_level(1e6f, 2.0f, 0.01f, 4, 12), 12u);  // nor above the maximum
    EXPECT_EQ(tile_plan_level(0.64f, 1.0f, 0.01f, 4, 12), 6u);  // exactly 64
}

TEST(AdaptiveWeights, UnchangedPlansGiveThePlainMeanAndTheWeightsSumToOne) {
    // Pilot 16 of a plan of 128: 1/8, then rounds of 16, 32, 64 samples: 1/8, 1/4, 1/2.
    const float pilot = pilot_weight(4, 7, 12);
    EXPECT_FLOAT_EQ(pilot, 0.125f);
    TileRounds t{4, pilot};
    const float want[] = {0.125f, 0.25f, 0.5f};
    for (float w : want) {
        const float got = round_weight(t, 7, 12);
        EXPECT_FLOAT_EQ(got, w) << "level " << t.level;
        t.used += got;
        ++t.level;
    }
    EXPECT_FLOAT_EQ(t.used, 1.0f);
    // A plan that shrank to the next level: that round takes what is left; one that grew: a smaller share.
    EXPECT_FLOAT_EQ(round_weight(TileRounds{5, 0.25f}, 3, 12), 0.75f);
    EXPECT_FLOAT_EQ(round_weight(TileRounds{5, 0.25f}, 8, 12), 0.75f * 32.0f / 224.0f);
    // At the maximum the round takes what is left whatever the plan.
    EXPECT_FLOAT_EQ(round_weight(TileRounds{11, 0.5f}, 12, 12), 0.5f);
    // The pilot leaves room for a round even when the plan is the pilot, and is everything at the maximum.
    EXPECT_FLOAT_EQ(pilot_weight(4, 4, 12), 0.5f);
    EXPECT_FLOAT_EQ(pilot_weight(4, 9, 6), 0.25f);
    EXPECT_FLOAT_EQ(pilot_weight(6, 9, 6), 1.0f);
}

TEST(AdaptiveWeights, TakingTheLastRoundSpendsTheWeightExactly) {
    TileRounds t{4, 0.1f};
    EXPECT_FLOAT_EQ(take_round(t, 8, 12), 0.9f * 16.0f / 240.0f);
    EXPECT_EQ(t.level, 5u);
    EXPECT_FALSE(rounds_done(t));
    const float left = 1.0f - t.used;
    EXPECT_FLOAT_EQ(take_round(t, 6, 12), left);  // the plan is the next level: the rest
    EXPECT_EQ(t.used, 1.0f) << "exactly, whatever the rounding of the weights";
    EXPECT_TRUE(rounds_done(t));
}

TEST(AdaptiveWeights, RuleLevelsArePowersOfTwoWithinTheSettings) {
    ProportionalRule p = proportional_rule(AdaptiveRule{0.1f, 48, 1000});
    EXPECT_FLOAT_EQ(p.target, 0.01f) << "the square of the image's RMS error";
    EXPECT_EQ(p.pilot_level, 6u) << "48 up to 64";
    EXPECT_EQ(p.max_level, 9u) << "1000 down to 512";
    EXPECT_EQ(proportional_rule(AdaptiveRule{0.1f, 16, 16}).pilot_level, 4u);
    EXPECT_EQ(proportional_rule(AdaptiveRule{0.1f, 100, 100}).pilot_level, 6u) << "never above the maximum";
}

// A pixel's error per sample (kernels/adaptive.h's pixel_error^2 times its samples) in fixed point, and a
// tile's as the RMS over its halo.
TEST(AdaptiveWeights, ErrorPerSampleIsTheHalosRmsInFixedPoint) {
    // Samples alternating 1 and 3 (odd ones 3): pixel_error^2 = 1 / 4.01 at any even count.
    const double per_sample = 1.0 / 4.01;
    EXPECT_NEAR(pixel_variance_fixed(splat(8.0f), splat(6.0f), 4) / kErrorFixedOne, 4 * per_sample, 1e-6);
    EXPECT_NEAR(pixel_variance_fixed(splat(32.0f), splat(24.0f), 16) / kErrorFixedOne, 16 * per_sample, 1e-5);
    EXPECT_EQ(pixel_variance_fixed(splat(1.0f), splat(0.0f), 1) / kErrorFixedOne, kMaxVariancePerSample)
        << "one sample: as noisy as can be";
    // A 16x8 image: the left tile noisy (error per sample 1), the right one still.
    const int w = 16, h = 8;
    std::vector<float> all(3 * w * h), odd(3 * w * h);
    std::vector<uint32_t> counts(w * h, 4);
    for (int p = 0; p < w * h; ++p)
        for (int c = 0; c < 3; ++c) {
            const bool noisy = p % w < 8;
            all[3 * p + c] = noisy ? 8.0f : 4.0f;  // noisy: 1, 3, 1, 3; still: 1, 1, 1, 1
            odd[3 * p + c] = noisy ? 6.0f : 2.0f;
        }
    const AllAndOddSums sums{all.data(), odd.data(), counts.data()};
    // The left tile's halo: 9 x 8 pixels, 8 x 8 of them noisy.
    EXPECT_NEAR(tile_error_per_sample(0, 0, w, h, sums), std::sqrt(4 * per_sample * 64.0 / 72.0), 1e-5);
    EXPECT_NEAR(tile_error_per_sample(1, 0, w, h, sums), std::sqrt(4 * per_sample * 8.0 / 72.0), 1e-5);
    const float s0 = tile_error_per_sample(0, 0, w, h, sums), s1 = tile_error_per_sample(1, 0, w, h, sums);
    EXPECT_NEAR(mean_tile_error(tile_error_term(s0, 64) + tile_error_term(s1, 64), 128), (s0 + s1) / 2, 1e-6);
    const float s[2] = {s0, s1};
    EXPECT_EQ(neighbours_error(0, 0, 2, 1, s), s1) << "the pilot's plan: its neighbours' alone";
    EXPECT_EQ(neighbours_error(0, 0, 1, 1, s), 0.0f);
}

// Samples for the least time: a tile four times as costly per sample gets half the samples its error
// alone would give it, and the image's mean is of s sqrt(c).
TEST(AdaptiveWeights, CostlyTilesGetSamplesInProportionToErrorOverRootCost) {
    EXPECT_FLOAT_EQ(plan_factor(0.8f, 4.0f), 0.4f);
    EXPECT_FLOAT_EQ(mean_factor(0.8f, 4.0f), 1.6f);
    EXPECT_FLOAT_EQ(plan_factor(0.8f, 1.0f), 0.8f) << "even costs: in proportion to s";
    EXPECT_FLOAT_EQ(tile_cost(600, 100), 6.0f);
    EXPECT_FLOAT_EQ(tile_cost(0, 100), 1.0f) << "at least the camera ray";
    EXPECT_FLOAT_EQ(tile_cost(0, 0), 1.0f);
    // A 12x8 image: the left tile 2 rays a sample, the right one (4 x 8 pixels) 10.
    const int w = 12, h = 8;
    std::vector<uint32_t> rays(w * h), counts(w * h, 16);
    for (int p = 0; p < w * h; ++p) rays[p] = p % w < 8 ? 32 : 160;
    EXPECT_FLOAT_EQ(tile_cost_of(0, 0, w, h, rays.data(), counts.data()), 2.0f);
    EXPECT_FLOAT_EQ(tile_cost_of(1, 0, w, h, rays.data(), counts.data()), 10.0f);
}

namespace {

// One pixel: 0.2-0.3 almost always, 500 with probability 0.002 (a lamp seen through a small part of the
// lens). Its mean is 1.2495; a pilot of 16 samples misses the tail 97% of the time.
struct RarePixel {
    std::mt19937_64 rng;
    std::uniform_real_distribution<double> u{0.0, 1.0};
    double draw() { return u(rng) < 0.002 ? 500.0 : 0.2 + 0.1 * u(rng); }
    static constexpr double kMean = 0.002 * 500.0 + 0.998 * 0.25;
};

struct Estimates {
    double weighted, plain;
};

// Rounds from a 16-sample pilot: each plan from the pixel's own error estimate so far (kernels/adaptive.h's
// pixel_error, times sqrt(samples)), as a tile's would be.
Estimates render_pixel(uint64_t seed) {
    RarePixel px{std::mt19937_64(seed)};
    const uint32_t pilot_level = 4, max_level = 11;
    const float mean_s = 2.0f, target = 0.01f;  // the rest of the image's mean error per sample, the target
    double sum = 0.0, odd = 0.0, weighted = 0.0;
    uint32_t n = 0;
    auto sample = [&](uint32_t count) {
        double round = 0.0;
        for (uint32_t i = 0; i < count; ++i, ++n) {
            const double v = px.draw();
            round += v;
            if (n & 1u) odd += v;
        }
        sum += round;
        return round / count;
    };
    // The pilot's weight from a prior plan (no other tile here), fixed before its samples.
    TileRounds t{pilot_level, pilot_weight(pilot_level, 6, max_level)};
    weighted += t.used * sample(1u << pilot_level);
    while (t.used < 1.0f - 1e-6f) {
        const float s = pixel_error(splat(float(sum)), splat(float(odd)), n) * std::sqrt(float(n));
        const float w = round_weight(t, tile_plan_level(s, mean_s, target, pilot_level, max_level), max_level);
        weighted += w * sample(1u << t.level);
        t.used += w;
        ++t.level;
    }
    return {weighted, sum / n};
}

}  // namespace

TEST(AdaptiveWeights, RoundsPlannedFromTheirOwnSamplesStayUnbiasedOnlyWithTheWeights) {
    const int trials = 20000;
    double w_sum = 0, w_sq = 0, p_sum = 0, p_sq = 0;
    for (int i = 0; i < trials; ++i) {
        const Estimates e = render_pixel(1000003ull * i + 7);
        w_sum += e.weighted, w_sq += e.weighted * e.weighted;
        p_sum += e.plain, p_sq += e.plain * e.plain;
    }
    auto z = [&](double s, double sq) {
        const double mean = s / trials, var = sq / trials - mean * mean;
        return (mean - RarePixel::kMean) / std::sqrt(var / trials);
    };
    const double zw = z(w_sum, w_sq), zp = z(p_sum, p_sq);
    std::printf("weighted: mean %.4f, z %+.2f; plain: mean %.4f, z %+.2f (true %.4f)\n", w_sum / trials, zw,
                p_sum / trials, zp, RarePixel::kMean);
    EXPECT_LT(std::fabs(zw), 4.0) << "the weighted image is unbiased";
    EXPECT_LT(zp, -4.0) << "the plain mean of the same samples is dark (else this pixel tests nothing)";
}
