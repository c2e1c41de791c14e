#include "app/viewer/progressive.h"

#include <chrono>

#include "render/error.h"

namespace pkrt::viewer {

void ProgressiveRenderer::set_backend(Backend* backend) {
    drain();
    backend_ = backend;
    if (backend_) backend_->set_queue_ahead(true);  // where the backend can, frames queue and the display polls
    if (backend_) backend_->set_features(settings_.features);
    if (backend_ && scene_) {
        backend_->set_scene(*scene_);
        backend_->set_camera(camera_);
    }
    stale_ = true;
}

void ProgressiveRenderer::set_scene(const Scene* scene) {
    drain();
    scene_ = scene;
    ++content_;
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
    preview_pending_ = preview_ > 1;
}

void ProgressiveRenderer::set_mode(std::optional<SchedulerMode> mode) {
    if (mode == settings_.mode) return;
    settings_.mode = mode;
    stale_ = true;
}

void ProgressiveRenderer::set_max_depth(int max_depth) {
    if (max_depth == settings_.max_depth) return;
    settings_.max_depth = max_depth;
    ++content_;
    stale_ = true;
}

void ProgressiveRenderer::set_adaptive(const std::optional<AdaptiveSettings>& adaptive) {
    if (adaptive == adaptive_) return;
    adaptive_ = adaptive;
    stale_ = true;
}

void ProgressiveRenderer::set_features(bool on) {
    if (on == settings_.features) return;
    drain();
    settings_.features = on;
    if (backend_) backend_->set_features(on);
    stale_ = true;
}

void ProgressiveRenderer::set_seed(uint32_t seed) {
    if (seed == settings_.seed) return;
    settings_.seed = seed;
    stale_ = true;
}

bool ProgressiveRenderer::pipelined() const { return backend_ && backend_->capacity(settings_) > 1; }

bool ProgressiveRenderer::can_submit() {
    if (!backend_) return false;
    if (stale_ && !in_flight_.empty() && !cancel_sent_) {
        // Their samples belong to the image being replaced: stop them, so they end soon.
        backend_->cancel(generation_ + 1);  // every frame in flight is of this generation or older
        cancel_sent_ = true;
    }
    // A new size reallocates the framebuffer, and another mode runs no queue: both wait for the frames
    // in flight. Otherwise the backend clears behind them.
    bool same_size = settings_.width == reset_width_ && settings_.height == reset_height_;
    if (stale_ && !in_flight_.empty() && (!pipelined() || !same_size)) return false;
    // Frames queue only behind frames of their own mode (a reset would end the others inside the backend).
    for (const InFlight& f : in_flight_)
        if (f.mode != settings_.mode) return false;
    return can_submit_more();
}

bool ProgressiveRenderer::can_submit_more() const {
    if (!backend_) return false;
    // The limit counts frames of the image being built; frames of a replaced one (cancelled, ending
    // soon) do not hold back the new view, up to one frame beyond the limit in all.
    int limit = backend_->capacity(settings_);
    int current = 0;
    if (!stale_)
        for (const InFlight& f : in_flight_) current += f.generation == generation_ ? 1 : 0;
    int total = static_cast<int>(in_flight_.size());
    return current < limit && total < (limit > 1 ? limit + 1 : limit);
}

void ProgressiveRenderer::submit(uint32_t spp) {
    if (!backend_ || !scene_) throw Error("internal: progressive render without a backend or scene");
    if (!can_submit()) throw Error("internal: a frame was submitted while the backend takes no more");
    FrameRequest request;
    if (stale_) {
        request.clear = true;  // queued ahead: made on the GPU, after the frames in flight
        reset_width_ = settings_.width;
        reset_height_ = settings_.height;
        next_sample_ = 0;
        ++generation_;
        image_camera_ = camera_;
        stale_ = false;
        cancel_sent_ = false;
        restart_ = false;
        adaptive_begun_ = adaptive_done_ = false;
        rounds_ = 0;
        adaptive_samples_ = 0;
        converged_fraction_ = 0.0;
        if (preview_pending_) {  // the new view's first image: the preview, then the full image afresh
            preview_pending_ = false;
            request.settings = settings_;
            request.settings.spp = 1;
            request.settings.preview = preview_;
            request.samples = 1;
            request.generation = generation_;
            auto t = std::chrono::steady_clock::now();
            in_flight_.push_back(InFlight{t, generation_, settings_.mode, false, backend_->submit(request)});
            restart_ = true;
            return;
        }
    } else if (restart_) {
        request.clear = true;  // the preview's image goes; same view, same generation
        restart_ = false;
    }
    if (adaptive()) {  // the next round (the first: every pixel at min_spp)
        if (adaptive_done_) throw Error("internal: an adaptive round after the image converged");
        if (!adaptive_begun_) {
            // The rounds start on the cleared framebuffer (a clear after begin_adaptive would end them).
            if (request.clear) backend_->reset(settings_.width, settings_.height);
            request.clear = false;
            backend_->begin_adaptive(settings_, *adaptive_);
            adaptive_begun_ = true;
        }
        request.settings = settings_;
        request.adaptive_round = true;
        request.generation = generation_;
        auto t = std::chrono::steady_clock::now();
        in_flight_.push_back(InFlight{t, generation_, settings_.mode, true, backend_->submit(request)});
        return;
    }
    settings_.spp = static_cast<int>(spp);
    request.settings = settings_;
    request.first_sample = next_sample_;
    request.samples = spp;
    request.generation = generation_;
    auto t = std::chrono::steady_clock::now();
    in_flight_.push_back(InFlight{t, generation_, settings_.mode, false, backend_->submit(request)});
    next_sample_ += spp;
}

bool ProgressiveRenderer::ready() const { return !in_flight_.empty() && backend_->done(in_flight_.front().ticket); }

void ProgressiveRenderer::drain() {
    while (!in_flight_.empty()) complete();
}

FrameResult ProgressiveRenderer::complete() {
    if (in_flight_.empty()) throw Error("internal: no frame in flight");
    InFlight job = in_flight_.front();
    in_flight_.pop_front();
    FrameResult f;
    pkrt::FrameResult r = backend_->wait(job.ticket);
    f.stats = std::move(r.stats);
    if (job.round) {
        const AdaptiveStep& step = r.step;
        if (job.generation == generation_) {
            ++rounds_;
            adaptive_samples_ += f.stats.samples;
            uint64_t pixels = static_cast<uint64_t>(reset_width_) * static_cast<uint64_t>(reset_height_);
            next_sample_ = static_cast<uint32_t>(pixels ? adaptive_samples_ / pixels : 0);
            converged_fraction_ =
                pixels ? static_cast<double>(step.converged_pixels) / static_cast<double>(pixels) : 1.0;
            if (!step.more) {  // done: the framebuffer holds every sample in one place again
                backend_->end_adaptive();
                adaptive_done_ = true;
            }
        }
    }
    // A frame of the view just left is still shown until the new one arrives (a drag would otherwise
    // freeze the picture); only frames of an image already replaced are dropped.
    f.current = job.generation == generation_;
    f.generation = job.generation;
    f.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - job.submitted).count();
    f.gpu_timed = !f.stats.frame_gpu_ms.empty();
    f.ms = f.wall_ms;
    if (f.gpu_timed) {
        f.ms = 0.0;
        for (double m : f.stats.frame_gpu_ms) f.ms += m;
    }
    return f;
}

}  // namespace pkrt::viewer
