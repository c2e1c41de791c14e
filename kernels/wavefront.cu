// The classic wavefront (relaunch mode, and the body of graph mode): one kernel launch per stage per
// bounce over device-resident buffers. Queue sizes stay on the device: each kernel is launched with a
// grid sized for the wave's capacity and threads past the device-side count exit at once, so the host
// never reads a count back between launches (pbrt-v4's ForAllQueued). Also the megakernel: one thread
// per path, start to end.
#include "gpu_common.cuh"
#include "gpu_launch.h"

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

__global__ void wf_generate_kernel(WavefrontParams p) {
    uint32_t i = global_index();
    const WaveParams w = *p.wave;
    if (i == 0) {
        p.path_counts[0] = static_cast<int>(w.count);
        atomicAdd(&p.counters->paths_generated, static_cast<unsigned long long>(w.count));
    }
    if (i >= w.count) return;
    unsigned long long idx = w.first_index + i;
    uint32_t pixel = static_cast<uint32_t>(idx % p.pixels);
    uint32_t sample = w.first_sample + static_cast<uint32_t>(idx / p.pixels);
    PathRecord r;
    r.path = start_path(p.scene, p.frame, pixel, sample);
    r.sample = sample;
    r.pad = 0;
    store_record(&p.paths[0][i], r);
}

__global__ void wf_extend_kernel(WavefrontParams p, int bounce) {
    uint32_t i = global_index();
    int n = p.path_counts[bounce];
    if (blockIdx.x * blockDim.x >= static_cast<uint32_t>(n)) return;  // whole block past the end
    wf_timeline(p, bounce);
    bool active = i < static_cast<uint32_t>(n);
    PathRecord r;
    if (active) {
        load_record(r, &p.paths[bounce & 1][i]);
        p.hits[i] = intersect_closest(p.scene.bvh, Ray{r.path.origin, r.path.dir});
    }
    count_extension_rays(p.counters, active, bounce);
}

__global__ void wf_shade_kernel(WavefrontParams p, int bounce) {
    uint32_t i = global_index();
    int n = p.path_counts[bounce];
    if (blockIdx.x * blockDim.x >= static_cast<uint32_t>(n)) return;
    bool active = i < static_cast<uint32_t>(n);
    PathRecord r;
    ShadeResult res;
    res.has_shadow = false;
    res.continues = false;
    if (active) {
        load_record(r, &p.paths[bounce & 1][i]);
        uint32_t pixel = r.path.pixel;
        shade_path(p.scene, p.frame, r.path, p.hits[i], res);
        add_radiance(p.fb, pixel, res.radiance);
        if (!res.continues) atomicAdd(&p.fb.samples[pixel], 1u);
    }
    unsigned ended = __ballot_sync(kFullMask, active && !res.continues);
    if (lane_id() == 0 && ended) atomicAdd(&p.counters->paths_completed, static_cast<unsigned long long>(__popc(ended)));
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

__global__ void wf_shadow_kernel(WavefrontParams p, int bounce) {
    uint32_t i = global_index();
    int n = p.shadow_counts[bounce];
    if (blockIdx.x * blockDim.x >= static_cast<uint32_t>(n)) return;
    bool active = i < static_cast<uint32_t>(n);
    if (active) {
        ShadowRecord s;
        load_record(s, &p.shadows[i]);
        if (!occluded(p.scene.bvh, Ray{s.ray.origin, s.ray.dir}, s.ray.tmax)) add_radiance(p.fb, s.ray.pixel, s.ray.contribution);
    }
    count_shadow_rays(p.counters, __popc(__ballot_sync(kFullMask, active)));
}

__global__ void megakernel(WavefrontParams p) {
    uint32_t i = global_index();
    const WaveParams w = *p.wave;
    if (blockIdx.x * blockDim.x >= w.count) return;
    bool active = i < w.count;
    PathState path;
    if (active) {
        unsigned long long idx = w.first_index + i;
        path = start_path(p.scene, p.frame, static_cast<uint32_t>(idx % p.pixels),
                          w.first_sample + static_cast<uint32_t>(idx / p.pixels));
    }
    if (i == 0) atomicAdd(&p.counters->paths_generated, static_cast<unsigned long long>(w.count));
    // Lanes leave the loop one by one; statistics use the lanes still inside.
    while (__any_sync(kFullMask, active)) {
        Hit hit = no_hit();
        if (active) hit = intersect_closest(p.scene.bvh, Ray{path.origin, path.dir});
        count_extension_rays(p.counters, active, active ? path.depth : 0);
        ShadeResult r;
        r.has_shadow = false;
        r.continues = false;
        if (active) {
            uint32_t pixel = path.pixel;
            shade_path_outlined(p.scene, p.frame, path, hit, r);
            add_radiance(p.fb, pixel, r.radiance);
            if (r.has_shadow && !occluded(p.scene.bvh, Ray{r.shadow.origin, r.shadow.dir}, r.shadow.tmax))
                add_radiance(p.fb, pixel, r.shadow.contribution);
            if (!r.continues) atomicAdd(&p.fb.samples[pixel], 1u);
        }
        count_shadow_rays(p.counters, __popc(__ballot_sync(kFullMask, active && r.has_shadow)));
        unsigned ended = __ballot_sync(kFullMask, active && !r.continues);
        if (lane_id() == 0 && ended) atomicAdd(&p.counters->paths_completed, static_cast<unsigned long long>(__popc(ended)));
        active = active && r.continues;
    }
}

__global__ void pack_accumulation_kernel(DeviceFramebuffer fb, uint32_t pixels, float4* dst) {
    uint32_t i = global_index();
    if (i >= pixels) return;
    const float* r = fb.radiance + 3 * static_cast<size_t>(i);
    dst[i] = make_float4(r[0], r[1], r[2], static_cast<float>(fb.samples[i]));
}

__global__ void pack_accumulation_surface_kernel(DeviceFramebuffer fb, int width, int height, cudaSurfaceObject_t surface) {
    int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= width || y >= height) return;
    size_t i = static_cast<size_t>(y) * width + x;
    const float* r = fb.radiance + 3 * i;
    surf2Dwrite(make_float4(r[0], r[1], r[2], static_cast<float>(fb.samples[i])), surface, x * static_cast<int>(sizeof(float4)), y);
}

