// Rounds whose samples go where the error is, without bias (issue 52; measured before it was built by
// tools/adaptive/allocation_study.py, its rule prop-wtd, BENCHMARKS.md session 30): `--adaptive-rule
// proportional`. The CPU backend runs them (render/cpu/proportional_rounds.cpp); the GPU's rounds are to
// call the same functions from their scan.
//
// After a pilot, each tile has a plan: the samples that give it its share of a target mean relMSE T for
// the least time, given each tile's relative error per sample s and cost per sample c (its rays per
// sample): minimising the sum of n c with the mean of s^2 / n at T gives n = (s / sqrt(c)) * mean(s
// sqrt(c)) / T (with even costs, samples in proportion to s), rounded up to a power of two. Rounds double
// a tile's samples until its plan, which is made again after every round from everything seen so far.
//
// A tile whose samples stop early because its estimate missed rare bright paths would be dark if its
// image were the plain mean of its samples (the stop rule was, on the bokeh). So each round's mean of
// fresh samples gets a weight fixed before the round, from the plan as it then stood: the round's share
// of the samples the plan had left, times the weight left. The last round (its plan reached) takes all
// that is left, so the weights sum to 1; each weight is independent of the samples it weighs, so the
// weighted image is unbiased whatever the plans; and when no plan changes it is the plain mean.
#pragma once

#include "kernels/adaptive.h"

