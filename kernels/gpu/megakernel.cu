// The megakernel: one thread per path, start to end, the same stages with no queue between them.
// Lanes leave the loop one by one; the warp-collective counters count the lanes still inside.
#include "kernels/gpu/gpu_common.cuh"
#include "kernels/gpu/gpu_launch.h"

namespace pkrt {

namespace {

// Three blocks of 256 threads per SM need at most 80 registers a thread (85, rounded down to the
// allocation unit of 8); at 81 only two fit, and the kernel ran 20-28% slower (H200, Cornell and Crytek
// Sponza at 1080p) when the glTF material inputs and environment maps grew shading past that line.
template <BvhViewLayout L, bool kFull>
__global__ void __launch_bounds__(kWavefrontThreads, 3) megakernel(WavefrontParams p) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    const WaveParams w = *p.wave;
    if (blockIdx.x * blockDim.x >= w.count) return;
    const FrameRecord f = *p.frame;  // a copy: the out-of-line shading reads it from the stack, not through a live pointer
    FramebufferSink sink{p.fb};
    RayCounts& counts = p.counters->rays;
    bool active = i < w.count;
    PathState path;
    if (active) path = generate_path(f, path_index(f, w.first_index + i));
    if (i == 0) atomicAdd(&counts.paths_generated, static_cast<unsigned long long>(w.count));
    while (__any_sync(kFullMask, active)) {
        Hit hit = no_hit();
        // The full build tests cut-outs, used or not: inline, a branch between the two loops would keep both.
        if (active) hit = LayoutTraversal<L, kFull>::closest(p.scene, Ray{path.origin, path.dir});
        count_sm_rays(p.counters, count_extension_rays(counts, active, active ? path.depth : 0));
        ShadeResult r;
        r.has_shadow = false;
        r.continues = false;
        r.dropped = false;
        uint32_t pixel = active ? path.pixel : 0;
        if (active) {
            shade_path_outlined<kFull>(p.scene, f, path, hit, r);
            sink.add(pixel, r.radiance);
            if (r.has_shadow) resolve_shadow<LayoutTraversal<L, kFull>>(sink, p.scene, r.shadow);
        }
        unsigned shadows = popc_ballot(active && r.has_shadow);
        count_shadow_rays(counts, shadows);
        count_sm_rays(p.counters, shadows);
        finish_samples(sink, counts, active && !r.continues, pixel);
        count_dropped(counts, r.dropped);
        active = active && r.continues;
    }
}

}  // namespace

cudaError_t launch_megakernel(const WavefrontParams& p, cudaStream_t stream) {
    unsigned blocks = (p.capacity + kWavefrontThreads - 1) / kWavefrontThreads;
    return with_scene_build(p.scene, p.scene.full_shading != 0, [&](auto layout, auto full) {
        megakernel<layout.value, full.value><<<blocks, kWavefrontThreads, 0, stream>>>(p);
        return cudaGetLastError();
    });
}

}  // namespace pkrt
