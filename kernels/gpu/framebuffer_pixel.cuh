// A framebuffer pixel as the image shows it, for the kernels that read the accumulation (display
// packing, the denoised view's resolve).
#pragma once

#include "kernels/gpu/gpu_records.h"

namespace pkrt {

// The framebuffer's pixel index for pixel (x, y) of the image: of a row ceil(width / block) wide, a
// preview's pixels as blocks (RenderSettings::preview); block 1 is the pixel itself.
__device__ __forceinline__ size_t framebuffer_index(int x, int y, int width, int block) {
    return static_cast<size_t>(y / block) * ((width + block - 1) / block) + x / block;
}

// Radiance sum and samples of pixel (x, y). half > 0: the framebuffer's second half (adaptive rounds'
// odd-numbered samples) starts that many pixels on, and adds to the first.
__device__ __forceinline__ float4 packed_pixel(const DeviceFramebuffer& fb, int x, int y, int width, int block,
                                               size_t half) {
    size_t i = framebuffer_index(x, y, width, block);
    const float* r = fb.radiance + 3 * i;
    float4 p = make_float4(r[0], r[1], r[2], static_cast<float>(fb.samples[i]));
    if (half) {
        const float* o = r + 3 * half;
        p = make_float4(p.x + o[0], p.y + o[1], p.z + o[2], static_cast<float>(fb.samples[i] + fb.samples[i + half]));
    }
    return p;
}

}  // namespace pkrt
