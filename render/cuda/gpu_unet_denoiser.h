// The learned denoiser (render/denoise/unet.h) on a CUDA device: the image and its features uploaded, the
// network's layers as tensor-core kernels (kernels/gpu/unet.cu) over tiles of the image, the result read
// back. The same network, tiles and margins as the CPU's; activations are fp16 there, so the two agree
// to fp16's precision, not bit for bit.
#pragma once

#include <memory>

#include "render/denoise/denoiser.h"
#include "render/denoise/unet_weights.h"
#include "render/devices.h"

namespace pkrt {

// Tiles of `tile` x `tile` pixels with kUnetMargin around each (both rounded up to 16): the default
// takes a 1920x1080 image whole. Throws Error where `weights` do not fit the network.
inline constexpr int kGpuUnetDefaultTile = 2048;
std::unique_ptr<Denoiser> make_cuda_unet_denoiser(const GpuDevice& device, const UnetWeights& weights,
                                                  int tile = kGpuUnetDefaultTile);

}  // namespace pkrt
