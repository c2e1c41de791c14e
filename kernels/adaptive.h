// Adaptive sampling's rule, shared by every backend so that they stop sampling the same pixels: the
// CPU backend runs it between rounds on the host, and the GPU schedulers are to run it on the device.
//
// Error per pixel. Besides the sum of its samples, a pixel keeps the sum of its odd-numbered samples
// (sample index odd): with n samples (n even), I is the mean of all, A the mean of the odd half. I - A
// is half the difference of two independent means of n/2 samples each, so its spread is I's standard
// error; relative, per channel as relMSE weighs errors (error^2 / (reference^2 + 0.01)):
//     error = sqrt(mean_c (I_c - A_c)^2 / (I_c^2 + 0.01)).
// A single pixel's estimate is noisy, so the decision is per tile, with a margin: a tile keeps sampling
// while any pixel within one pixel of it (its 10 x 10 halo) is above the target, so a converged island
// inside noise is not left behind, and while it is below max_spp.
//
// Rounds. Every tile starts with min_spp samples; then each round gives every tile that still needs
// samples the same number more (a quarter of what the least-sampled of them has, at least 2, and never
// past max_spp), so the rounds are logarithmic in max_spp / min_spp. Sample numbers continue per tile,
// so a tile that reaches N samples holds exactly the samples a uniform render of N spp gives it.
#pragma once

#include "vec3.h"

namespace pkrt {

constexpr int kAdaptiveTile = 8;  // tiles of 8 x 8 pixels: two warps of one tile's pixels on the GPU

struct AdaptiveRule {
    float target_error;  // > 0
    uint32_t min_spp;    // even, >= 2
    uint32_t max_spp;    // even, >= min_spp
};

PKRT_HD float pixel_error(Vec3 sum, Vec3 odd_sum, uint32_t n) {
    if (n < 2) return kInfinity;
    float inv_n = 1.0f / static_cast<float>(n), inv_half = 1.0f / static_cast<float>(n / 2);
    Vec3 i = sum * inv_n, a = odd_sum * inv_half;
    float e = 0.0f;
    e += (i.x - a.x) * (i.x - a.x) / (i.x * i.x + 0.01f);
    e += (i.y - a.y) * (i.y - a.y) / (i.y * i.y + 0.01f);
    e += (i.z - a.z) * (i.z - a.z) / (i.z * i.z + 0.01f);
    return sqrtf(e / 3.0f);
}

// Whether tile (tx, ty) of a width x height image needs more samples. sums(p, &all, &odd) reads pixel
// p's sums (the GPU keeps even and odd ones apart, the CPU all and odd); counts holds the samples per
// pixel (every pixel of a tile has its tile's count).
template <class Sums>
PKRT_HD bool tile_needs_samples(int tx, int ty, int width, int height, const Sums& sums, const uint32_t* counts,
                                const AdaptiveRule& rule) {
    int x0 = tx * kAdaptiveTile, y0 = ty * kAdaptiveTile;
    if (counts[static_cast<size_t>(y0) * width + x0] >= rule.max_spp) return false;
    int xa = x0 > 0 ? x0 - 1 : 0, ya = y0 > 0 ? y0 - 1 : 0;
    int xb = x0 + kAdaptiveTile + 1 < width ? x0 + kAdaptiveTile + 1 : width;
    int yb = y0 + kAdaptiveTile + 1 < height ? y0 + kAdaptiveTile + 1 : height;
    for (int y = ya; y < yb; ++y) {
        for (int x = xa; x < xb; ++x) {
            size_t p = static_cast<size_t>(y) * width + x;
            Vec3 all, odd;
            sums(p, &all, &odd);
            if (!(pixel_error(all, odd, counts[p]) <= rule.target_error)) return true;
        }
    }
    return false;
}

// The CPU's layout: 3 floats per pixel of all samples' sums and of the odd ones'.
struct AllAndOddSums {
    const float* all;
    const float* odd;
    PKRT_HD void operator()(size_t p, Vec3* a, Vec3* o) const {
        *a = Vec3{all[3 * p], all[3 * p + 1], all[3 * p + 2]};
        *o = Vec3{odd[3 * p], odd[3 * p + 1], odd[3 * p + 2]};
    }
};

// Samples the next round gives each tile that needs them, from the least count among those tiles and
// the most room any of them has left below max_spp (0 when none is left).
PKRT_HD uint32_t adaptive_round_samples(uint32_t least_count, uint32_t least_room) {
    uint32_t step = (least_count / 4) & ~1u;
    if (step < 2) step = 2;
    return step < least_room ? step : least_room;
}

}  // namespace pkrt
