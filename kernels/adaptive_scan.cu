// Adaptive sampling between rounds, on the device: which tiles need more samples (the rule of
// kernels/adaptive.h, the same function the CPU backend calls), and the next round's work list of their
// pixels, compacted, with what the next round's size depends on. Only the scan's five counts go to
// the host; the list stays in device memory for the round's frame record.
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

// One block per tile, one thread per pixel of it.
__global__ void adaptive_scan_kernel(DeviceFramebuffer fb, const float* odd_sums, int width, int height, AdaptiveRule rule, WorkPixel* work,
                                     AdaptiveScan* out) {
    __shared__ bool needs;
    __shared__ unsigned base;
    int tiles_x = (width + kAdaptiveTile - 1) / kAdaptiveTile;
    int tx = static_cast<int>(blockIdx.x) % tiles_x, ty = static_cast<int>(blockIdx.x) / tiles_x;
    int x0 = tx * kAdaptiveTile, y0 = ty * kAdaptiveTile;
    int tw = min(kAdaptiveTile, width - x0), th = min(kAdaptiveTile, height - y0);
    int lx = static_cast<int>(threadIdx.x) % kAdaptiveTile, ly = static_cast<int>(threadIdx.x) / kAdaptiveTile;
    bool inside = lx < tw && ly < th;
    uint32_t pixel = static_cast<uint32_t>(y0 + ly) * static_cast<uint32_t>(width) + static_cast<uint32_t>(x0 + lx);
    uint32_t count = inside ? fb.samples[pixel] : 0u;
    const EvenAndOddSums sums{fb.radiance, odd_sums};
    bool converged = false;
    if (inside) {
        Vec3 all, odd;
        sums(pixel, &all, &odd);
        converged = count >= rule.max_spp || pixel_error(all, odd, count) <= rule.target_error;
    }
    unsigned done = __syncthreads_count(converged);
    if (threadIdx.x == 0) {
        if (done) atomicAdd(&out->converged_pixels, done);
        needs = tile_needs_samples(tx, ty, width, height, sums, fb.samples, rule);
        if (needs) {
            base = atomicAdd(&out->work_pixels, static_cast<unsigned>(tw * th));
            atomicAdd(&out->tiles, 1u);
            atomicMin(&out->least_count, count);  // every pixel of a tile has its tile's count
            atomicMin(&out->least_room, rule.max_spp - count);
        }
    }
    __syncthreads();
    if (needs && inside) work[base + ly * tw + lx] = WorkPixel{pixel, count};
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
                                 WorkPixel* work, AdaptiveScan* out, cudaStream_t stream) {
    unsigned tiles = static_cast<unsigned>(((width + kAdaptiveTile - 1) / kAdaptiveTile) * ((height + kAdaptiveTile - 1) / kAdaptiveTile));
    adaptive_scan_kernel<<<tiles, kTilePixels, 0, stream>>>(fb, odd_sums, width, height, rule, work, out);
    return cudaGetLastError();
}

}  // namespace pkrt
