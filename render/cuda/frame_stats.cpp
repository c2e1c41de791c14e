#include "render/cuda/frame_stats.h"

#include <algorithm>

namespace pkrt::cuda {

RenderStats frame_stats(const GpuCounters& c, float gpu_ms, int multiprocessors) {
    RenderStats f;
    f.frames = 1;
    f.frame_gpu_ms.push_back(gpu_ms);
    for (int d = 0; d < kStatsMaxDepth; ++d)
        if (c.rays.rays_by_depth[d]) f.count_extension(d, c.rays.rays_by_depth[d]);
    f.shadow_rays = c.rays.shadow_rays;
    f.samples = c.rays.paths_completed;
    f.paths_generated = c.rays.paths_generated;
    f.paths_completed = c.rays.paths_completed;
    f.nonfinite_samples = c.rays.nonfinite;
    f.idle_iterations = c.idle_iterations;
    f.backoff_sleeps = c.backoff_sleeps;
    f.backoff_ns = c.backoff_ns;
    f.warp_iterations = c.warp_iterations;
    f.kept_paths = c.kept_paths;
    f.inline_shadows = c.inline_shadows;
    f.rays_per_sm.assign(c.rays_per_sm, c.rays_per_sm + std::min(kStatsMaxSms, std::max(1, multiprocessors)));
    // Only the persistent kernel charges cycles to phases.
    if (std::any_of(std::begin(c.phase_cycles), std::end(c.phase_cycles), [](unsigned long long v) { return v != 0; }))
        f.phase_cycles.assign(c.phase_cycles, c.phase_cycles + kPhaseCount);
    int points = std::min(c.timeline_count, kTimelinePoints);
    double occupancy = 0.0;
    for (int i = 0; i < points; ++i) {
        const TimelinePoint& t = c.timeline[i];
        f.timeline.push_back({t.t_ns / 1000.0, t.path_queue, t.shadow_queue, t.in_flight});
        occupancy += t.path_queue + t.shadow_queue;
    }
    std::sort(f.timeline.begin(), f.timeline.end(), [](const auto& a, const auto& b) { return a.t_us < b.t_us; });
    f.mean_queue = points ? occupancy / points : 0.0;
    return f;
}

}  // namespace pkrt::cuda
