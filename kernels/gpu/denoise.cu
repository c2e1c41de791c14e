// The denoiser's steps (kernels/denoise_steps.h) as kernels, one thread per pixel, launched in sequence on
// one stream.
#include "kernels/gpu/denoise_launch.h"
#include "kernels/gpu/framebuffer_pixel.cuh"

namespace pkrt {

namespace {

constexpr int kDenoiseThreads = 16;  // 16x16 blocks: neighbours in both directions share cache lines

template <DenoiseStep K>
__global__ void denoise_step_kernel(DenoiseBuffers b, int w, int h, DenoiseParams params, int step) {
    int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    const bool reused = x < w && y < h && denoise_step_as<K>(b, w, h, params, step, x, y);
    if constexpr (K == DenoiseStep::kTemporal) {  // one atomic a warp
        const unsigned took = __ballot_sync(0xffffffffu, reused);
        if (took && (threadIdx.y * blockDim.x + threadIdx.x) % 32 == 0 && b.view->temporal.reused)
            atomicAdd(b.view->temporal.reused, static_cast<unsigned>(__popc(took)));
    }
}

__global__ void resolve_for_denoise_kernel(DeviceFramebuffer fb, int w, int h, int block, size_t half,
                                           DenoiseResolveTo out) {
    int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= w || y >= h) return;
    const float4 p = packed_pixel(fb, x, y, w, block, half);
    denoise_resolve_pixel(out, static_cast<size_t>(y) * w + x, Vec3{p.x, p.y, p.z}, p.w,
                          fb.features + kFeatureFloats * framebuffer_index(x, y, w, block));
}

}  // namespace

cudaError_t launch_resolve_for_denoise(const DeviceFramebuffer& fb, int width, int height, int block, size_t half,
                                       const DenoiseResolveTo& out, cudaStream_t stream) {
    dim3 threads(32, 8);
    dim3 grid((width + 31) / 32, (height + 7) / 8);
    resolve_for_denoise_kernel<<<grid, threads, 0, stream>>>(fb, width, height, block, half, out);
    return cudaGetLastError();
}

cudaError_t launch_denoise(const DenoiseBuffers& b, int width, int height, const DenoiseParams& params,
                           cudaStream_t stream) {
    dim3 block(kDenoiseThreads, kDenoiseThreads);
    dim3 grid((width + kDenoiseThreads - 1) / kDenoiseThreads, (height + kDenoiseThreads - 1) / kDenoiseThreads);
    for (int step = 0; step < denoise_step_count(b, params); ++step)
        with_denoise_step_kind(step, b, [&](auto kind) {
            denoise_step_kernel<decltype(kind)::value><<<grid, block, 0, stream>>>(b, width, height, params, step);
        });
    return cudaGetLastError();
}

}  // namespace pkrt
