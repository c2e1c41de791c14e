// Temporal reuse for the denoiser while the camera moves (kernels/denoise_temporal.h: SVGF's
// reprojection and blend). A TemporalHistory keeps what the views so far leave: each new view's image is
// blended with the history reprojected into it, and that blend is what the denoiser then filters.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/denoise_temporal.h"
#include "render/denoise/view_history.h"
#include "render/image/image.h"

namespace pkrt {

class TemporalHistory {
public:
    explicit TemporalHistory(const TemporalParams& params = {}, unsigned threads = 0);

    // `color` of the view `camera`, the mean of `samples[i]` samples at pixel i, with its `features`:
    // blended with the previous view's history where that shows the same surfaces. The blend is the
    // current view's, until next_view(); blending again (more samples of the same view) replaces it.
    Image blend(const Image& color, const std::vector<float>& samples, const FeatureImages& features,
                const CameraView& camera);
    // The current view's blend becomes the history of the next view (the camera moved).
    void next_view();
    // A refresh's turnover (ViewHistory::turn_over).
    void turn_over(bool restart, bool temporal, bool new_view) {
        if (restart || !temporal) reused_ = 0;
        views_.turn_over(restart, temporal, new_view);
    }
    // Nothing carries over (the scene, the settings or the image size changed).
    void clear();
    // Pixels of the last blend that took something from the history.
    size_t reused() const { return reused_; }

private:
    struct Buffers {
        std::vector<DenoiseTexel> radiance;  // demodulated (kernels/denoise.h)
        std::vector<DenoiseGuide> guide;
        std::vector<float> slope;
        std::vector<float> samples;
    };
    TemporalParams params_;
    unsigned threads_;
    ViewHistory<Buffers> views_;
    size_t reused_ = 0;
};

}  // namespace pkrt
