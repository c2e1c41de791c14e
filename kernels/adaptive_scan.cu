// Adaptive sampling between rounds, on the device: which tiles need more samples (the rule of
// kernels/adaptive.h, the same functions the CPU backend calls), and the next round's work list of
// their pixels, compacted class after class. Only the scan's counts go to the host; the list stays in
// device memory for the round's frame records.
#include "adaptive.h"
#include "gpu_launch.h"

namespace pkrt {

namespace {

constexpr int kTilePixels = kAdaptiveTile * kAdaptiveTile;

// During the rounds the framebuffer's radiance holds the even-numbered samples' sums, `odd` the odd
// ones' (a round is two frames, one into each).
struct EvenAndOddSums {
    const float* even;
    const float* odd;
    __device__ void operator()(size_t p, Vec3* all, Vec3* o) const {
        *o = Vec3{odd[3 * p], odd[3 * p + 1], odd[3 * p + 2]};
        *all = Vec3{even[3 * p], even[3 * p + 1], even[3 * p + 2]} + *o;
    }
};

struct TileGeometry {
    int tx, ty, x0, y0, tw, th, lx, ly;
    bool inside;
    uint32_t pixel;
    __device__ TileGeometry(int width, int height) {
        int tiles_x = adaptive_tiles(width);
        tx = static_cast<int>(blockIdx.x) % tiles_x;
        ty = static_cast<int>(blockIdx.x) / tiles_x;
        x0 = tx * kAdaptiveTile;
        y0 = ty * kAdaptiveTile;
        tw = min(kAdaptiveTile, width - x0);
        th = min(kAdaptiveTile, height - y0);
        lx = static_cast<int>(threadIdx.x) % kAdaptiveTile;
        ly = static_cast<int>(threadIdx.x) / kAdaptiveTile;
        inside = lx < tw && ly < th;
        pixel = static_cast<uint32_t>(y0 + ly) * static_cast<uint32_t>(width) + static_cast<uint32_t>(x0 + lx);
    }
};

// One block per tile, one thread per pixel of it: converged pixels, and the tile's class (-1: done).
__global__ void adaptive_scan_kernel(DeviceFramebuffer fb, const float* odd_sums, int width, int height, AdaptiveRule rule,
                                     int* tile_class, AdaptiveScan* out) {
    const TileGeometry g(width, height);
    const EvenAndOddSums sums{fb.radiance, odd_sums};
    uint32_t count = g.inside ? fb.samples[g.pixel] : 0u;
    bool converged = false;
    if (g.inside) {
        Vec3 all, odd;
        sums(g.pixel, &all, &odd);
        converged = pixel_converged(all, odd, count, rule);
    }
    unsigned done = __syncthreads_count(converged);
    if (threadIdx.x != 0) return;
    if (done) atomicAdd(&out->converged_pixels, done);
    int c = -1;
    if (tile_needs_samples(g.tx, g.ty, width, height, sums, fb.samples, rule)) {
        c = adaptive_class(adaptive_tile_samples(count, rule.max_spp));  // thread 0's pixel is inside
        atomicAdd(&out->class_pixels[c], static_cast<unsigned>(g.tw * g.th));
        atomicAdd(&out->work_pixels, static_cast<unsigned>(g.tw * g.th));
        atomicAdd(&out->tiles, 1u);
    }
    tile_class[blockIdx.x] = c;
}

// The work list, class after class: each tile that needs samples appends its pixels to its class's part.
__global__ void adaptive_fill_kernel(const uint32_t* samples, int width, int height, const int* tile_class, WorkPixel* work,
                                     AdaptiveScan* out) {
    __shared__ unsigned base;
    const int c = tile_class[blockIdx.x];
    if (c < 0) return;
    const TileGeometry g(width, height);
    if (threadIdx.x == 0) {
        unsigned offset = 0;
        for (int k = 0; k < c; ++k) offset += out->class_pixels[k];
        base = offset + atomicAdd(&out->class_fill[c], static_cast<unsigned>(g.tw * g.th));
    }
    __syncthreads();
    if (g.inside) work[base + g.ly * g.tw + g.lx] = WorkPixel{g.pixel, samples[g.pixel]};
}

__global__ void adaptive_combine_kernel(float* radiance, const float* odd_sums, uint32_t floats) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < floats) radiance[i] += odd_sums[i];
}

}  // namespace

cudaError_t launch_adaptive_combine(const DeviceFramebuffer& fb, const float* odd_sums, int width, int height, cudaStream_t stream) {
    uint32_t floats = 3u * static_cast<uint32_t>(width) * static_cast<uint32_t>(height);
    adaptive_combine_kernel<<<(floats + 255) / 256, 256, 0, stream>>>(fb.radiance, odd_sums, floats);
    return cudaGetLastError();
}

cudaError_t launch_adaptive_scan(const DeviceFramebuffer& fb, const float* odd_sums, int width, int height, const AdaptiveRule& rule,
                                 int* tile_class, WorkPixel* work, AdaptiveScan* out, cudaStream_t stream) {
    unsigned tiles = static_cast<unsigned>(adaptive_tiles(width) * adaptive_tiles(height));
    adaptive_scan_kernel<<<tiles, kTilePixels, 0, stream>>>(fb, odd_sums, width, height, rule, tile_class, out);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return e;
    adaptive_fill_kernel<<<tiles, kTilePixels, 0, stream>>>(fb.samples, width, height, tile_class, work, out);
    return cudaGetLastError();
}

}  // namespace pkrt
