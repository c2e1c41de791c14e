// Device helpers shared by every GPU scheduler: framebuffer accumulation, warp-aggregated statistics
// and the %globaltimer timeline sampler.
#pragma once

#include "kernels/gpu/build_dispatch.h"
#include "kernels/gpu/gpu_queue.cuh"
#include "kernels/path_stages.h"

namespace pkrt {

__device__ __forceinline__ void add_radiance(const DeviceFramebuffer& fb, uint32_t pixel, Vec3 l) {
    if (is_black(l)) return;
    float* p = fb.radiance + 3 * static_cast<size_t>(pixel);
    atomicAdd(p + 0, l.x);
    atomicAdd(p + 1, l.y);
    atomicAdd(p + 2, l.z);
}

__device__ __forceinline__ unsigned long long global_timer_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__device__ __forceinline__ unsigned sm_id() {
    unsigned id;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
    return id;
}

__device__ __forceinline__ void add_features(const DeviceFramebuffer& fb, uint32_t pixel, const FeatureSample& fs) {
    if (!fb.features) return;
    if (pixel >= fb.pixels) pixel -= fb.pixels;
    float* p = fb.features + kFeatureFloats * static_cast<size_t>(pixel);
    float v[kFeatureFloats];
    feature_floats(fs, v);
#if __CUDA_ARCH__ >= 900  // vector atomics: two instead of eight
    atomicAdd(reinterpret_cast<float4*>(p), make_float4(v[0], v[1], v[2], v[3]));
    atomicAdd(reinterpret_cast<float4*>(p) + 1, make_float4(v[4], v[5], v[6], v[7]));
#else
    for (int i = 0; i < kFeatureFloats; ++i) atomicAdd(p + i, v[i]);
#endif
}

// The GPU's Sink for the path stages (kernels/path_stages.h): radiance, features and finished samples
// straight into the framebuffer.
struct FramebufferSink {
    const DeviceFramebuffer&
        fb;  // a reference: inlined, it reads the kernel parameter itself, not a copy held in registers
    __device__ __forceinline__ void add(uint32_t pixel, Vec3 l) { add_radiance(fb, pixel, l); }
    __device__ __forceinline__ void feature(uint32_t pixel, const FeatureSample& fs) { add_features(fb, pixel, fs); }
    __device__ __forceinline__ void finish(uint32_t pixel) { atomicAdd(&fb.samples[pixel], 1u); }
};

// Warp-collective counting into RayCounts, wherever they live (a frame's global counters or a block's
// shared copy): one atomic per warp and counter, and per group of lanes at equal depth.
__device__ __forceinline__ void add_count(unsigned long long* dst, unsigned n) {
    if (n) atomicAdd(dst, static_cast<unsigned long long>(n));
}

__device__ __forceinline__ unsigned popc_ballot(bool pred) { return __popc(__ballot_sync(kFullMask, pred)); }

// Extension rays of a warp (lanes with `active`), also by depth; returns how many.
__device__ __forceinline__ unsigned count_extension_rays(RayCounts& c, bool active, int depth) {
    unsigned n = popc_ballot(active);
    int d = active ? (depth < kStatsMaxDepth ? depth : kStatsMaxDepth - 1) : -1;
    unsigned same = __match_any_sync(kFullMask, d);
    if (active && static_cast<int>(lane_id()) == __ffs(same) - 1) add_count(&c.rays_by_depth[d], __popc(same));
    if (lane_id() == 0) add_count(&c.extension_rays, n);
    return n;
}

// Lane 0 counts for the warp.
__device__ __forceinline__ void count_shadow_rays(RayCounts& c, unsigned n) {
    if (lane_id() == 0) add_count(&c.shadow_rays, n);
}

// Lanes whose path `ended` finish their sample; returns how many did.
__device__ __forceinline__ unsigned finish_samples(FramebufferSink& sink, RayCounts& c, bool ended, uint32_t pixel) {
    if (ended) sink.finish(pixel);
    unsigned n = popc_ballot(ended);
    if (lane_id() == 0) add_count(&c.paths_completed, n);
    return n;
}

// Lanes whose shading dropped a NaN or infinite contribution (ShadeResult::dropped).
__device__ __forceinline__ void count_dropped(RayCounts& c, bool dropped) {
    unsigned n = popc_ballot(dropped);
    if (lane_id() == 0) add_count(&c.nonfinite, n);
}

// Rays traced on this SM (lane 0 for the warp); a resident block never moves, so per block is per SM.
__device__ __forceinline__ void count_sm_rays(GpuCounters* c, unsigned n) {
    if (lane_id() == 0) add_count(&c->rays_per_sm[sm_id() % kStatsMaxSms], n);
}

// Called by one lane. Returns true to the first caller after a bucket boundary, which then records a
// point with record_timeline(): at most one point per interval, whichever warp gets there first, so the
// common case costs one timer read and two L2 reads.
__device__ __forceinline__ bool timeline_due(GpuCounters* c, unsigned long long* now_out) {
    unsigned long long t0 = load_volatile(&c->timeline_t0);
    if (t0 == 0) {
        atomicCAS(&c->timeline_t0, 0ull, global_timer_ns());
        t0 = load_volatile(&c->timeline_t0);
    }
    // Read the clock after t0: a clock read before another warp set t0 could lie before it, and the
    // unsigned difference would claim a bucket far in the future and end the timeline.
    unsigned long long now = global_timer_ns();
    if (now < t0) return false;
    // 32-bit division for the first 4 s of a frame: a 64-bit one is a long software sequence on the
    // warp's critical path.
    unsigned long long dt = now - t0;
    unsigned interval = c->timeline_interval_ns;
    unsigned long long bucket = (dt >> 32 ? dt / interval : static_cast<unsigned>(dt) / interval) + 1;
    unsigned long long last = load_volatile(&c->timeline_last_bucket);
    if (bucket <= last) return false;
    if (atomicCAS(&c->timeline_last_bucket, last, bucket) != last) return false;
    *now_out = now - t0;
    return true;
}

__device__ __forceinline__ void record_timeline(GpuCounters* c, unsigned long long t, int path_q, int shadow_q,
                                                int in_flight) {
    int i = atomicAdd(&c->timeline_count, 1);
    if (i < kTimelinePoints) c->timeline[i] = TimelinePoint{static_cast<unsigned>(t), path_q, shadow_q, in_flight};
}

__device__ __forceinline__ void sample_timeline(GpuCounters* c, int path_q, int shadow_q, int in_flight) {
    unsigned long long t;
    if (timeline_due(c, &t)) record_timeline(c, t, path_q, shadow_q, in_flight);
}

}  // namespace pkrt
