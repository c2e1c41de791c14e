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
    int fetch_threshold = 24;            // dynamic fetch: refill when fewer lanes than this are busy
    int push_continuations = 0;          // persistent: every bounce through the queue (1), or kept in
                                         // its lane and pooled through the queue at the frame's end (0)
    int queue_shadows = 1;               // persistent: shadow rays through their queue (1) or traced at once (0)
    int register_variant = 8;            // persistent: compiled register cap, as blocks per SM (4, 6 or 8)
    int timeline = 1;                    // persistent: sample the queue-depth timeline
    int poll_stop = 1;                   // persistent: poll the host's stop flag (cancellation)
    uint32_t wave_capacity = 1u << 21;   // relaunch/graph/megakernel: paths per wave
};

std::unique_ptr<Backend> make_cuda_backend(const GpuDevice& device, const CudaOptions& options = {});

// Defaults, with the developer overrides PKRT_FETCH_THRESHOLD, PKRT_PUSH_CONTINUATIONS,
// PKRT_QUEUE_SHADOWS, PKRT_QUEUE_CAPACITY, PKRT_REGISTER_VARIANT and PKRT_TIMELINE from the environment (for scheduler experiments).
CudaOptions cuda_options_from_environment();

}  // namespace pkrt
