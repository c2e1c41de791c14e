// The denoiser on a CUDA device (kernels/gpu/denoise.cu): the image and its features uploaded, the
// steps of kernels/denoise.h as kernels, the result read back.
#pragma once

#include <memory>

#include "render/denoise/denoiser.h"
#include "render/devices.h"

namespace pkrt {

std::unique_ptr<Denoiser> make_cuda_denoiser(const GpuDevice& device);

}  // namespace pkrt
