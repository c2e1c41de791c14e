// Progressive rendering: every displayed frame adds `spp` samples of every pixel to the backend's
// accumulation, with sample indices counting up across frames (so N frames of k samples are exactly one
// render of N*k samples). Any change that invalidates the accumulation (camera, scene, resolution, max
// depth, mode, backend) marks it stale; the next frame then resets it and starts again at sample 0.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "render/backend.h"

namespace pkrt::viewer {

struct FrameResult {
    RenderStats stats;       // this frame's counters alone
    double ms = 0.0;         // GPU time of the frame (CUDA events) where the backend measures it, else wall time
    double wall_ms = 0.0;    // wall time from submit to complete
    bool gpu_timed = false;
};

class ProgressiveRenderer {
public:
    // The backend and scene must outlive their use here; set_scene() hands the scene to the backend.
    void set_backend(Backend* backend);
    void set_scene(const Scene* scene);
    void set_resolution(int width, int height);
    void set_mode(std::optional<SchedulerMode> mode);
    // The camera moved: the backend renders from it, and the accumulation starts again.
    void set_camera(const CameraSpec& camera);
    void set_max_depth(int max_depth);
    void set_seed(uint32_t seed);

    // A frame in two halves, so the caller can draw and present the previous frame while the GPU
    // renders this one. Nothing else may use the backend in between (drain() first).
    void submit(uint32_t spp);
    FrameResult complete();
    bool in_flight() const { return in_flight_; }
    // Completes a frame in flight and drops its result (before the backend or scene changes).
    void drain();

    bool stale() const { return stale_; }
    uint32_t samples() const { return next_sample_; }
    int width() const { return settings_.width; }
    int height() const { return settings_.height; }
    std::optional<SchedulerMode> mode() const { return settings_.mode; }
    int max_depth() const { return settings_.max_depth; }
    const RenderSettings& settings() const { return settings_; }
    Backend* backend() const { return backend_; }

private:
    Backend* backend_ = nullptr;
    const Scene* scene_ = nullptr;
    CameraSpec camera_;
    RenderSettings settings_;
    uint32_t next_sample_ = 0;
    bool stale_ = true;
    bool in_flight_ = false;
    std::chrono::steady_clock::time_point submitted_;
};

}  // namespace pkrt::viewer
