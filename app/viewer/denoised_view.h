// The viewer's denoised image: the accumulation so far, denoised by the backend's view denoiser
// (render/denoise/view_denoiser.h: on a CUDA device without leaving it), shown in place of the
// accumulation. The accumulation itself is never touched: samples keep adding to it, and each refresh
// denoises the newest. The first image of a new view is refreshed at once; more samples of a view as
// often as the refresh's own cost allows (kRefreshShare of the time, at most every kRefreshMs). While
// the camera moves, each new view's image takes in the ones before it, reprojected (SVGF's temporal
// step), unless set_temporal(false). With the learned denoiser chosen (set_denoiser), a view's first
// image is still the a-trous filter's, which keeps up with a moving camera; once the view rests (its
// next refreshes) the U-Net denoises it, on the backend's device through the host.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "render/backend.h"
#include "render/denoise/denoiser.h"
#include "render/denoise/denoiser_choice.h"
#include "render/denoise/view_denoiser.h"
#include "render/scene/scene.h"

namespace pkrt::viewer {

class DenoisedView {
public:
    static constexpr double kRefreshMs = 100.0;   // the longest a view's newer samples wait
    static constexpr double kRefreshShare = 0.2;  // of the wall time, the most refreshes take

    // Whether the image of `generation` is due for a refresh now.
    bool due(uint32_t generation) const;
    // Denoises the backend's image (in resident mode the last finished frame's, with its features; the
    // resident kernel's warps then do the filtering). False, with why() saying so, where it has no
    // features. `camera` is the view of `generation`; `content` counts what the image shows besides the
    // camera (ProgressiveRenderer::content): another content starts the temporal history again.
    bool refresh(const Backend& backend, uint32_t generation, const CameraSpec& camera, uint32_t content);
    void set_temporal(bool on) { temporal_ = on; }
    // Which denoiser a view at rest gets (the a-trous filter by default).
    void set_denoiser(const DenoiserChoice& choice) {
        choice_ = choice;
        reset();
    }
    // The last refresh's image, for the display (AccumulationUpload::upload).
    const DisplayImage& image() const { return *shown_view_; }
    // Of the last refresh: the fraction of its pixels that took something from the views before.
    double reused() const { return shown_view_ ? shown_view_->reused() : 0.0; }
    int width() const { return shown_view_ ? shown_view_->width() : 0; }
    int height() const { return shown_view_ ? shown_view_->height() : 0; }
    double ms() const { return ms_; }  // the last refresh, in all
    double filter_ms() const { return shown_view_ ? shown_view_->filter_ms() : 0.0; }
    std::string device() const { return shown_view_ ? shown_view_->device() : std::string(); }
    std::string why() const { return shown_view_ ? shown_view_->why() : std::string(); }
    // A new backend (another device): the next refresh makes its view denoisers.
    void reset() {
        view_.reset();
        rest_view_.reset();
        shown_view_ = nullptr;
        denoiser_.reset();
        shown_ = false;
    }
    // The chosen denoiser of images on `backend`'s device (made the first time): the EXR screenshot's.
    Denoiser& denoiser(const Backend& backend) {
        if (!denoiser_) denoiser_ = make_chosen_denoiser(backend, choice_);
        return *denoiser_;
    }

private:
    std::unique_ptr<ViewDenoiser> view_;       // the a-trous filter's, temporal: every view's first image
    std::unique_ptr<ViewDenoiser> rest_view_;  // the U-Net's, where chosen: a view at rest
    ViewDenoiser* shown_view_ = nullptr;       // which made the image shown
    DenoiserChoice choice_;
    std::unique_ptr<Denoiser> denoiser_;
    double ms_ = 0.0;
    bool shown_ = false, temporal_ = true;
    uint32_t generation_ = 0, content_ = 0;
    std::chrono::steady_clock::time_point last_{};
};

}  // namespace pkrt::viewer
