// The CUDA backend's knobs beyond the generic Backend interface: scheduler mode, queue and grid sizes.
// Only built with CUDA; tests and benchmarks use it to exercise the scheduler's corner cases.
#pragma once

#include <memory>

#include "backend.h"
#include "devices.h"

namespace pkrt {

struct CudaOptions {
    std::string mode = "persistent";     // persistent | relaunch | graph | megakernel
    uint32_t queue_capacity = 0;         // path and shadow queue slots (power of two); 0 = automatic
    int persistent_blocks = 0;           // 0 = every block that can be co-resident; more is refused
    int fetch_threshold = 16;            // dynamic fetch: refill when fewer lanes than this are busy
    int push_continuations = 1;          // persistent: bounces through the queue (1) or kept in lane (0)
    uint32_t wave_capacity = 1u << 21;   // relaunch/graph/megakernel: paths per wave
};

std::unique_ptr<Backend> make_cuda_backend(const GpuDevice& device, const CudaOptions& options = {});

}  // namespace pkrt
