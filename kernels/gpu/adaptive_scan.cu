// Adaptive sampling's steps as kernels of their own, queued behind a round's frame by every mode but
// resident (which runs the same warp functions itself, kernels/gpu/resident.cuh): the scan and the fill of
// kernels/gpu/adaptive_scan.cuh, and the sum of the framebuffer's halves.
#include "kernels/gpu/adaptive_scan.cuh"
#include "kernels/gpu/gpu_launch.h"

namespace pkrt {

namespace {

constexpr int kScanWarps = 4;  // tiles per block

__global__ void adaptive_scan_kernel(AdaptiveDevice* a, unsigned tiles) {
    unsigned t = blockIdx.x * kScanWarps + threadIdx.x / 32;
    if (t < tiles) adaptive_scan_tile(a, t);
}

__global__ void adaptive_fill_kernel(AdaptiveDevice* a, unsigned tiles) {
    unsigned t = blockIdx.x * kScanWarps + threadIdx.x / 32;
    if (t < tiles) adaptive_fill_tile(a, t);
}

__global__ void adaptive_combine_kernel(DeviceFramebuffer fb, uint32_t pixels) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= pixels) return;
    for (int c = 0; c < 3; ++c) fb.radiance[3 * i + c] += fb.radiance[3 * (i + pixels) + c];
    fb.samples[i] += fb.samples[i + pixels];
}

unsigned scan_blocks(unsigned tiles) { return (tiles + kScanWarps - 1) / kScanWarps; }

}  // namespace

cudaError_t launch_adaptive_scan(AdaptiveDevice* a, int width, int height, cudaStream_t stream) {
    unsigned tiles = static_cast<unsigned>(adaptive_tiles(width) * adaptive_tiles(height));
    adaptive_scan_kernel<<<scan_blocks(tiles), 32 * kScanWarps, 0, stream>>>(a, tiles);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return e;
    adaptive_fill_kernel<<<scan_blocks(tiles), 32 * kScanWarps, 0, stream>>>(a, tiles);
    return cudaGetLastError();
}

cudaError_t launch_adaptive_combine(const DeviceFramebuffer& fb, int width, int height, cudaStream_t stream) {
    uint32_t pixels = static_cast<uint32_t>(width) * static_cast<uint32_t>(height);
    adaptive_combine_kernel<<<(pixels + 255) / 256, 256, 0, stream>>>(fb, pixels);
    return cudaGetLastError();
}

}  // namespace pkrt
