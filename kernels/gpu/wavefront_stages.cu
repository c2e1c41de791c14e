// The classic wavefront (relaunch mode, and the body of graph mode): one kernel launch per stage per
// bounce over device-resident buffers. Queue sizes stay on the device: each kernel is launched with a
// grid sized for the wave's capacity and threads past the device-side count exit at once, so the host
// never reads a count back between launches (pbrt-v4's ForAllQueued).
#include "kernels/gpu/gpu_common.cuh"
#include "kernels/gpu/gpu_launch.h"

namespace pkrt {

namespace {

__device__ __forceinline__ uint32_t global_index() { return blockIdx.x * blockDim.x + threadIdx.x; }

// Warp-aggregated append: one atomic per warp, slots in lane order.
__device__ __forceinline__ int warp_append(int* count, bool want) {
    unsigned active = __activemask();
    unsigned mask = __ballot_sync(active, want);
    if (mask == 0) return -1;
    int leader = __ffs(mask) - 1;
    int base = 0;
    if (static_cast<int>(lane_id()) == leader) base = atomicAdd(count, __popc(mask));
    base = __shfl_sync(active, base, leader);
    return want ? base + __popc(mask & lanemask_lt()) : -1;
}

__device__ __forceinline__ void wf_timeline(const WavefrontParams& p, int bounce) {
    if (threadIdx.x == 0) {
        int live = load_volatile(&p.path_counts[bounce]);
        int shadows = bounce > 0 ? load_volatile(&p.shadow_counts[bounce - 1]) : 0;
        sample_timeline(p.counters, live, shadows, live + shadows);
    }
}

// Threads of a stage: the live count of its buffer, read on the device. False for a whole block past
// the end (it leaves at once); otherwise *active says whether this thread has an item.
__device__ __forceinline__ bool stage_block_live(int count, bool* active) {
    *active = global_index() < static_cast<uint32_t>(count);
    return blockIdx.x * blockDim.x < static_cast<uint32_t>(count);
}

__global__ void wf_generate_kernel(WavefrontParams p) {
    uint32_t i = global_index();
    const WaveParams w = *p.wave;
    if (i == 0) {
        p.path_counts[0] = static_cast<int>(w.count);
        atomicAdd(&p.counters->rays.paths_generated, static_cast<unsigned long long>(w.count));
    }
    if (i >= w.count) return;
    PathIndex k = path_index(*p.frame, w.first_index + i);
    PathRecord r;
    r.path = generate_path(*p.frame, k);
    r.sample = k.sample;
    r.pad = 0;
    store_record(&p.paths[0][i], r);
}

template <BvhViewLayout L, bool kCutouts>
__global__ void wf_extend_kernel(WavefrontParams p, int bounce) {
    bool active;
    if (!stage_block_live(p.path_counts[bounce], &active)) return;
    wf_timeline(p, bounce);
    uint32_t i = global_index();
    if (active) {
        PathRecord r;
        load_record(r, &p.paths[bounce & 1][i]);
        p.hits[i] = LayoutTraversal<L, kCutouts>::closest(p.scene, Ray{r.path.origin, r.path.dir});
    }
    count_sm_rays(p.counters, count_extension_rays(p.counters->rays, active, bounce));
}

template <bool kFull>
__global__ void wf_shade_kernel(WavefrontParams p, int bounce) {
    bool active;
    if (!stage_block_live(p.path_counts[bounce], &active)) return;
    uint32_t i = global_index();
    FramebufferSink sink{p.fb};
    PathRecord r;
    ShadeResult res;
    res.has_shadow = false;
    res.continues = false;
    res.dropped = false;
    uint32_t pixel = 0;
    if (active) {
        load_record(r, &p.paths[bounce & 1][i]);
        pixel = r.path.pixel;
        shade_path<kFull>(p.scene, *p.frame, r.path, p.hits[i], res);
        sink.add(pixel, res.radiance);
    }
    finish_samples(sink, p.counters->rays, active && !res.continues, pixel);
    count_dropped(p.counters->rays, res.dropped);
    int slot = warp_append(&p.path_counts[bounce + 1], active && res.continues);
    if (slot >= 0) store_record(&p.paths[(bounce + 1) & 1][slot], r);
    int sslot = warp_append(&p.shadow_counts[bounce], active && res.has_shadow);
    if (sslot >= 0) {
        ShadowRecord s;
        s.ray = res.shadow;
        s.depth = static_cast<uint32_t>(bounce);
        store_record(&p.shadows[sslot], s);
    }
}

template <BvhViewLayout L, bool kCutouts>
__global__ void wf_shadow_kernel(WavefrontParams p, int bounce) {
    bool active;
    if (!stage_block_live(p.shadow_counts[bounce], &active)) return;
    FramebufferSink sink{p.fb};
    if (active) {
        ShadowRecord s;
        load_record(s, &p.shadows[global_index()]);
        resolve_shadow<LayoutTraversal<L, kCutouts>>(sink, p.scene, s.ray);
    }
    unsigned n = popc_ballot(active);
    count_shadow_rays(p.counters->rays, n);
    count_sm_rays(p.counters, n);
}

unsigned grid_for(uint32_t n) { return (n + kWavefrontThreads - 1) / kWavefrontThreads; }

}  // namespace

cudaError_t launch_wf_generate(const WavefrontParams& p, cudaStream_t stream) {
    wf_generate_kernel<<<grid_for(p.capacity), kWavefrontThreads, 0, stream>>>(p);
    return cudaGetLastError();
}
// The traversing stages are built per BVH layout (kernels/traversal/bvh_traverse.h) and with and without the
// cut-out test; the shade stage with and without the full shading (kernels/shading/environment.h).
cudaError_t launch_wf_extend(const WavefrontParams& p, int bounce, cudaStream_t stream) {
    return with_scene_build(p.scene, p.scene.cutouts != 0, [&](auto layout, auto cutouts) {
        wf_extend_kernel<layout.value, cutouts.value><<<grid_for(p.capacity), kWavefrontThreads, 0, stream>>>(p, bounce);
        return cudaGetLastError();
    });
}
cudaError_t launch_wf_shade(const WavefrontParams& p, int bounce, cudaStream_t stream) {
    if (p.scene.full_shading)
        wf_shade_kernel<true><<<grid_for(p.capacity), kWavefrontThreads, 0, stream>>>(p, bounce);
    else
        wf_shade_kernel<false><<<grid_for(p.capacity), kWavefrontThreads, 0, stream>>>(p, bounce);
    return cudaGetLastError();
}
cudaError_t launch_wf_shadow(const WavefrontParams& p, int bounce, cudaStream_t stream) {
    return with_scene_build(p.scene, p.scene.cutouts != 0, [&](auto layout, auto cutouts) {
        wf_shadow_kernel<layout.value, cutouts.value><<<grid_for(p.capacity), kWavefrontThreads, 0, stream>>>(p, bounce);
        return cudaGetLastError();
    });
}

}  // namespace pkrt
