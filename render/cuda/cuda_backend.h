// The CUDA backend, built only with CUDA. Tests and benchmarks pass scheduler options directly to
// exercise corner cases; everything else goes through make_backend() and `--set`.
#pragma once

#include <memory>

#include "render/backend.h"
#include "render/devices.h"

namespace pkrt {

std::unique_ptr<Backend> make_cuda_backend(const GpuDevice& device, const SchedulerOptions& options = {});

// The persistent kernel's builds, as resident blocks per SM (the values of --set blocks_per_sm).
std::vector<int> persistent_builds();

}  // namespace pkrt
