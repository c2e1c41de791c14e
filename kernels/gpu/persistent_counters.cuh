// The persistent kernel's per-block counters (kept in shared memory, flushed to the global ones every
// kFlushInterval iterations and at exit, so hot global addresses see a few atomics per warp per 64
// iterations, not per iteration) and its sampled phase clock.
#pragma once

#include "kernels/gpu/gpu_common.cuh"
#include "kernels/gpu/gpu_launch.h"

namespace pkrt {

namespace {

struct BlockCounters {
    RayCounts rays;
    unsigned long long iterations, idle, sleeps, sleep_ns, kept, inlined;
    unsigned long long phase[kPhaseCount];
};

// Lane 0 of each warp charges the cycles since its last mark to a phase, in one iteration of every
// kPhaseSampling, scaled up by it. The sampled residue is staggered across warps, so that iterations of
// every kind (the control step's every eighth among them) are sampled as often as they occur. Timing
// every iteration cost measurably more (six clock reads and counter updates on every bounce; BENCHMARKS.md,
// session 11).
constexpr unsigned kPhaseSampling = 8;

struct PhaseClock {
    long long last;
    bool sampled;  // this iteration is timed (warp-uniform)
    __device__ __forceinline__ void begin(unsigned iter, unsigned warp) {
        sampled = (iter + warp) % kPhaseSampling == 0;
        if (sampled) last = clock64();
    }
    __device__ __forceinline__ void charge(BlockCounters& b, int phase) {
        if (sampled && lane_id() == 0) {
            long long now = clock64();
            atomicAdd(&b.phase[phase], static_cast<unsigned long long>(now - last) * kPhaseSampling);
            last = now;
        }
    }
};

constexpr int kFlushInterval = 64;  // a multiple of kControlInterval
constexpr int kControlInterval = 8;

__device__ __forceinline__ unsigned long long take(unsigned long long* v) { return atomicExch(v, 0ull); }

__device__ __forceinline__ void move_count(unsigned long long* from, unsigned long long* to) {
    unsigned long long v = take(from);
    if (v) atomicAdd(to, v);
}

// One lane. Moves what the block has counted so far into the global counters. Rays are taken once and
// counted both in total and on this SM (a resident block never moves), so the two always agree.
__device__ void flush_counters(BlockCounters& b, GpuCounters* c) {
    unsigned long long extension = take(&b.rays.extension_rays), shadow = take(&b.rays.shadow_rays);
    if (extension) atomicAdd(&c->rays.extension_rays, extension);
    if (shadow) atomicAdd(&c->rays.shadow_rays, shadow);
    if (extension + shadow) atomicAdd(&c->rays_per_sm[sm_id() % kStatsMaxSms], extension + shadow);
    move_count(&b.rays.paths_generated, &c->rays.paths_generated);
    move_count(&b.rays.paths_completed, &c->rays.paths_completed);
    move_count(&b.rays.nonfinite, &c->rays.nonfinite);
    for (int d = 0; d < kStatsMaxDepth; ++d) move_count(&b.rays.rays_by_depth[d], &c->rays.rays_by_depth[d]);
    move_count(&b.iterations, &c->warp_iterations);
    move_count(&b.idle, &c->idle_iterations);
    move_count(&b.sleeps, &c->backoff_sleeps);
    move_count(&b.sleep_ns, &c->backoff_ns);
    move_count(&b.kept, &c->kept_paths);
    move_count(&b.inlined, &c->inline_shadows);
    for (int ph = 0; ph < kPhaseCount; ++ph) move_count(&b.phase[ph], &c->phase_cycles[ph]);
}

}  // namespace

}  // namespace pkrt
