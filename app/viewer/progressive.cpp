#include "progressive.h"

#include <chrono>

#include "render/error.h"

namespace pkrt::viewer {

void ProgressiveRenderer::set_backend(Backend* backend) {
    drain();
    backend_ = backend;
    if (backend_ && scene_) {
        backend_->set_scene(*scene_);
        backend_->set_camera(camera_);
    }
    stale_ = true;
}

void ProgressiveRenderer::set_scene(const Scene* scene) {
    drain();
    scene_ = scene;
    if (scene_) camera_ = scene_->camera;
    if (backend_ && scene_) backend_->set_scene(*scene_);
    stale_ = true;
}

void ProgressiveRenderer::set_resolution(int width, int height) {
    if (width == settings_.width && height == settings_.height) return;
    settings_.width = width;
    settings_.height = height;
    stale_ = true;
}

void ProgressiveRenderer::set_camera(const CameraSpec& camera) {
    camera_ = camera;
    if (backend_) backend_->set_camera(camera_);
    stale_ = true;
}

void ProgressiveRenderer::set_mode(std::optional<SchedulerMode> mode) {
    if (mode == settings_.mode) return;
    settings_.mode = mode;
    stale_ = true;
}

void ProgressiveRenderer::set_max_depth(int max_depth) {
    if (max_depth == settings_.max_depth) return;
    settings_.max_depth = max_depth;
    stale_ = true;
}

void ProgressiveRenderer::set_seed(uint32_t seed) {
    if (seed == settings_.seed) return;
    settings_.seed = seed;
    stale_ = true;
}

void ProgressiveRenderer::submit(uint32_t spp) {
    if (!backend_ || !scene_) throw Error("internal: progressive render without a backend or scene");
    if (in_flight_) throw Error("internal: a frame was submitted while another is in flight");
    if (stale_) {
        backend_->reset(settings_.width, settings_.height);
        next_sample_ = 0;
        stale_ = false;
    }
    settings_.spp = static_cast<int>(spp);
    submitted_ = std::chrono::steady_clock::now();
    backend_->begin_accumulate(settings_, next_sample_, spp);
    in_flight_ = true;
    next_sample_ += spp;
}

void ProgressiveRenderer::drain() {
    if (in_flight_) complete();
}

FrameResult ProgressiveRenderer::complete() {
    if (!in_flight_) throw Error("internal: no frame in flight");
    in_flight_ = false;
    FrameResult f;
    backend_->end_accumulate(f.stats);
    f.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - submitted_).count();
    f.gpu_timed = !f.stats.frame_gpu_ms.empty();
    f.ms = f.wall_ms;
    if (f.gpu_timed) {
        f.ms = 0.0;
        for (double m : f.stats.frame_gpu_ms) f.ms += m;
    }
    return f;
}

}  // namespace pkrt::viewer
