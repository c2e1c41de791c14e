// The denoiser's steps (kernels/denoise_steps.h) as kernels, one thread per pixel, launched in sequence on
// one stream.
#include "kernels/gpu/denoise_launch.h"

namespace pkrt {

namespace {

constexpr int kDenoiseThreads = 16;  // 16x16 blocks: neighbours in both directions share cache lines

template <DenoiseStep K>
__global__ void denoise_step_kernel(DenoiseBuffers b, int w, int h, DenoiseParams params, int step) {
    int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    if (x < w && y < h) denoise_step_as<K>(b, w, h, params, step, x, y);
}

}  // namespace

cudaError_t launch_denoise(const DenoiseBuffers& b, int width, int height, const DenoiseParams& params,
                           cudaStream_t stream) {
    dim3 block(kDenoiseThreads, kDenoiseThreads);
    dim3 grid((width + kDenoiseThreads - 1) / kDenoiseThreads, (height + kDenoiseThreads - 1) / kDenoiseThreads);
    for (int step = 0; step < denoise_step_count(params); ++step)
        with_denoise_step_kind(step, params, [&](auto kind) {
            denoise_step_kernel<decltype(kind)::value><<<grid, block, 0, stream>>>(b, width, height, params, step);
        });
    return cudaGetLastError();
}

}  // namespace pkrt
