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

}  // namespace pkrt