namespace pkrt {

// A tile's rounds so far: 2^level samples, `used` of the image's weight given to them.
struct TileRounds {
    uint32_t level;
    float used;
};

// The plan's level for a tile's plan factor q = s / sqrt(c), the image's mean of s sqrt(c) (mean_s: of s
// when costs are even), and target mean relMSE `target`, within [min_level, max_level].
PKRT_HD uint32_t tile_plan_level(float q, float mean_s, float target, uint32_t min_level, uint32_t max_level) {
    float want = q * mean_s / target;
    uint32_t level = min_level;
    while (level < max_level && static_cast<float>(1u << level) < want) ++level;
    return level;
}

// The weight of the round that doubles the tile's samples, from its plan before the round: at least that
// doubling while weight is left, and all that is left when the round reaches the plan or max_level.
PKRT_HD float round_weight(const TileRounds& t, uint32_t plan_level, uint32_t max_level) {
    uint32_t next = t.level + 1;
    uint32_t plan = plan_level > next ? plan_level : next;
    float left = 1.0f - t.used;
    if (plan == next || next >= max_level) return left;
    float round = static_cast<float>(1u << t.level), to_plan = static_cast<float>((1u << plan) - (1u << t.level));
    return left * round / to_plan;
}

// The pilot's weight (its 2^pilot_level samples), before any of its own samples are seen: from a plan
// that may use other tiles' samples only (they are independent of this tile's), with room for at least
// one more round below max_level (at it, the pilot is the whole render).
PKRT_HD float pilot_weight(uint32_t pilot_level, uint32_t plan_level, uint32_t max_level) {
    if (pilot_level >= max_level) return 1.0f;
    uint32_t plan = plan_level > pilot_level + 1 ? plan_level : pilot_level + 1;
    if (plan > max_level) plan = max_level;
    return static_cast<float>(1u << pilot_level) / static_cast<float>(1u << plan);
}

// The round that doubles the tile's samples, planned: its weight, with the tile's rounds advanced past it
// (after the last, `used` is exactly 1).
PKRT_HD float take_round(TileRounds& t, uint32_t plan_level, uint32_t max_level) {
    const float w = round_weight(t, plan_level, max_level);
    const bool last = plan_level <= t.level + 1 || t.level + 1 >= max_level;
    ++t.level;
    t.used = last ? 1.0f : t.used + w;
    return w;
}

// A tile whose weight is spent takes no more samples.
PKRT_HD bool rounds_done(const TileRounds& t) { return t.used >= 1.0f; }

// The rule's parameters: the target mean relMSE (the square of --target-error, the image's RMS relative
// error), and the pilot's and the most samples a tile takes as powers of two (min_spp rounded up, max_spp
// down; a pilot above the maximum is the maximum).
struct ProportionalRule {
    float target;
    uint32_t pilot_level, max_level;
};

PKRT_HD ProportionalRule proportional_rule(const AdaptiveRule& r) {
    ProportionalRule p;
    p.target = r.target_error * r.target_error;
    p.max_level = static_cast<uint32_t>(floor_log2(r.max_spp));
    uint32_t pilot = static_cast<uint32_t>(floor_log2(r.min_spp));
    if ((1u << pilot) < r.min_spp) ++pilot;
    p.pilot_level = pilot < p.max_level ? pilot : p.max_level;
    return p;
}

// Error per sample. A pixel's relative variance per sample is pixel_error^2 times its samples (I - A has
// the spread of I's standard error); a tile's error per sample s is the RMS over its halo, and the plans
// take the image's mean of s, pixels weighing. Both sums are in fixed point, exact whatever their order:
// the CPU adds serially, the GPU's lanes and tiles in any order, and their plans must agree bit for bit.
constexpr double kErrorFixedOne = 1048576.0;          // 2^20: 1.0 in fixed point
constexpr float kMaxVariancePerSample = 16777216.0f;  // 2^24: a halo of it sums to under 2^51

PKRT_HD unsigned long long pixel_variance_fixed(Vec3 all, Vec3 odd, uint32_t n) {
    float v = pixel_error2(all, odd, n) * static_cast<float>(n);
    if (!(v < kMaxVariancePerSample)) v = kMaxVariancePerSample;  // one sample, or NaN: as noisy as can be
    return static_cast<unsigned long long>(static_cast<double>(v) * kErrorFixedOne + 0.5);
}

// s from the halo's summed pixel_variance_fixed.
PKRT_HD float tile_error_from_sum(unsigned long long sum, int halo_pixels) {
    return static_cast<float>(sqrt(static_cast<double>(sum) / kErrorFixedOne / static_cast<double>(halo_pixels)));
}

// Tile (tx, ty)'s s, its halo read through `sums` as tile_needs_samples reads it (kernels/adaptive.h).
template <class Sums> PKRT_HD float tile_error_per_sample(int tx, int ty, int width, int height, const Sums& sums) {
    const TileHalo halo(tx, ty, width, height);
    unsigned long long sum = 0;
    Vec3 all, odd;
    uint32_t n;
    for (int i = 0; i < halo.pixels(); ++i) {
        sums(halo.pixel(i, width), &all, &odd, &n);
        sum += pixel_variance_fixed(all, odd, n);
    }
    return tile_error_from_sum(sum, halo.pixels());
}

// A tile's cost per sample: its pixels' rays over their samples, at least one (the camera ray).
PKRT_HD float tile_cost(unsigned long long rays, unsigned long long samples) {
    const float c = samples ? static_cast<float>(rays) / static_cast<float>(samples) : 1.0f;
    return c > 1.0f ? c : 1.0f;
}

// Tile (tx, ty)'s cost per sample from per-pixel sums of rays and counts of samples, over its own pixels.
PKRT_HD float tile_cost_of(int tx, int ty, int width, int height, const uint32_t* rays, const uint32_t* counts) {
    unsigned long long r = 0, n = 0;
    for (int y = ty * kAdaptiveTile; y < ty * kAdaptiveTile + kAdaptiveTile && y < height; ++y)
        for (int x = tx * kAdaptiveTile; x < tx * kAdaptiveTile + kAdaptiveTile && x < width; ++x) {
            const size_t p = static_cast<size_t>(y) * width + x;
            r += load_l2(rays + p);
            n += load_l2(counts + p);
        }
    return tile_cost(r, n);
}

// What the plans take of a tile's s and c: its plan factor s / sqrt(c), and its term of the image's mean
// of s sqrt(c).
PKRT_HD float plan_factor(float s, float cost) { return s / sqrtf(cost); }
PKRT_HD float mean_factor(float s, float cost) { return s * sqrtf(cost); }

// A tile's term of the image's mean s (or of s sqrt(c)): it in fixed point times the tile's pixels.
PKRT_HD unsigned long long tile_error_term(float s, int tile_pixels) {
    return static_cast<unsigned long long>(static_cast<double>(s) * kErrorFixedOne + 0.5) *
           static_cast<unsigned long long>(tile_pixels);
}

PKRT_HD float mean_tile_error(unsigned long long terms, unsigned long long pixels) {
    return static_cast<float>(static_cast<double>(terms) / kErrorFixedOne / static_cast<double>(pixels));
}

// The pilot's plan from the tile's neighbours alone (up to eight, in row order; none: 0): the mean of
// their plan factors, given per tile in `s`.
PKRT_HD float neighbours_error(int tx, int ty, int tiles_x, int tiles_y, const float* s) {
    float sum = 0.0f;
    int count = 0;
    for (int y = ty - 1; y <= ty + 1; ++y)
        for (int x = tx - 1; x <= tx + 1; ++x)
            if (y >= 0 && y < tiles_y && x >= 0 && x < tiles_x && (x != tx || y != ty)) {
                sum += s[static_cast<size_t>(y) * tiles_x + x];
                ++count;
            }
    return count ? sum / static_cast<float>(count) : 0.0f;
}

}  // namespace pkrt
