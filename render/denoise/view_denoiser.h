// The denoised image a viewer shows of a backend's accumulation while samples keep adding to it (the
// accumulation itself is never touched): the newest image resolved, blended with the views before it
// while the camera moves (SVGF's temporal step, kernels/denoise_temporal.h), filtered
// (kernels/denoise.h), and handed to the display as an image of means (DisplayImage, a = 1).
// Backend::make_view_denoiser: on a CUDA device every step stays on the device, where the display
// takes the result too (render/cuda/gpu_view_denoiser.h); elsewhere (the CPU, several GPUs) the image
// is read back, blended on the CPU, and filtered by the backend's denoiser.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "render/display_image.h"
#include "render/scene/scene.h"

namespace pkrt {

class Backend;
class Denoiser;

struct ViewRefresh {
    CameraSpec camera;       // the view the backend's image shows
    bool next_view = false;  // another view than the last refresh's: that one's blend becomes the history
    bool restart = false;    // nothing carries over (the scene, the settings or the size changed)
    bool temporal = true;    // off: each view is filtered from its own samples, and no history is kept
};

class ViewDenoiser : public DisplayImage {
public:
    // Denoises the backend's image (the last finished frame's). False, with why() saying so, where the
    // image has no features.
    virtual bool refresh(const Backend& backend, const ViewRefresh& r) = 0;
    // Where it runs, for the panel ("GPU 0 (NVIDIA H200)", "CPU, 8 threads").
    virtual std::string device() const = 0;
    const std::string& why() const { return why_; }
    int width() const { return width_; }
    int height() const { return height_; }
    // Of the last refresh: the fraction of its pixels that took something from a history, and the
    // filter's time (the device's on a GPU).
    double reused() const { return reused_; }
    double filter_ms() const { return filter_ms_; }

protected:
    // The denoised image of width x height means, kept in host memory as RGBA32F with a = 1.
    void keep_rgba(const Vec3* means, int width, int height);

    std::string why_;
    int width_ = 0, height_ = 0;
    double reused_ = 0.0, filter_ms_ = 0.0;
    std::vector<float> rgba_;
};

// The host's: `filter` denoises what the CPU resolved and blended.
std::unique_ptr<ViewDenoiser> make_host_view_denoiser(std::unique_ptr<Denoiser> filter);

}  // namespace pkrt
