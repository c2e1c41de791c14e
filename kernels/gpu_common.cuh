// Device helpers shared by every GPU scheduler: framebuffer accumulation, warp-aggregated statistics
// and the %globaltimer timeline sampler.
#pragma once

#include "gpu_queue.cuh"

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

// Adds `value` from every lane of the (converged) warp into *dst with one atomic.
__device__ __forceinline__ void warp_add(unsigned long long* dst, unsigned value) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) value += __shfl_xor_sync(kFullMask, value, o);
    if (lane_id() == 0 && value) atomicAdd(dst, static_cast<unsigned long long>(value));
}

// Extension rays of a warp, by depth: lanes grouped by equal depth (usually one group).
__device__ __forceinline__ void count_extension_rays(GpuCounters* c, bool active, int depth) {
    unsigned mask = __ballot_sync(kFullMask, active);
    if (mask == 0) return;
    int d = depth < kStatsMaxDepth ? depth : kStatsMaxDepth - 1;
    unsigned same = __match_any_sync(kFullMask, active ? d : -1);
    if (active && static_cast<int>(lane_id()) == __ffs(same) - 1)
        atomicAdd(&c->rays_by_depth[d], static_cast<unsigned long long>(__popc(same)));
    if (lane_id() == 0) {
        atomicAdd(&c->extension_rays, static_cast<unsigned long long>(__popc(mask)));
        atomicAdd(&c->rays_per_sm[sm_id() % kStatsMaxSms], static_cast<unsigned long long>(__popc(mask)));
    }
}

__device__ __forceinline__ void count_shadow_rays(GpuCounters* c, unsigned n) {
    if (lane_id() == 0 && n) {
        atomicAdd(&c->shadow_rays, static_cast<unsigned long long>(n));
        atomicAdd(&c->rays_per_sm[sm_id() % kStatsMaxSms], static_cast<unsigned long long>(n));
    }
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

__device__ __forceinline__ void record_timeline(GpuCounters* c, unsigned long long t, int path_q, int shadow_q, int in_flight) {
    int i = atomicAdd(&c->timeline_count, 1);
    if (i < kTimelinePoints) c->timeline[i] = TimelinePoint{static_cast<unsigned>(t), path_q, shadow_q, in_flight};
}

__device__ __forceinline__ void sample_timeline(GpuCounters* c, int path_q, int shadow_q, int in_flight) {
    unsigned long long t;
    if (timeline_due(c, &t)) record_timeline(c, t, path_q, shadow_q, in_flight);
}

}  // namespace pkrt
