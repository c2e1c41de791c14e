// Host-callable entry points of the learned denoiser's kernels (kernels/gpu/unet.cu): the U-Net of
// render/denoise/unet.h on tensor cores. Tensors are fp16, pixel-major (NHWC) with their channels padded
// to a multiple of 16 (the padding channels hold zeros); a convolution is an implicit GEMM of 16x16x16
// fp16 tiles with fp32 sums.
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "kernels/vec3.h"

namespace pkrt {

// Channels a tensor of `c` channels takes in memory.
inline constexpr int unet_padded_channels(int c) { return (c + 15) / 16 * 16; }

// A 3x3 convolution, zero padded, over the concatenation of `a` (upsampled 2x, nearest, where `a_up`)
// and `b` (none where b is null), height x width pixels (multiples of 16). Weights: per 16-channel chunk
// of the padded input, per tap (ky * 3 + kx), [16 input channels][out_channels], fp16; bias fp32
// [out_channels]; out_channels padded. ReLU where `relu`; a 2x2 max pool of the result where `pool`
// (`out` is then height/2 x width/2).
struct UnetConv {
    const __half* a = nullptr;
    int a_channels = 0;
    bool a_up = false;
    const __half* b = nullptr;
    int b_channels = 0;
    int height = 0, width = 0;
    const __half* weights = nullptr;
    const float* bias = nullptr;
    int out_channels = 0;
    __half* out = nullptr;
    float* out_float = nullptr;  // in place of `out` (no pool): the last layer's, kept in fp32 for the curve
    bool relu = true, pool = false;
};
cudaError_t launch_unet_conv(const UnetConv& c, cudaStream_t stream);

// The transfer of render/denoise/unet.h: y = scale * ln(1 + min(x, max_input)) of the exposed colour.
struct UnetCurveParams {
    float exposure = 1.0f, scale = 1.0f, max_input = 65504.0f;
    bool residual = false;  // the output adds to the input colour's curve value (unet_weights.h)
};

// The network's input for pixels [x0, x0 + width) x [y0, y0 + height) of an image_width x image_height
// image (zero outside it): colour through the curve, then albedo clamped to [0, 1] and normal to [-1, 1]
// where given (null: not an input), into `out` (16 channels a pixel).
struct UnetInputArgs {
    const Vec3* color = nullptr;
    const Vec3* albedo = nullptr;
    const Vec3* normal = nullptr;
    int image_width = 0, image_height = 0;
    int x0 = 0, y0 = 0, width = 0, height = 0;
    UnetCurveParams curve;
    __half* out = nullptr;
};
cudaError_t launch_unet_input(const UnetInputArgs& a, cudaStream_t stream);

// The network's output `net` (channels padded to 16, of a tile width x height whose corner is (x0, y0))
// through the inverse curve (kernels/unet_curve.h: unet_curve_output, with `color`, the input image) and
// divided by the exposure, into the image's pixels [tx0, tx1) x [ty0, ty1).
struct UnetOutputArgs {
    const float* net = nullptr;
    const Vec3* color = nullptr;
    int width = 0, x0 = 0, y0 = 0;
    int tx0 = 0, ty0 = 0, tx1 = 0, ty1 = 0;
    int image_width = 0;
    UnetCurveParams curve;
    Vec3* out = nullptr;
};
cudaError_t launch_unet_output(const UnetOutputArgs& a, cudaStream_t stream);

}  // namespace pkrt
