// Host-callable entry point of the denoiser's kernels (kernels/gpu/denoise.cu), apart from gpu_launch.h so
// that the rendering kernels do not depend on the denoiser.
#pragma once

#include <cuda_runtime.h>

#include "kernels/denoise_steps.h"

namespace pkrt {

// The steps of kernels/denoise_steps.h, a kernel each, on `stream`.
cudaError_t launch_denoise(const DenoiseBuffers& b, int width, int height, const DenoiseParams& params,
                           cudaStream_t stream);

}  // namespace pkrt
