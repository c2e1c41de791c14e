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
// samples about a quarter more of what it has (a quarter rounded down to a power of two, at least 2,
// never past max_spp), whatever the other tiles have: a tile taken up again at a low count (its halo's
// neighbour is still noisy) does not hold the others back. Tiles of one step size form a class, a
// frame of its own on the GPU. Sample numbers continue per tile, so a tile that reaches N samples holds
// exactly the samples a uniform render of N spp gives it.
//
// On the GPU a round is one frame: its parts (the classes, each a run of the work list) are an
// AdaptivePlan in device memory, which the device's scan writes for the next round, and the frame's
// odd-numbered samples go to a second half of the framebuffer (pixel + width * height), so that the
// scan can tell the two sums apart (kernels/gpu/adaptive_scan.cuh).
#pragma once

#include "kernels/vec3.h"

namespace pkrt {

constexpr int kAdaptiveTile = 8;  // tiles of 8 x 8 pixels: two warps of one tile's pixels on the GPU

struct AdaptiveRule {
    float target_error;  // > 0
    uint32_t min_spp;    // even, >= 2
    uint32_t max_spp;    // even, >= min_spp
};

// The square of the error below (the proportional rounds sum squares, kernels/adaptive_weights.h).
PKRT_HD float pixel_error2(Vec3 sum, Vec3 odd_sum, uint32_t n) {
    if (n < 2) return kInfinity;
    float inv_n = 1.0f / static_cast<float>(n), inv_half = 1.0f / static_cast<float>(n / 2);
    Vec3 i = sum * inv_n, a = odd_sum * inv_half;
    float e = 0.0f;
    e += (i.x - a.x) * (i.x - a.x) / (i.x * i.x + 0.01f);
    e += (i.y - a.y) * (i.y - a.y) / (i.y * i.y + 0.01f);
    e += (i.z - a.z) * (i.z - a.z) / (i.z * i.z + 0.01f);
    return e / 3.0f;
}

PKRT_HD float pixel_error(Vec3 sum, Vec3 odd_sum, uint32_t n) {
    return n < 2 ? kInfinity : sqrtf(pixel_error2(sum, odd_sum, n));
}

// A pixel that needs no more samples: at the target error, or at max_spp.
PKRT_HD bool pixel_converged(Vec3 sum, Vec3 odd_sum, uint32_t n, const AdaptiveRule& rule) {
    return n >= rule.max_spp || pixel_error(sum, odd_sum, n) <= rule.target_error;
}

// Tiles along a side of `pixels` pixels.
PKRT_HD int adaptive_tiles(int pixels) { return (pixels + kAdaptiveTile - 1) / kAdaptiveTile; }

// The pixels whose error decides tile (tx, ty): the tile and a one-pixel margin, clipped to the image.
struct TileHalo {
    int x0, y0, x1, y1;  // [x0, x1) x [y0, y1)
    PKRT_HD TileHalo(int tx, int ty, int width, int height) {
        int tx0 = tx * kAdaptiveTile, ty0 = ty * kAdaptiveTile;
        x0 = tx0 > 0 ? tx0 - 1 : 0;
        y0 = ty0 > 0 ? ty0 - 1 : 0;
        x1 = tx0 + kAdaptiveTile + 1 < width ? tx0 + kAdaptiveTile + 1 : width;
        y1 = ty0 + kAdaptiveTile + 1 < height ? ty0 + kAdaptiveTile + 1 : height;
    }
    PKRT_HD int pixels() const { return (x1 - x0) * (y1 - y0); }
    PKRT_HD size_t pixel(int i, int width) const {  // its i-th pixel, row by row
        int w = x1 - x0;
        return static_cast<size_t>(y0 + i / w) * width + static_cast<size_t>(x0 + i % w);
    }
};

// Whether tile (tx, ty) of a width x height image needs more samples. sums(p, &all, &odd, &n) reads
// pixel p's sums and samples (the GPU keeps even and odd ones apart, the CPU all and odd; every pixel
// of a tile has its tile's count). The GPU asks the same per halo pixel, a warp's lanes in parallel.
template <class Sums>
PKRT_HD bool tile_needs_samples(int tx, int ty, int width, int height, const Sums& sums, const AdaptiveRule& rule) {
    Vec3 all, odd;
    uint32_t n;
    sums(static_cast<size_t>(ty) * kAdaptiveTile * width + static_cast<size_t>(tx) * kAdaptiveTile, &all, &odd, &n);
    if (n >= rule.max_spp) return false;
    const TileHalo halo(tx, ty, width, height);
    for (int i = 0; i < halo.pixels(); ++i) {
        sums(halo.pixel(i, width), &all, &odd, &n);
        if (!(pixel_error(all, odd, n) <= rule.target_error)) return true;
    }
    return false;
}

// The CPU's layout: 3 floats per pixel of all samples' sums and of the odd ones', and the counts.
struct AllAndOddSums {
    const float* all;
    const float* odd;
    const uint32_t* counts;
    PKRT_HD void operator()(size_t p, Vec3* a, Vec3* o, uint32_t* n) const {
        *a = Vec3{all[3 * p], all[3 * p + 1], all[3 * p + 2]};
        *o = Vec3{odd[3 * p], odd[3 * p + 1], odd[3 * p + 2]};
        *n = counts[p];
    }
};

// Step sizes are powers of two from 2 to 2^kAdaptiveClasses (max_spp is at most 2^20).
constexpr int kAdaptiveClasses = 20;

PKRT_HD int floor_log2(uint32_t x) {  // x > 0
#if defined(__CUDA_ARCH__)
    return 31 - __clz(x);
#else
    return 31 - __builtin_clz(x);
#endif
}

// Samples the next round gives a tile that needs them and has `count` of them (count < max_spp, both
// even).
PKRT_HD uint32_t adaptive_tile_samples(uint32_t count, uint32_t max_spp) {
    uint32_t want = count / 4, room = max_spp - count;
    if (want < 2) want = 2;
    if (want > room) want = room;
    return 1u << floor_log2(want);
}

// The class of a step size: 2 -> 0, 4 -> 1, ...
PKRT_HD int adaptive_class(uint32_t samples) { return floor_log2(samples) - 1; }

// A load through L2 on the device: data that another SM rewrote between rounds (a resident kernel's
// SM may still hold the last round's line in its L1).
template <class T> PKRT_HD T load_l2(const T* p) {
#if defined(__CUDA_ARCH__)
    return __ldcg(p);
#else
    return *p;
#endif
}

// A GPU round's parts, in device memory: part k samples `pixels[k]` work-list entries from `offset[k]`
// on, and holds the round's paths first_path[k] .. first_path[k + 1] - 1, entry after entry within
// each sample (neighbouring paths: neighbouring pixels of a tile). The first round is one part, every
// pixel at min_spp; later ones a part per class (class k: 2 << k samples a pixel).
struct AdaptivePlan {
    unsigned long long first_path[kAdaptiveClasses + 1];  // the last: the round's paths
    uint32_t offset[kAdaptiveClasses];
    uint32_t pixels[kAdaptiveClasses];
};

// What a GPU round's scan found (a log the host reads behind the rounds).
struct AdaptiveRoundLog {
    unsigned converged_pixels;      // at the target error or at max_spp, after the round
    unsigned tiles;                 // tiles the next round samples
    unsigned long long paths;       // the round's paths (samples)
    unsigned long long next_paths;  // the next round's
    uint32_t next_step;             // the next round's largest step (samples a pixel)
    uint32_t pad;
};
constexpr int kAdaptiveLogRounds = 64;  // a ring, round r in r % kAdaptiveLogRounds

}  // namespace pkrt
