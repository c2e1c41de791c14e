// The host's denoised view: the backend's accumulation read back, resolved and blended on every core,
// then filtered by the backend's denoiser.
#include "render/denoise/view_denoiser.h"

#include <algorithm>

#include "render/backend.h"
#include "render/cpu/parallel.h"
#include "render/denoise/denoiser.h"
#include "render/denoise/temporal.h"
#include "render/image/aov.h"

namespace pkrt {

namespace {

class HostViewDenoiser final : public ViewDenoiser {
public:
    explicit HostViewDenoiser(std::unique_ptr<Denoiser> filter) : filter_(std::move(filter)) {}

    std::string device() const override { return filter_->device(); }
    const float* finished_rgba() const override { return rgba_.data(); }
    void copy_accumulation(float* rgba) const override { std::copy(rgba_.begin(), rgba_.end(), rgba); }

    bool refresh(const Backend& backend, const ViewRefresh& r) override {
        backend.accumulation(acc_);
        if (acc_.features.empty()) {
            why_ = "no feature buffers in these frames";
            return false;
        }
        why_.clear();
        resolve_accumulation(acc_, image_);
        resolve_features(acc_, features_);
        history_.turn_over(r.restart, r.temporal, r.next_view);
        const Image* image = &image_;
        Image blended;
        reused_ = 0.0;
        if (r.temporal) {
            blended = history_.blend(image_, accumulation_samples(acc_), features_,
                                     make_camera_view(r.camera, acc_.width, acc_.height));
            image = &blended;
            reused_ = blended.pixels.empty()
                          ? 0.0
                          : static_cast<double>(history_.reused()) / static_cast<double>(blended.pixels.size());
        }
        const Image out = filter_->denoise(*image, features_);
        filter_ms_ = filter_->last_device_ms();
        keep_rgba(out.pixels.data(), out.width, out.height);
        return true;
    }

private:
    std::unique_ptr<Denoiser> filter_;
    TemporalHistory history_;
    Accumulation acc_;  // kept, as the resolved image and features: their memory is reused
    Image image_;
    FeatureImages features_;
};

}  // namespace

void ViewDenoiser::keep_rgba(const Vec3* means, int width, int height) {
    const size_t n = static_cast<size_t>(width) * height;
    width_ = width;
    height_ = height;
    rgba_.resize(4 * n);
    parallel_for(n, [&](size_t i) {
        rgba_[4 * i + 0] = means[i].x;
        rgba_[4 * i + 1] = means[i].y;
        rgba_[4 * i + 2] = means[i].z;
        rgba_[4 * i + 3] = 1.0f;
    });
}

std::unique_ptr<ViewDenoiser> make_host_view_denoiser(std::unique_ptr<Denoiser> filter) {
    return std::make_unique<HostViewDenoiser>(std::move(filter));
}

}  // namespace pkrt