unsigned grid_for(uint32_t n) { return (n + kWavefrontThreads - 1) / kWavefrontThreads; }

}  // namespace

cudaError_t launch_wf_generate(const WavefrontParams& p, cudaStream_t stream) {
    wf_generate_kernel<<<grid_for(p.capacity), kWavefrontThreads, 0, stream>>>(p);
    return cudaGetLastError();
}
cudaError_t launch_wf_extend(const WavefrontParams& p, int bounce, cudaStream_t stream) {
    wf_extend_kernel<<<grid_for(p.capacity), kWavefrontThreads, 0, stream>>>(p, bounce);
    return cudaGetLastError();
}
cudaError_t launch_wf_shade(const WavefrontParams& p, int bounce, cudaStream_t stream) {
    wf_shade_kernel<<<grid_for(p.capacity), kWavefrontThreads, 0, stream>>>(p, bounce);
    return cudaGetLastError();
}
cudaError_t launch_wf_shadow(const WavefrontParams& p, int bounce, cudaStream_t stream) {
    wf_shadow_kernel<<<grid_for(p.capacity), kWavefrontThreads, 0, stream>>>(p, bounce);
    return cudaGetLastError();
}
cudaError_t launch_pack_accumulation(const DeviceFramebuffer& fb, uint32_t pixels, float4* dst, cudaStream_t stream) {
    pack_accumulation_kernel<<<grid_for(pixels), kWavefrontThreads, 0, stream>>>(fb, pixels, dst);
    return cudaGetLastError();
}
cudaError_t launch_pack_accumulation_surface(const DeviceFramebuffer& fb, int width, int height, cudaSurfaceObject_t surface,
                                             cudaStream_t stream) {
    dim3 block(32, 8);
    dim3 grid((width + 31) / 32, (height + 7) / 8);
    pack_accumulation_surface_kernel<<<grid, block, 0, stream>>>(fb, width, height, surface);
    return cudaGetLastError();
}

cudaError_t launch_megakernel(const WavefrontParams& p, cudaStream_t stream) {
    megakernel<<<grid_for(p.capacity), kWavefrontThreads, 0, stream>>>(p);
    return cudaGetLastError();
}

}  // namespace pkrt
