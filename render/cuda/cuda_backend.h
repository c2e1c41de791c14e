// The CUDA backend, built only with CUDA. Tests and benchmarks pass scheduler options directly to
// exercise corner cases; everything else goes through make_backend() and `--set`.
#pragma once

#include <memory>

#include "render/backend.h"
#include "kernels/gpu/gpu_records.h"
#include "render/devices.h"

namespace pkrt {

std::unique_ptr<Backend> make_cuda_backend(const GpuDevice& device, const SchedulerOptions& options = {});

// One GPU's part of a render on several (multi_gpu_backend.cpp): a CUDA backend whose next persistent
// frame may take its paths in chunks shared with other grids. The caller makes its device current
// (cudaSetDevice) before every call.
class CudaWorker : public Backend {
public:
    virtual const GpuDevice& gpu() const = 0;
    virtual void share_next_frame(const SharedFrame& shared) = 0;
};
std::unique_ptr<CudaWorker> make_cuda_worker(const GpuDevice& device, const SchedulerOptions& options = {});

// Workers on `devices` (an index twice: two workers on that GPU, each with its own grid and
// framebuffer), one image: persistent frames shared through a chunk counter on the first GPU, the
// other modes in chunks of samples handed out by the host; sums and counts added up.
std::unique_ptr<Backend> make_multi_gpu_backend(const std::vector<GpuDevice>& devices,
                                                const SchedulerOptions& options = {});

// The persistent kernel's builds, as resident blocks per SM (the values of --set blocks_per_sm).
std::vector<int> persistent_builds();

}  // namespace pkrt
