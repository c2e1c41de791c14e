// Host-callable entry point of the denoiser's kernels (kernels/gpu/denoise.cu), apart from gpu_launch.h so
// that the rendering kernels do not depend on the denoiser.
#pragma once

#include <cuda_runtime.h>

#include "kernels/denoise_steps.h"
#include "kernels/gpu/gpu_records.h"

namespace pkrt {

// The steps of kernels/denoise_steps.h, a kernel each, on `stream`.
cudaError_t launch_denoise(const DenoiseBuffers& b, int width, int height, const DenoiseParams& params,
                           cudaStream_t stream);

// The framebuffer's width x height image (block, half: as launch_pack_accumulation reads them) resolved
// into `out`, as resolve_accumulation and resolve_features resolve it on the host.
cudaError_t launch_resolve_for_denoise(const DeviceFramebuffer& fb, int width, int height, int block, size_t half,
                                       const DenoiseResolveTo& out, cudaStream_t stream);

}  // namespace pkrt
