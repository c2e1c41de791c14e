// The learned denoiser's transfer curve (render/denoise/unet.h): one definition for the CPU's network and
// the GPU's input and output kernels (kernels/gpu/unet.cu), so that both take and give back the same
// values, NaN and infinity included.
#pragma once

#include <cmath>

#include "kernels/common.h"

namespace pkrt {

// y = scale * ln(1 + x) of the exposed radiance x, clamped to [0, max_input]; not finite: 0.
PKRT_HD float unet_curve_forward(float radiance, float scale, float max_input) {
    const float x = is_finite(radiance) ? fminf(fmaxf(radiance, 0.0f), max_input) : 0.0f;
    return scale * log1pf(x);
}

// Its inverse within [0, max_input], NaN to 0: whatever the network gives, the image stays finite. (The
// comparison keeps a NaN, which fminf would turn into the bound.)
PKRT_HD float unet_curve_inverse(float y, float scale, float max_input) {
    const float t = y / scale;
    const float x = expm1f(89.0f < t ? 89.0f : t);
    return x > 0.0f ? fminf(x, max_input) : 0.0f;
}

// The denoised exposed radiance from the network's output `y` at a pixel whose exposed input radiance is
// `input`: the inverse of y, or where the network is residual of y plus the input's curve value (in
// float32 from the colour itself, as training computes it, not from the network's rounded input).
PKRT_HD float unet_curve_output(float y, float input, bool residual, float scale, float max_input) {
    return unet_curve_inverse(residual ? y + unet_curve_forward(input, scale, max_input) : y, scale, max_input);
}

}  // namespace pkrt
