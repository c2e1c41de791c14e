// The Compare button: renders the current view for K frames in every scheduler mode, interleaved
// (A B C D, A B C D, ... as `pkrt bench` does, so slow drift such as clocks and temperature hits every
// mode alike), each mode on its own backend instance with its own framebuffer. It runs one round per
// displayed frame so the window stays live, and keeps its table until the next comparison.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "render/backend.h"

namespace pkrt::viewer {

struct CompareRow {
    std::string mode;
    double median_ms = 0, min_ms = 0, max_ms = 0;
    double rays_per_s = 0;
    double launches_per_frame = 0;
    double speedup_of_base = 0;  // this mode's median time / the base mode's: > 1 means the base is faster
};

struct CompareResult {
    std::string description;  // what was measured: scene, size, spp, depth, frames
    std::string base_mode;    // "persistent" where it exists
    bool gpu_timed = false;   // ms are CUDA-event GPU times (else wall times)
    std::vector<CompareRow> rows;
};

class ModeComparison {
public:
    static constexpr int kWarmupRounds = 2;  // unmeasured: first launches pay for module loads and caches

    // `scene` must stay alive and unchanged until the comparison finishes or is cancelled.
    // Every mode of the backend, or the CPU's single way when `modes` is empty; from `camera`.
    void start(const std::string& backend_kind, const std::vector<SchedulerMode>& modes, const Scene& scene,
               const CameraSpec& camera, const RenderSettings& settings, uint32_t spp, int frames,
               const std::string& scene_name);
    void cancel();
    // One round: one frame of every mode. Finishes (and builds the result) after the last round.
    void step();

    bool running() const { return !runs_.empty(); }
    float progress() const;
    const std::optional<CompareResult>& result() const { return result_; }
    const std::string& error() const { return error_; }

private:
    struct Run {
        std::optional<SchedulerMode> mode;
        std::string name;
        std::unique_ptr<Backend> backend;
        std::vector<double> ms, rays, launches;
        bool gpu_timed = false;
    };
    void finish();

    std::vector<Run> runs_;
    RenderSettings settings_;
    uint32_t spp_ = 1, next_sample_ = 0;
    int frames_ = 0, round_ = 0;
    std::string description_;
    std::optional<CompareResult> result_;
    std::string error_;
};

double median(std::vector<double> v);

}  // namespace pkrt::viewer
