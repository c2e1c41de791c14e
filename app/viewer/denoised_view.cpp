#include "app/viewer/denoised_view.h"

#include <algorithm>

namespace pkrt::viewer {

bool DenoisedView::due(uint32_t generation) const {
    if (!shown_ || generation != generation_) return true;
    const double since = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - last_).count();
    return since >= std::min(kRefreshMs, ms_ / kRefreshShare);
}

bool DenoisedView::refresh(const Backend& backend, uint32_t generation, const CameraSpec& camera, uint32_t content) {
    auto t0 = std::chrono::steady_clock::now();
    if (!view_) view_ = backend.make_view_denoiser();
    ViewRefresh r;
    r.camera = camera;
    r.next_view = generation != generation_;
    r.restart = content != content_;
    r.temporal = temporal_;
    // A view at rest: shown before, the same view and content since.
    const bool rest = shown_ && !r.next_view && !r.restart && choice_.kind == DenoiserKind::kUnet;
    content_ = content;
    ViewDenoiser* view = view_.get();
    if (rest) {
        if (!rest_view_) rest_view_ = make_host_view_denoiser(make_chosen_denoiser(backend, choice_));
        view = rest_view_.get();
        r.temporal = false;  // the accumulation holds every sample of the view already
    }
    shown_ = view->refresh(backend, r);
    shown_view_ = view;
    if (!shown_) return false;
    generation_ = generation;
    last_ = std::chrono::steady_clock::now();
    ms_ = std::chrono::duration<double, std::milli>(last_ - t0).count();
    return true;
}

}  // namespace pkrt::viewer
