// Denoising an image with its feature buffers (kernels/denoise.h: a-trous guided by albedo, normal and
// depth, with SVGF's variance guidance). The CPU runs the per-pixel steps on its cores; a CUDA backend
// runs the same steps as kernels on its device (Backend::make_denoiser).
#pragma once

#include <memory>
#include <string>

#include "kernels/denoise.h"
#include "render/image/image.h"

namespace pkrt {

class Denoiser {
public:
    virtual ~Denoiser() = default;
    // Where it runs, for the log ("CPU, 8 threads", "GPU 0").
    virtual std::string device() const = 0;
    // The denoised image of `color` (the radiance), guided by `features` of the same size.
    virtual Image denoise(const Image& color, const FeatureImages& features, const DenoiseParams& params = {}) = 0;
    // The last denoise's filter time: the kernels' on a GPU (transfers apart), the steps' on the CPU.
    virtual double last_device_ms() const = 0;
};

std::unique_ptr<Denoiser> make_cpu_denoiser(unsigned threads = 0);
// The learned U-Net (render/denoise/unet.h) on the CPU: colour guided by albedo and normal, as the
// weights' input set says; DenoiseParams and depth are not used. Throws Error if `weights` do not fit.
struct UnetWeights;
std::unique_ptr<Denoiser> make_cpu_unet_denoiser(const UnetWeights& weights, unsigned threads = 0);

// An Error unless `features` are the size of `color` (internal: the caller resolved both).
void check_denoise_inputs(const Image& color, const FeatureImages& features);
// The pointers the per-pixel steps read (kernels/denoise.h).
DenoiseInputs denoise_inputs(const Image& color, const FeatureImages& features);

}  // namespace pkrt
