// The denoiser's steps (kernels/denoise.h) as kernels, one thread per pixel, launched in sequence on one
// stream: prepare, slope, variance (with the first pass's smoothed luminance), the a-trous passes, finish.
#include "kernels/gpu/denoise_launch.h"

namespace pkrt {

namespace {

constexpr int kDenoiseThreads = 16;  // 16x16 blocks: neighbours in both directions share cache lines

__device__ __forceinline__ bool pixel_of_thread(int w, int h, int& x, int& y) {
    x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    return x < w && y < h;
}

__global__ void denoise_prepare_kernel(DenoiseBuffers b, int w, int h) {
    int x, y;
    if (!pixel_of_thread(w, h, x, y)) return;
    denoise_prepare(b.in, b.b, b.guide, static_cast<size_t>(y) * w + x);
}

__global__ void denoise_slope_kernel(DenoiseBuffers b, int w, int h) {
    int x, y;
    if (!pixel_of_thread(w, h, x, y)) return;
    b.slope[static_cast<size_t>(y) * w + x] = denoise_slope(b.guide, w, h, x, y);
}

__global__ void denoise_variance_kernel(DenoiseBuffers b, int w, int h, DenoiseParams params) {
    int x, y;
    if (!pixel_of_thread(w, h, x, y)) return;
    DenoiseFrame f{w, h, b.guide, b.slope, nullptr};
    size_t i = static_cast<size_t>(y) * w + x;
    b.a[i] = denoise_variance(b.b, f, x, y, params, &b.smooth[i]);
}

__global__ void denoise_atrous_kernel(const DenoiseTexel* in, DenoiseTexel* out, DenoiseBuffers b, int w, int h,
                                      int step, DenoiseParams params) {
    int x, y;
    if (!pixel_of_thread(w, h, x, y)) return;
    DenoiseFrame f{w, h, b.guide, b.slope, step == 1 ? b.smooth : nullptr};
    out[static_cast<size_t>(y) * w + x] = denoise_atrous(in, f, x, y, step, params);
}

__global__ void denoise_finish_kernel(const DenoiseTexel* in, DenoiseBuffers b, int w, int h) {
    int x, y;
    if (!pixel_of_thread(w, h, x, y)) return;
    size_t i = static_cast<size_t>(y) * w + x;
    b.out[i] = denoise_finish(in, b.in, i);
}

}  // namespace

cudaError_t launch_denoise(const DenoiseBuffers& b, int width, int height, const DenoiseParams& params,
                           cudaStream_t stream) {
    dim3 block(kDenoiseThreads, kDenoiseThreads);
    dim3 grid((width + kDenoiseThreads - 1) / kDenoiseThreads, (height + kDenoiseThreads - 1) / kDenoiseThreads);
    denoise_prepare_kernel<<<grid, block, 0, stream>>>(b, width, height);
    denoise_slope_kernel<<<grid, block, 0, stream>>>(b, width, height);
    denoise_variance_kernel<<<grid, block, 0, stream>>>(b, width, height, params);
    DenoiseTexel *in = b.a, *out = b.b;
    for (int it = 0; it < params.iterations; ++it) {
        denoise_atrous_kernel<<<grid, block, 0, stream>>>(in, out, b, width, height, 1 << it, params);
        DenoiseTexel* t = in;
        in = out;
        out = t;
    }
    denoise_finish_kernel<<<grid, block, 0, stream>>>(in, b, width, height);
    return cudaGetLastError();
}

}  // namespace pkrt
