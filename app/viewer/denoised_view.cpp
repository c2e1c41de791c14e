#include "app/viewer/denoised_view.h"

#include "render/cpu/parallel.h"
#include "render/image/aov.h"

namespace pkrt::viewer {

bool DenoisedView::due(uint32_t generation) const {
    if (!shown_ || generation != generation_) return true;
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - last_).count() >= kRefreshMs;
}

void DenoisedView::set_temporal(bool on) {
    if (!on) history_.clear();
    temporal_ = on;
}

bool DenoisedView::refresh(const Backend& backend, uint32_t generation, const CameraSpec& camera, uint32_t content) {
    auto t0 = std::chrono::steady_clock::now();
    backend.accumulation(acc_);
    if (acc_.features.empty()) {
        why_ = "no feature buffers in these frames";
        shown_ = false;
        return false;
    }
    why_.clear();
    resolve_accumulation(acc_, image_);
    resolve_features(acc_, features_);
    const Image* image = &image_;
    Image blended;
    if (content != content_) history_.clear();
    content_ = content;
    reused_ = 0.0;
    if (temporal_) {
        if (generation != generation_) history_.next_view();
        blended = history_.blend(image_, accumulation_samples(acc_), features_,
                                 make_camera_view(camera, acc_.width, acc_.height));
        image = &blended;
        reused_ = blended.pixels.empty()
                      ? 0.0
                      : static_cast<double>(history_.reused()) / static_cast<double>(blended.pixels.size());
    }
    const Image out = denoiser(backend).denoise(*image, features_);
    width_ = out.width;
    height_ = out.height;
    rgba_.resize(4 * out.pixels.size());
    parallel_for(out.pixels.size(), [&](size_t i) {
        rgba_[4 * i + 0] = out.pixels[i].x;
        rgba_[4 * i + 1] = out.pixels[i].y;
        rgba_[4 * i + 2] = out.pixels[i].z;
        rgba_[4 * i + 3] = 1.0f;
    });
    device_ = denoiser_->device();
    last_ = std::chrono::steady_clock::now();
    ms_ = std::chrono::duration<double, std::milli>(last_ - t0).count();
    shown_ = true;
    generation_ = generation;
    return true;
}

}  // namespace pkrt::viewer
