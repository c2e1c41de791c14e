// Display: the accumulation (radiance sums and sample counts) packed as RGBA32F for the viewer, into a
// buffer or straight into a GL texture mapped into CUDA. rgb = radiance sum, a = samples: the display
// pass divides, so a pixel's colour and count always come from the same samples.
#include "kernels/gpu/gpu_launch.h"

namespace pkrt {

namespace {

// Pixel (x, y) of the image reads the framebuffer's pixel (x / block, y / block) of a row ceil(width /
// block) wide: a preview's pixels as blocks (RenderSettings::preview); block 1 is the pixel itself.
// half > 0: the framebuffer's second half (adaptive rounds' odd-numbered samples) starts that many
// pixels on, and adds to the first.
__device__ __forceinline__ float4 packed_pixel(const DeviceFramebuffer& fb, int x, int y, int width, int block,
                                               size_t half) {
    size_t i = static_cast<size_t>(y / block) * ((width + block - 1) / block) + x / block;
    const float* r = fb.radiance + 3 * i;
    float4 p = make_float4(r[0], r[1], r[2], static_cast<float>(fb.samples[i]));
    if (half) {
        const float* o = r + 3 * half;
        p = make_float4(p.x + o[0], p.y + o[1], p.z + o[2], static_cast<float>(fb.samples[i] + fb.samples[i + half]));
    }
    return p;
}

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

}  // namespace

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
