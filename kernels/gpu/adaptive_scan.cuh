// Adaptive sampling between rounds on the device, one warp per tile: the rule of kernels/adaptive.h
// (the functions the CPU backend calls) decides which tiles need samples; their pixels then go to the
// next round's work list, class after class, and one warp turns the counts into the next round's plan.
// Two callers: the scan and fill kernels that relaunch, graph, megakernel and persistent modes queue
// behind a round's frame (kernels/gpu/adaptive_scan.cu), and the resident kernel's sweeps, which run them
// itself once a round drains (kernels/gpu/resident.cuh).
//
// Everything shared between rounds is read through L2 (__ldcg): a resident kernel's SM may hold the
// last round's lines in its L1.
#pragma once

#include "kernels/gpu/gpu_common.cuh"

namespace pkrt {

// The framebuffer's halves as the rule reads them: all samples' sums, the odd ones', and the count.
struct EvenOddHalves {
    const float* radiance;
    const uint32_t* samples;
    size_t n;  // pixels of a half
    __device__ void operator()(size_t p, Vec3* all, Vec3* odd, uint32_t* count) const {
        const float* e = radiance + 3 * p;
        const float* o = radiance + 3 * (p + n);
        *odd = Vec3{__ldcg(o), __ldcg(o + 1), __ldcg(o + 2)};
        *all = Vec3{__ldcg(e), __ldcg(e + 1), __ldcg(e + 2)} + *odd;
        *count = __ldcg(samples + p) + __ldcg(samples + p + n);
    }
};

struct ScanTile {
    int x0, y0, tw, th;
    __device__ ScanTile(unsigned t, int width, int height) {
        int tiles_x = adaptive_tiles(width);
        x0 = static_cast<int>(t % static_cast<unsigned>(tiles_x)) * kAdaptiveTile;
        y0 = static_cast<int>(t / static_cast<unsigned>(tiles_x)) * kAdaptiveTile;
        tw = min(kAdaptiveTile, width - x0);
        th = min(kAdaptiveTile, height - y0);
    }
    __device__ int pixels() const { return tw * th; }
    __device__ uint32_t pixel(int i, int width) const {  // its i-th pixel, row by row
        return static_cast<uint32_t>(y0 + i / tw) * static_cast<uint32_t>(width) + static_cast<uint32_t>(x0 + i % tw);
    }
};

__device__ inline unsigned tiles_of(const AdaptiveDevice& a) {
    return static_cast<unsigned>(adaptive_tiles(a.width) * adaptive_tiles(a.height));
}

// The whole warp: tile t's converged pixels and its class in the next round (-1: none).
__device__ inline void adaptive_scan_tile(AdaptiveDevice* a, unsigned t) {
    const int width = a->width, height = a->height;
    const AdaptiveRule rule = a->rule;
    const EvenOddHalves sums{a->fb.radiance, a->fb.samples, static_cast<size_t>(width) * static_cast<size_t>(height)};
    const ScanTile tile(t, width, height);
    Vec3 all, odd;
    uint32_t count = 0, n;
    unsigned converged = 0;
    for (int i = static_cast<int>(lane_id()); i < tile.pixels(); i += 32) {
        sums(tile.pixel(i, width), &all, &odd, &n);
        converged += pixel_converged(all, odd, n, rule) ? 1u : 0u;
        count = n;  // every pixel of a tile has its count
    }
    converged = __reduce_add_sync(kFullMask, converged);
    count = __shfl_sync(kFullMask, count, 0);
    // tile_needs_samples, its halo's pixels spread over the lanes.
    bool needs = false;
    if (count < rule.max_spp) {
        const TileHalo halo(tile.x0 / kAdaptiveTile, tile.y0 / kAdaptiveTile, width, height);
        bool above = false;
        for (int i = static_cast<int>(lane_id()); i < halo.pixels(); i += 32) {
            sums(halo.pixel(i, width), &all, &odd, &n);
            above = above || !(pixel_error(all, odd, n) <= rule.target_error);
        }
        needs = __any_sync(kFullMask, above);
    }
    if (lane_id() != 0) return;
    if (converged) atomicAdd(&a->converged_pixels, converged);
    int c = -1;
    if (needs) {
        c = adaptive_class(adaptive_tile_samples(count, rule.max_spp));
        unsigned pixels = static_cast<unsigned>(tile.pixels());
        atomicAdd(&a->class_pixels[c], pixels);
        atomicAdd(&a->tiles, 1u);
    }
    a->tile_class[t] = c;
}

// One lane, once every tile's class is in and every tile filled: the next round's plan, the log entry
// of the one just scanned, and clear counters for the next scan.
__device__ inline void adaptive_finalize(AdaptiveDevice* a) {
    __threadfence();
    unsigned r = a->round;
    AdaptivePlan& plan = a->plan;
    AdaptiveRoundLog& log = a->log[r % kAdaptiveLogRounds];
    log.converged_pixels = __ldcg(&a->converged_pixels);
    log.tiles = __ldcg(&a->tiles);
    log.paths = plan.first_path[kAdaptiveClasses];
    unsigned long long path = 0;
    uint32_t offset = 0, step = 0;
    for (int k = 0; k < kAdaptiveClasses; ++k) {
        uint32_t pixels = __ldcg(&a->class_pixels[k]), samples = 2u << k;
        plan.first_path[k] = path;
        plan.offset[k] = offset;
        plan.pixels[k] = pixels;
        path += static_cast<unsigned long long>(pixels) * samples;
        offset += pixels;
        if (pixels) step = samples;
        a->class_pixels[k] = 0;
        a->class_fill[k] = 0;
    }
    plan.first_path[kAdaptiveClasses] = path;
    log.next_paths = path;
    log.next_step = step;
    a->converged_pixels = a->tiles = 0;
    a->tiles_filled = 0;
    __threadfence();
    a->round = r + 1;
    __threadfence();
}

// The whole warp: tile t's pixels into the work list, after its class's earlier tiles' (any order: a
// class's tiles all take the same samples). The warp that fills the last tile finalizes the round.
__device__ inline void adaptive_fill_tile(AdaptiveDevice* a, unsigned t) {
    const int c = __ldcg(&a->tile_class[t]);
    unsigned base = 0;
    const ScanTile tile(t, a->width, a->height);
    if (c >= 0) {
        if (lane_id() == 0) {
            for (int k = 0; k < c; ++k) base += __ldcg(&a->class_pixels[k]);
            base += atomicAdd(&a->class_fill[c], static_cast<unsigned>(tile.pixels()));
        }
        base = __shfl_sync(kFullMask, base, 0);
        const size_t n = static_cast<size_t>(a->width) * static_cast<size_t>(a->height);
        for (int i = static_cast<int>(lane_id()); i < tile.pixels(); i += 32) {
            uint32_t p = tile.pixel(i, a->width);
            a->work[base + static_cast<unsigned>(i)] =
                WorkPixel{p, __ldcg(a->fb.samples + p) + __ldcg(a->fb.samples + p + n)};
        }
    }
    __syncwarp();
    if (lane_id() == 0) {
        __threadfence();
        if (atomicAdd(&a->tiles_filled, 1u) + 1 == tiles_of(*a)) adaptive_finalize(a);
    }
    __syncwarp();
}

}  // namespace pkrt
