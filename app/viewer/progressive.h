// Progressive rendering: every displayed frame adds `spp` samples of every pixel to the backend's
// accumulation, with sample indices counting up across frames (so N frames of k samples are exactly one
// render of N*k samples). Any change that invalidates the accumulation (camera, scene, resolution, max
// depth, mode, backend) marks it stale; the next frame then resets it and starts again at sample 0.
//
// Where the backend queues frames ahead (its capacity is above 1) several frames are in flight at once,
// and a change cancels them: they still complete, in order, but belong to an older image ("generation")
// and are not shown.
//
// Stop when converged (set_adaptive): each image is rendered in adaptive rounds instead (the
// backend's frames with adaptive_round, kernels/adaptive.h), one a frame, until no
// tile needs samples. Not in resident mode, whose kernel queues its rounds itself: there the frames
// stay uniform and adaptive_refused() says so.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <string>

#include "render/backend.h"

namespace pkrt::viewer {

struct FrameResult {
    RenderStats stats;        // this frame's counters alone
    bool current = true;      // of the image being built now (not cancelled by a change since)
    uint32_t generation = 0;  // the image it belongs to (ProgressiveRenderer::generation())
    double ms = 0.0;          // GPU time of the frame (CUDA events) where the backend measures it, else wall time
    double wall_ms = 0.0;     // wall time from submit to complete
    bool gpu_timed = false;
};

class ProgressiveRenderer {
public:
    // The backend and scene must outlive their use here; set_scene() hands the scene to the backend.
    void set_backend(Backend* backend);
    void set_scene(const Scene* scene);
    void set_resolution(int width, int height);
    void set_mode(std::optional<SchedulerMode> mode);
    // The camera moved: the backend renders from it, and the accumulation starts again, with a preview
    // first when set_preview asked for one.
    void set_camera(const CameraSpec& camera);
    // After a camera move, the first frame is a preview at 1/block of the resolution (each of its pixels
    // shown as a block, RenderSettings::preview; 1 sample), which costs about 1/block² of a frame: the new
    // view is on screen at once. The full image then starts again from sample 0. 1: no preview.
    void set_preview(int block) { preview_ = block; }
    void set_max_depth(int max_depth);
    void set_seed(uint32_t seed);
    // Stop when converged at the settings' target error, or (nullopt) sample every pixel alike.
    void set_adaptive(const std::optional<AdaptiveSettings>& adaptive);
    // The accumulation keeps feature buffers (for the denoised view): the frames in flight end first,
    // and the image starts again.
    void set_features(bool on);
    bool features() const { return settings_.features; }

    // A frame in two halves, so the caller can draw and present the previous frame while the GPU
    // renders this one. Nothing else may use the backend in between (drain() first). submit() only
    // when can_submit(); complete() ends the oldest frame in flight.
    bool can_submit();
    // Room for another frame in the backend's queue (no side effects; stale or not).
    bool can_submit_more() const;
    void submit(uint32_t spp);
    FrameResult complete();
    bool in_flight() const { return !in_flight_.empty(); }
    // The oldest frame in flight is done (complete() would not wait).
    bool ready() const;
    // The oldest frame in flight belongs to an image already replaced (a camera change queued since).
    bool oldest_replaced() const { return !in_flight_.empty() && in_flight_.front().generation != generation_; }
    // More than one frame may be in flight (the backend queues them ahead): the caller polls ready().
    bool pipelined() const;
    // Completes the frames in flight and drops their results (before the backend or scene changes).
    void drain();
    // Counts images: increases with every reset of the accumulation.
    uint32_t generation() const { return generation_; }
    // Counts what the images show apart from the camera (the scene, the max depth): a new view of the
    // same content may reuse the last one's pixels (the denoiser's temporal step), another content not.
    uint32_t content() const { return content_; }
    // The camera of the image of generation() (a move since then is the next image's).
    const CameraSpec& image_camera() const { return image_camera_; }

    bool stale() const { return stale_; }
    // Samples per pixel so far: every pixel's, or their mean in adaptive rounds.
    uint32_t samples() const { return next_sample_; }
    // This image is rendered in adaptive rounds (set_adaptive, and a mode that runs them).
    bool adaptive() const { return adaptive_.has_value() && !adaptive_refused(); }
    bool adaptive_refused() const {
        return adaptive_.has_value() && backend_ && !backend_->rounds_one_at_a_time(settings_);
    }
    // The rounds ended: no tile needs samples (or every one is at max_spp).
    bool converged() const { return adaptive_done_; }
    double converged_fraction() const { return converged_fraction_; }
    uint32_t rounds() const { return rounds_; }
    const std::optional<AdaptiveSettings>& adaptive_settings() const { return adaptive_; }
    int width() const { return settings_.width; }
    int height() const { return settings_.height; }
    std::optional<SchedulerMode> mode() const { return settings_.mode; }
    int max_depth() const { return settings_.max_depth; }
    const RenderSettings& settings() const { return settings_; }
    Backend* backend() const { return backend_; }

private:
    Backend* backend_ = nullptr;
    const Scene* scene_ = nullptr;
    CameraSpec camera_, image_camera_;
    RenderSettings settings_;
    struct InFlight {
        std::chrono::steady_clock::time_point submitted;
        uint32_t generation = 0;
        std::optional<SchedulerMode> mode;
        bool round = false;  // an adaptive round
        FrameTicket ticket = 0;
    };
    std::optional<AdaptiveSettings> adaptive_;
    bool adaptive_begun_ = false, adaptive_done_ = false;  // this image's rounds
    uint32_t rounds_ = 0;
    uint64_t adaptive_samples_ = 0;
    double converged_fraction_ = 0.0;
    uint32_t next_sample_ = 0;
    uint32_t generation_ = 0, content_ = 0;
    int reset_width_ = 0, reset_height_ = 0;  // the accumulation's size
    bool stale_ = true;
    bool cancel_sent_ = false;  // the frames in flight were cancelled for the coming reset
    int preview_ = 1;
    bool preview_pending_ = false;  // the camera moved: the next image starts with a preview
    bool restart_ = false;          // a preview is in: the next frame resets to the full image
    std::deque<InFlight> in_flight_;
};

}  // namespace pkrt::viewer
