// Host-callable entry point of the denoiser's kernels (kernels/gpu/denoise.cu), apart from gpu_launch.h so
// that the rendering kernels do not depend on the denoiser.
#pragma once

#include <cuda_runtime.h>

#include "kernels/denoise.h"

namespace pkrt {

struct DenoiseBuffers {
    DenoiseInputs in;     // the image and its features, width x height each
    DenoiseTexel *a, *b;  // ping-pong
    DenoiseGuide* guide;
    float* slope;
    float* smooth;  // the first pass's luminance (denoise_variance)
    Vec3* out;
};
// The steps of kernels/denoise.h, a kernel each, on `stream`.
cudaError_t launch_denoise(const DenoiseBuffers& b, int width, int height, const DenoiseParams& params,
                           cudaStream_t stream);

}  // namespace pkrt
