// The megakernel: one thread per path, start to end, the same stages with no queue between them.
// Lanes leave the loop one by one; the warp-collective counters count the lanes still inside.
#include "kernels/gpu/gpu_common.cuh"
#include "kernels/gpu/gpu_launch.h"

namespace pkrt {

namespace {

// The megakernel's Step (kernels/path_stages.h): the layout's traversal inline, the shading out of
// line, shadow rays traced at once. kFeatures: whether the frame keeps feature buffers; a build without
// them carries none of their code.
template <BvhViewLayout L, bool kFull, bool kFeatures> struct MegaStep {
    const WavefrontParams& p;
    const FrameRecord& f;
    FramebufferSink sink;
    RayCounts& counts;
    uint32_t pixel = 0;  // held across the out-of-line shading, for the sample's end
    // The full build tests cut-outs, used or not: inline, a branch between the two loops would keep both.
    __device__ __forceinline__ Hit closest(const Ray& ray) { return LayoutTraversal<L, kFull>::closest(p.scene, ray); }
    __device__ __forceinline__ void extended(bool active, const PathState& path) {
        count_sm_rays(p.counters, count_extension_rays(counts, active, active ? path.depth : 0));
    }
    __device__ __forceinline__ void shade(PathState& path, const Hit& hit, ShadeResult& r) {
        pixel = path.pixel;
        if constexpr (kFeatures) {
            shade_path_outlined<kFull>(p.scene, f, path, hit, r, sink);
        } else {
            NoFeatures none;
            shade_path_outlined<kFull>(p.scene, f, path, hit, r, none);
        }
    }
    // Counted with the sample's end, after the shadow ray: counted here, between shading and the shadow
    // ray's trace, it made the 80-register build spill (BENCHMARKS.md, session 26).
    bool dropped_flag = false;
    __device__ __forceinline__ void dropped(bool d) { dropped_flag = d; }
    __device__ __forceinline__ void shadow(bool want, const ShadowRay& s, int) {
        if (want) resolve_shadow<LayoutTraversal<L, kFull>>(sink, p.scene, s);
        unsigned n = popc_ballot(want);
        count_shadow_rays(counts, n);
        count_sm_rays(p.counters, n);
    }
    __device__ __forceinline__ void finish(bool ended, const PathState&) {
        finish_samples(sink, counts, ended, pixel);
        count_dropped(counts, dropped_flag);
    }
};

// Three blocks of 256 threads per SM need at most 80 registers a thread (85, rounded down to the
// allocation unit of 8); at 81 only two fit, and the kernel ran much slower (BENCHMARKS.md,
// "Timings that left the code comments") when the glTF
// material inputs and environment maps grew shading past that line.
template <BvhViewLayout L, bool kFull, bool kFeatures>
__global__ void __launch_bounds__(kWavefrontThreads, 3) megakernel(WavefrontParams p) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    const WaveParams w = *p.wave;
    if (blockIdx.x * blockDim.x >= w.count) return;
    const FrameRecord f =
        *p.frame;  // a copy: the out-of-line shading reads it from the stack, not through a live pointer
    MegaStep<L, kFull, kFeatures> step{p, f, FramebufferSink{p.fb}, p.counters->rays};
    bool active = i < w.count;
    PathState path;
    if (active) path = generate_path(f, path_index(f, w.first_index + i));
    if (i == 0) atomicAdd(&step.counts.paths_generated, static_cast<unsigned long long>(w.count));
    // `&& active` though a lane without a path never continues: with it (and the dropped count moved, see
    // MegaStep) the 80 registers hold without spills.
    while (__any_sync(kFullMask, active)) active = advance_path(step, path, active) && active;
}

}  // namespace

cudaError_t launch_megakernel(const WavefrontParams& p, cudaStream_t stream) {
    unsigned blocks = (p.capacity + kWavefrontThreads - 1) / kWavefrontThreads;
    return with_build(p.scene.bvh.layout, p.scene.full_shading != 0, [&](auto layout, auto full) {
        return with_flag(p.fb.features != nullptr, [&](auto features) {
            megakernel<layout.value, full.value, features.value><<<blocks, kWavefrontThreads, 0, stream>>>(p);
            return cudaGetLastError();
        });
    });
}

}  // namespace pkrt
