// The CUDA backend's knobs beyond the generic Backend interface: scheduler mode, queue and grid sizes.
// Only built with CUDA; tests and benchmarks use it to exercise the scheduler's corner cases.
#pragma once

#include <memory>
#include <vector>

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
    int queue_shadows = -1;              // persistent: shadow rays through their queue (1), traced where cast (0),
                                         // or -1: timed per configuration (render/policy_tuner.h)
    int register_variant = 0;            // persistent: compiled register cap, as blocks per SM (4, 6, 8 or 10);
                                         // 0 = per frame: 4 for frames that fit in one wave, else 10 or 8 (timed)
    int timeline = 1;                    // persistent: sample the queue-depth timeline
    int timeline_points = 1024;          // persistent: aim a frame's timeline at about this many points
    int pool_stragglers = -1;            // persistent: pool a warp's last few live paths through the queue, never
                                         // (0), at the frame's end (1), or always, generating only into empty
                                         // warps (2); -1: timed per configuration (0 or 2)
    int backoff_max_shift = 4;           // persistent: idle warps sleep at most 64 << this ns (4: 1 us)
    int smem_carveout = -1;              // persistent: preferred shared-memory share of L1 in percent; -1 = driver's choice
    int poll_stop = 1;                   // persistent: poll the host's stop flag (cancellation)
    uint32_t wave_capacity = 1u << 21;   // relaunch/graph/megakernel: paths per wave
};

// The register caps the persistent kernel is compiled for (CudaOptions::register_variant).
std::vector<int> persistent_register_variants();

std::unique_ptr<Backend> make_cuda_backend(const GpuDevice& device, const CudaOptions& options = {});

// Defaults, with developer overrides from the environment for scheduler experiments: PKRT_FETCH_THRESHOLD,
// PKRT_PUSH_CONTINUATIONS, PKRT_QUEUE_SHADOWS, PKRT_QUEUE_CAPACITY, PKRT_REGISTER_VARIANT, PKRT_TIMELINE,
// PKRT_TIMELINE_POINTS, PKRT_POOL_STRAGGLERS, PKRT_BACKOFF_MAX_SHIFT, PKRT_SMEM_CARVEOUT, PKRT_POLL_STOP.
CudaOptions cuda_options_from_environment();

}  // namespace pkrt
