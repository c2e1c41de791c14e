// The denoiser on a CUDA device (kernels/gpu/denoise.cu): the image and its features uploaded, the
// steps of kernels/denoise.h as kernels, the result read back.
#pragma once

#include <cuda_runtime.h>

#include <memory>
#include <string>

#include "kernels/denoise_steps.h"
#include "render/cuda/device_memory.h"
#include "render/denoise/denoiser.h"
#include "render/devices.h"

namespace pkrt {

std::unique_ptr<Denoiser> make_cuda_denoiser(const GpuDevice& device);

namespace cuda {

// What the GPU's denoisers share (this one and the view's, gpu_view_denoiser.h): a stream, the steps'
// buffers in device memory, and the run of the steps over them: by the resident grid's warps where one
// holds the device (no kernel of ours would start beside it), else as kernels.
class DenoiseDevice {
public:
    explicit DenoiseDevice(const GpuDevice& device);
    ~DenoiseDevice();
    DenoiseDevice(const DenoiseDevice&) = delete;
    DenoiseDevice& operator=(const DenoiseDevice&) = delete;

    // Buffers for n pixels, grown as needed; true where they were allocated anew (their contents lost).
    // A free waits for every kernel, so a resident grid is ended first.
    bool reserve(size_t n);
    // The steps' buffers; guide and slope, and a view's steps (`view`, in device memory, with their
    // flags), are the caller's.
    DenoiseBuffers buffers(DenoiseGuide* guide, float* slope, const DenoiseViewSteps* view = nullptr,
                           bool resolve_first = false, bool temporal = false) const;
    // The steps over `b`, queued on stream() behind the inputs' uploads; returns whether the resident
    // grid made them. The filter's time, after the stream's work is waited for: filter_ms().
    bool run(const DenoiseBuffers& b, int width, int height, const DenoiseParams& params);
    // `color` and its features into the inputs, queued on stream().
    void upload(const Image& color, const FeatureImages& features);
    float filter_ms();
    cudaStream_t stream() const { return stream_; }
    const GpuDevice& gpu() const { return dev_; }
    std::string name() const { return "GPU " + std::to_string(dev_.index) + " (" + dev_.name + ")"; }
    Vec3* color() const { return color_.get(); }
    Vec3* albedo() const { return albedo_.get(); }
    Vec3* normal() const { return normal_.get(); }
    Vec3* depth() const { return depth_.get(); }
    Vec3* out() const { return out_.get(); }

private:
    GpuDevice dev_;
    cudaStream_t stream_ = nullptr;
    cudaEvent_t start_ = nullptr, end_ = nullptr;
    size_t pixels_ = 0;
    DeviceArray<Vec3> color_, albedo_, normal_, depth_, out_;
    DeviceArray<DenoiseTexel> a_, b_;
    DeviceArray<float> smooth_;
    bool by_grid_ = false;
    float grid_ms_ = 0.0f;
};

}  // namespace cuda

}  // namespace pkrt
