// Display: the accumulation (radiance sums and sample counts) packed as RGBA32F for the viewer, into a
// buffer or straight into a GL texture mapped into CUDA. rgb = radiance sum, a = samples: the display
// pass divides, so a pixel's colour and count always come from the same samples.
#include "kernels/gpu/framebuffer_pixel.cuh"
#include "kernels/gpu/gpu_launch.h"

namespace pkrt {

namespace {

__global__ void pack_accumulation_kernel(DeviceFramebuffer fb, int width, int height, int block, size_t half,
                                         float4* dst) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= static_cast<uint32_t>(width) * static_cast<uint32_t>(height)) return;
    dst[i] = packed_pixel(fb, static_cast<int>(i % width), static_cast<int>(i / width), width, block, half);
}

__global__ void pack_accumulation_surface_kernel(DeviceFramebuffer fb, int width, int height, int block, size_t half,
                                                 cudaSurfaceObject_t surface) {
    int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= width || y >= height) return;
    surf2Dwrite(packed_pixel(fb, x, y, width, block, half), surface, x * static_cast<int>(sizeof(float4)), y);
}

__global__ void pack_rgb_kernel(const Vec3* rgb, uint32_t pixels, float4* dst) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < pixels) dst[i] = make_float4(rgb[i].x, rgb[i].y, rgb[i].z, 1.0f);
}

__global__ void pack_rgb_surface_kernel(const Vec3* rgb, int width, int height, cudaSurfaceObject_t surface) {
    int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= width || y >= height) return;
    const Vec3 c = rgb[static_cast<size_t>(y) * width + x];
    surf2Dwrite(make_float4(c.x, c.y, c.z, 1.0f), surface, x * static_cast<int>(sizeof(float4)), y);
}

}  // namespace

cudaError_t launch_pack_rgb(const Vec3* rgb, int width, int height, float4* dst, cudaStream_t stream) {
    constexpr unsigned kThreads = 256;
    uint32_t pixels = static_cast<uint32_t>(width) * static_cast<uint32_t>(height);
    pack_rgb_kernel<<<(pixels + kThreads - 1) / kThreads, kThreads, 0, stream>>>(rgb, pixels, dst);
    return cudaGetLastError();
}

cudaError_t launch_pack_rgb_surface(const Vec3* rgb, int width, int height, cudaSurfaceObject_t surface,
                                    cudaStream_t stream) {
    dim3 threads(32, 8);
    dim3 grid((width + 31) / 32, (height + 7) / 8);
    pack_rgb_surface_kernel<<<grid, threads, 0, stream>>>(rgb, width, height, surface);
    return cudaGetLastError();
}

cudaError_t launch_pack_accumulation(const DeviceFramebuffer& fb, int width, int height, int block, size_t half,
                                     float4* dst, cudaStream_t stream) {
    constexpr unsigned kThreads = 256;
    uint32_t pixels = static_cast<uint32_t>(width) * static_cast<uint32_t>(height);
    pack_accumulation_kernel<<<(pixels + kThreads - 1) / kThreads, kThreads, 0, stream>>>(fb, width, height, block,
                                                                                          half, dst);
    return cudaGetLastError();
}

cudaError_t launch_pack_accumulation_surface(const DeviceFramebuffer& fb, int width, int height, int block, size_t half,
                                             cudaSurfaceObject_t surface, cudaStream_t stream) {
    dim3 threads(32, 8);
    dim3 grid((width + 31) / 32, (height + 7) / 8);
    pack_accumulation_surface_kernel<<<grid, threads, 0, stream>>>(fb, width, height, block, half, surface);
    return cudaGetLastError();
}

}  // namespace pkrt
