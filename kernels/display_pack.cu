// Display: the accumulation (radiance sums and sample counts) packed as RGBA32F for the viewer, into a
// buffer or straight into a GL texture mapped into CUDA. rgb = radiance sum, a = samples: the display
// pass divides, so a pixel's colour and count always come from the same samples.
#include "gpu_launch.h"

namespace pkrt {

namespace {

__global__ void pack_accumulation_kernel(DeviceFramebuffer fb, uint32_t pixels, float4* dst) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
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

}  // namespace

cudaError_t launch_pack_accumulation(const DeviceFramebuffer& fb, uint32_t pixels, float4* dst, cudaStream_t stream) {
    constexpr unsigned kThreads = 256;
    pack_accumulation_kernel<<<(pixels + kThreads - 1) / kThreads, kThreads, 0, stream>>>(fb, pixels, dst);
    return cudaGetLastError();
}

cudaError_t launch_pack_accumulation_surface(const DeviceFramebuffer& fb, int width, int height, cudaSurfaceObject_t surface,
                                             cudaStream_t stream) {
    dim3 block(32, 8);
    dim3 grid((width + 31) / 32, (height + 7) / 8);
    pack_accumulation_surface_kernel<<<grid, block, 0, stream>>>(fb, width, height, surface);
    return cudaGetLastError();
}

}  // namespace pkrt
