// The GPU schedulers' options, typed. Defaults are what measured fastest (BENCHMARKS.md); experiments
// change them with `--set key=value` (pkrt render and bench), validated here: an unknown key or a
// value out of range is an error, never a silent default.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pkrt {

// Persistent kernel: where shadow rays are traced.
enum class ShadowRays { kAuto, kQueued, kInline };  // auto: timed per configuration (render/cuda/policy_tuner.h)
// Persistent kernel: what a warp does with its last few live paths.
enum class Stragglers {
    kAuto,
    kKept,
    kSorted
};  // sorted: pooled through the queue, and only empty
    // warps take new camera paths

// Relaunch and graph: the order the extend stage traces bounce rays in.
enum class RayOrder { kShaded, kBinned };  // binned: sorted by direction octant and origin cell

struct SchedulerOptions {
    uint32_t queue_capacity = 0;  // path and shadow queue slots (power of two); 0 = twice the grid's lanes
    int grid_blocks = 0;          // persistent: 0 = every block that can be co-resident; more is refused
    int fetch_threshold = 24;     // persistent: refill a warp when fewer lanes than this hold a path
    ShadowRays shadow_rays = ShadowRays::kAuto;
    int blocks_per_sm = 0;  // persistent: the build of that many resident blocks per SM (4, 6, 8,
                            // 10: 128, 80, 64, 48 registers); 0 = per frame (timed)
    Stragglers stragglers = Stragglers::kAuto;
    bool timeline = true;               // sample the queue-depth timeline
    int timeline_points = 1024;         // aim a frame's timeline at about this many points
    int backoff_max_shift = 4;          // persistent: idle warps sleep at most 64 << this ns (4: 1 us)
    bool poll_stop = true;              // persistent: poll the host's stop flag (cancellation)
    uint32_t wave_capacity = 1u << 21;  // relaunch, graph, megakernel: paths per wave
    RayOrder ray_order = RayOrder::kShaded;
};

// Applies one "key=value"; throws Error("--set KEY=VALUE: ...") saying what the key accepts.
void apply_setting(SchedulerOptions& options, const std::string& key_value);
SchedulerOptions parse_settings(const std::vector<std::string>& key_values);
// One line per key: name, accepted values, meaning and default (for --help and the README).
std::string settings_help();

}  // namespace pkrt
