// The viewer's denoised image: the accumulation so far, resolved and denoised on the backend's device
// (render/denoise/denoiser.h), shown in place of the accumulation. The accumulation itself is never
// touched: samples keep adding to it, and each refresh denoises the newest. A refresh reads the
// accumulation and its features back, so it runs at most every kRefreshMs (the first image of a new
// view at once). While the camera moves, each new view's image takes in the ones before it, reprojected
// (render/denoise/temporal.h: SVGF's temporal step), unless set_temporal(false).
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "render/backend.h"
#include "render/denoise/denoiser.h"
#include "render/denoise/temporal.h"
#include "render/scene/scene.h"

namespace pkrt::viewer {

class DenoisedView {
public:
    static constexpr double kRefreshMs = 100.0;

    // Whether the image of `generation` is due for a refresh now.
    bool due(uint32_t generation) const;
    // Denoises the backend's accumulation into rgba (width x height RGBA32F, a = 1, so the display's
    // division leaves it as it is). False, with why() saying so, where the accumulation has no features.
    // In resident mode the image is the last finished frame's, with its features, and the resident
    // kernel's warps do the filtering (render/cuda/scheduler.h: denoise_in_resident_kernel).
    // `camera` is the view of `generation`; `content` counts what the image shows besides the camera
    // (ProgressiveRenderer::content): another content starts the temporal history again.
    bool refresh(const Backend& backend, uint32_t generation, const CameraSpec& camera, uint32_t content);
    void set_temporal(bool on);
    // Of the last refresh: the fraction of its pixels that took something from the views before.
    double reused() const { return reused_; }
    const std::vector<float>& rgba() const { return rgba_; }
    int width() const { return width_; }
    int height() const { return height_; }
    double ms() const { return ms_; }  // the last refresh, read-back and all
    const std::string& device() const { return device_; }
    const std::string& why() const { return why_; }
    // A new backend (another device): the next refresh makes its denoiser.
    void reset() { denoiser_.reset(); }
    // The denoiser on `backend`'s device (made the first time).
    Denoiser& denoiser(const Backend& backend) {
        if (!denoiser_) denoiser_ = backend.make_denoiser();
        return *denoiser_;
    }

private:
    std::unique_ptr<Denoiser> denoiser_;
    std::vector<float> rgba_;
    int width_ = 0, height_ = 0;
    double ms_ = 0.0;
    std::string device_, why_;
    bool shown_ = false, temporal_ = true;
    uint32_t generation_ = 0, content_ = 0;
    double reused_ = 0.0;
    TemporalHistory history_;
    std::chrono::steady_clock::time_point last_{};
    Accumulation acc_;  // kept, as the resolved image and features: their memory is reused
    Image image_;
    FeatureImages features_;
};

}  // namespace pkrt::viewer
