// What a render did, in numbers: written by `pkrt render --stats out.json`, printed as the summary,
// and (for the GPU backends) shown live by the viewer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "render/adaptive.h"

namespace pkrt {

struct RenderStats {
    std::string backend;  // "cpu", "cuda"
    std::string mode;     // scheduler: "cpu-threads", or a SchedulerMode's name (render/mode.h)
    std::string device;
    int width = 0, height = 0, spp = 0, max_depth = 0;  // spp: what every pixel got
    int spp_requested = 0;                              // above spp where --time-limit stopped the render
    bool time_limit_hit = false;
    uint32_t seed = 0;
    double seconds = 0.0;                           // wall time of the render itself (scene load and BVH excluded)
    uint64_t samples = 0;                           // camera paths traced (pixels x spp)
    uint64_t extension_rays = 0;                    // closest-hit rays: camera rays and bounces
    uint64_t shadow_rays = 0;                       // any-hit visibility rays of next-event estimation
    std::vector<uint64_t> extension_rays_by_depth;  // index = bounce depth of the ray
    uint64_t nonfinite_samples = 0;                 // path contributions dropped because they were NaN or infinite
    double bvh_build_seconds = 0.0;
    uint64_t triangles = 0;

    // Scheduler statistics (GPU backends; zero or empty on the CPU).
    uint64_t frames = 0;  // accumulate() calls: one launch (persistent) or a launch sequence
    uint64_t kernel_launches = 0;
    std::vector<double> frame_gpu_ms;     // GPU time of each frame (CUDA events)
    uint64_t enqueued = 0, dequeued = 0;  // queue pushes and pops (paths + shadow rays)
    uint64_t peak_queue = 0;              // most records held by the queues at once
    double mean_queue = 0.0;              // mean over the last frame's timeline
    uint64_t idle_iterations = 0;         // warp iterations that found no work
    uint64_t backoff_sleeps = 0;
    uint64_t backoff_ns = 0;
    uint64_t warp_iterations = 0;
    uint64_t kept_paths = 0;      // bounces kept in a lane because the queue was full
    uint64_t inline_shadows = 0;  // shadow rays traced where cast (policy, or the queue was full)
    uint64_t paths_generated = 0, paths_completed = 0;
    std::vector<uint64_t> rays_per_sm;
    std::vector<uint64_t> phase_cycles;  // persistent: SM cycles per phase (kernels/gpu/gpu_records.h)
    struct TimelinePoint {
        double t_us;
        int path_queue, shadow_queue, in_flight;
    };
    std::vector<TimelinePoint> timeline;  // the last frame's queue depth over time
    int grid_blocks = 0, block_threads = 0, queue_capacity = 0;
    // The last frame's scheduling (merge() takes the other's when it describes a frame).
    int blocks_per_sm = 0;       // persistent: resident blocks per SM of the build that ran
    int shadows_queued = -1;     // persistent: 1 shadow rays queued, 0 traced where cast
    int stragglers_sorted = -1;  // persistent: 1 a warp's last live paths pooled (sorted), 0 kept in their lanes
    bool policy_trial = false;   // persistent, last frame: a trial of the policy tuner

    // Several GPUs (--devices): what each worker rendered, and how the work was handed out ("paths in
    // chunks from a device counter": persistent frames; "samples in chunks from the host": other modes).
    struct DeviceShare {
        std::string device;
        int index = 0;         // CUDA device index
        uint64_t samples = 0;  // paths this worker completed
        uint64_t chunks = 0;   // work items it took (path chunks or sample chunks)
        double gpu_ms = 0.0;   // its frames' GPU time
    };
    std::vector<DeviceShare> devices;
    std::string work_sharing;

    // A render across MPI ranks (render/distributed/distributed.h): what each rank rendered, rank by rank; empty
    // otherwise. The counters above are then the sums over all ranks, and the scheduler statistics (frames
    // and below) rank 0's own.
    struct RankShare {
        int rank = 0;
        std::string host, device;
        uint64_t chunks = 0, samples = 0;  // samples: paths, pixels x the chunks' spp
        double busy_seconds = 0.0;         // in accumulate
    };
    std::vector<RankShare> ranks;
    uint32_t chunk_spp = 0;  // samples per pixel in a chunk (the last may hold fewer)

    AdaptiveReport adaptive;  // adaptive sampling's rounds and outcome, where it ran
    std::string reference;    // `pkrt render --reference`: the image's relMSE against it
    double rel_mse = -1.0;
    double rel_mse_noisy = -1.0;   // with --denoise: the image's before denoising
    std::string denoiser;          // with --denoise: where it ran
    double denoise_ms = 0.0;       // the filter's time (a GPU's kernels)
    double denoise_wall_ms = 0.0;  // with the transfers

    uint64_t total_rays() const { return extension_rays + shadow_rays; }
    void count_extension(int depth, uint64_t n = 1);
    void merge(const RenderStats& other);  // adds counters (not the description fields)
};

nlohmann::json to_json(const RenderStats& stats);
void write_stats_json(const std::string& path, const RenderStats& stats);
std::string stats_json_text(const RenderStats& stats);
// Every JSON file pkrt writes (--stats, bench --json), indented: a file name that is not UTF-8 is written
// with U+FFFD for its stray bytes, where nlohmann would throw after the whole render.
std::string json_file_text(const nlohmann::json& j);

}  // namespace pkrt
