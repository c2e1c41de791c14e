// The denoised view on a CUDA device (render/denoise/view_denoiser.h): the backend's framebuffer
// resolved, blended with the history and filtered by kernels (kernels/gpu/denoise.cu), the history
// kept in device memory, and the result packed for the display on the device. Nothing crosses PCIe
// but a counter. Beside a resident grid, whose image is a snapshot the grid packed, the grid's warps
// make the steps (render/cuda/scheduler.h: denoise_in_resident_kernel), reading the snapshot where it
// lies, and the result comes back to host memory for the display's copy-engine path.
#pragma once

#include <cuda_runtime.h>

#include <memory>

#include "kernels/gpu/gpu_records.h"
#include "render/denoise/view_denoiser.h"
#include "render/devices.h"

namespace pkrt {

namespace cuda {

// An image kernels can read: a framebuffer as the display reads it (launch_pack_accumulation's
// arguments), or, with `snapshot` set, a resident grid's packed image (RGBA sums and samples, then the
// feature sums) in its snapshot slot in device memory, which kernels read in place.
struct DeviceAccumulation {
    DeviceFramebuffer fb{};
    int width = 0, height = 0, block = 1;
    size_t half = 0;
    const float *snapshot = nullptr, *snapshot_features = nullptr;
};

// What a CUDA backend lends its view denoiser.
class DeviceImageSource {
public:
    virtual ~DeviceImageSource() = default;
    // The last finished frame's image with its features, `stream` made to wait for the work that wrote
    // it. False where kernels cannot read it (a clear still to come, no grid of this backend's but one
    // holding the device) or it has no features: then Backend::accumulation reads it.
    virtual bool device_accumulation(DeviceAccumulation& out, cudaStream_t stream) const = 0;
};

}  // namespace cuda

std::unique_ptr<ViewDenoiser> make_cuda_view_denoiser(const GpuDevice& device, const cuda::DeviceImageSource& source);

}  // namespace pkrt
