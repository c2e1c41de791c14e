// The classic wavefront (relaunch mode, and the body of graph mode): one kernel launch per stage per
// bounce over device-resident buffers. Queue sizes stay on the device: each kernel is launched with a
// grid sized for the wave's capacity and threads past the device-side count exit at once, so the host
// never reads a count back between launches (pbrt-v4's ForAllQueued).
#include "kernels/gpu/gpu_common.cuh"
#include "kernels/gpu/gpu_launch.h"
#include "kernels/gpu/ray_bins.cuh"

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

// The wavefront's Step (kernels/path_stages.h): extend_step in the extend stage, shade_step in the shade
// stage, whose shadow rays and next bounces are appended to the next stages' buffers. The flag is the
// cut-out test in the extend stage and the full shading in the shade stage (kernels/gpu/build_dispatch.h).
template <BvhViewLayout L, bool kFlag> struct WavefrontStep {
    const WavefrontParams& p;
    int bounce;
    FramebufferSink sink;
    uint32_t slot;  // the path's slot in the stage buffers (the thread's index unless binned)
    // The extend stage's hit goes to the shade stage's buffer, at the path's slot.
    __device__ __forceinline__ Hit closest(const Ray& ray) {
        Hit h = LayoutTraversal<L, kFlag>::closest(p.scene, ray);
        p.hits[slot] = h;
        return h;
    }
    __device__ __forceinline__ void extended(bool active, const PathState&) {
        count_sm_rays(p.counters, count_extension_rays(p.counters->rays, active, bounce));
    }
    __device__ __forceinline__ void shade(PathState& path, const Hit& hit, ShadeResult& r) {
        shade_path<kFlag>(p.scene, *p.frame, path, hit, r, sink);
    }
    __device__ __forceinline__ void dropped(bool d) { count_dropped(p.counters->rays, d); }
    __device__ __forceinline__ void shadow(bool want, const ShadowRay& sr, int) {
        int slot = warp_append(&p.shadow_counts[bounce], want);
        if (slot >= 0) {
            ShadowRecord s;
            s.ray = sr;
            s.depth = static_cast<uint32_t>(bounce);
            store_record(&p.shadows[slot], s);
        }
    }
    __device__ __forceinline__ void finish(bool ended, const PathState& path) {
        finish_samples(sink, p.counters->rays, ended, ended ? path.pixel : 0);
    }
};

// kCutouts: the traversal tests cut-outs (the shade stage's layout is unused: it does not traverse).
template <BvhViewLayout L, bool kCutouts> __global__ void wf_extend_kernel(WavefrontParams p, int bounce) {
    bool active;
    if (!stage_block_live(p.path_counts[bounce], &active)) return;
    wf_timeline(p, bounce);
    uint32_t i = global_index();
    // Bounce rays in bin order where sorted (camera rays are coherent as generated).
    uint32_t slot = active && bounce > 0 && p.bin_order[1] ? p.bin_order[1][i] : i;
    WavefrontStep<L, kCutouts> step{p, bounce, FramebufferSink{p.fb}, slot};
    PathRecord r;
    if (active) load_record(r, &p.paths[bounce & 1][slot]);
    extend_step(step, r.path, active);
}

template <bool kFull> __global__ void wf_shade_kernel(WavefrontParams p, int bounce) {
    bool active;
    if (!stage_block_live(p.path_counts[bounce], &active)) return;
    uint32_t i = global_index();
    WavefrontStep<BvhViewLayout::kBvh2, kFull> step{p, bounce, FramebufferSink{p.fb}, i};
    PathRecord r;
    if (active) load_record(r, &p.paths[bounce & 1][i]);
    ShadeResult res = shade_step(step, r.path, p.hits[i], active);
    int slot = warp_append(&p.path_counts[bounce + 1], active && res.continues);
    if (slot >= 0) store_record(&p.paths[(bounce + 1) & 1][slot], r);
    if (slot >= 0 && p.bin_keys[0]) {
        Vec3 lo, hi;
        bin_scene_box(p.scene.bvh, lo, hi);
        p.bin_keys[0][slot] = ray_bin_key(lo, hi, r.path.origin, r.path.dir);
    }
}

template <BvhViewLayout L, bool kCutouts> __global__ void wf_shadow_kernel(WavefrontParams p, int bounce) {
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
    return with_build(p.scene.bvh.layout, p.scene.cutouts != 0, [&](auto layout, auto cutouts) {
        wf_extend_kernel<layout.value, cutouts.value>
            <<<grid_for(p.capacity), kWavefrontThreads, 0, stream>>>(p, bounce);
        return cudaGetLastError();
    });
}
cudaError_t launch_wf_shade(const WavefrontParams& p, int bounce, cudaStream_t stream) {
    return with_flag(p.scene.full_shading != 0, [&](auto full) {
        wf_shade_kernel<full.value><<<grid_for(p.capacity), kWavefrontThreads, 0, stream>>>(p, bounce);
        return cudaGetLastError();
    });
}
cudaError_t launch_wf_shadow(const WavefrontParams& p, int bounce, cudaStream_t stream) {
    return with_build(p.scene.bvh.layout, p.scene.cutouts != 0, [&](auto layout, auto cutouts) {
        wf_shadow_kernel<layout.value, cutouts.value>
            <<<grid_for(p.capacity), kWavefrontThreads, 0, stream>>>(p, bounce);
        return cudaGetLastError();
    });
}

}  // namespace pkrt
