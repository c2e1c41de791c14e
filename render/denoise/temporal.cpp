// TemporalHistory: the per-pixel steps of kernels/denoise_temporal.h on the CPU, rows in parallel.
#include "render/denoise/temporal.h"

#include <atomic>

#include "render/cpu/parallel.h"
#include "render/denoise/denoiser.h"

namespace pkrt {

TemporalHistory::TemporalHistory(const TemporalParams& params, unsigned threads)
    : params_(params), threads_(threads == 0 ? worker_count() : threads) {}

void TemporalHistory::next_view() { views_.next_view(); }

void TemporalHistory::clear() {
    views_.clear();
    reused_ = 0;
}

Image TemporalHistory::blend(const Image& color, const std::vector<float>& samples, const FeatureImages& features,
                             const CameraView& camera) {
    check_denoise_inputs(color, features);
    const int w = color.width, h = color.height;
    const size_t n = color.pixels.size();
    const TemporalFrame history = views_.history([](const Buffers& b) {
        return TemporalFrame{CameraView{}, 0, 0, b.radiance.data(), b.guide.data(), b.slope.data(), b.samples.data()};
    });
    Buffers& v = views_.current(camera, w, h).buffers;
    v.radiance.resize(n);
    v.guide.resize(n);
    v.slope.resize(n);
    v.samples.assign(samples.begin(), samples.end());
    v.samples.resize(n, 0.0f);
    std::vector<DenoiseTexel> texel(n);
    std::vector<float> counts(n);  // the blend's; v.samples the view's own
    TemporalBuffers t{history, camera, v.samples.data(), v.radiance.data(), counts.data(), nullptr, params_};
    Image out = color;
    const DenoiseInputs in = denoise_inputs(color, features);
    auto rows = [&](auto&& per_row) { parallel_rows(h, per_row, threads_); };
    rows([&](int y) {
        for (int x = 0; x < w; ++x) denoise_prepare(in, texel.data(), v.guide.data(), static_cast<size_t>(y) * w + x);
    });
    rows([&](int y) {
        for (int x = 0; x < w; ++x) v.slope[static_cast<size_t>(y) * w + x] = denoise_slope(v.guide.data(), w, h, x, y);
    });
    std::atomic<size_t> reused{0};
    rows([&](int y) {
        size_t here = 0;
        for (int x = 0; x < w; ++x)
            here += temporal_pixel(t, texel.data(), v.guide.data(), v.slope.data(), w, h, x, y) ? 1 : 0;
        reused += here;
    });
    v.samples.swap(counts);
    rows([&](int y) {
        for (int x = 0; x < w; ++x) {
            size_t i = static_cast<size_t>(y) * w + x;
            out.pixels[i] = denoise_finish(v.radiance[i].rgb, in.albedo[i]);
        }
    });
    reused_ = reused;
    return out;
}

}  // namespace pkrt
