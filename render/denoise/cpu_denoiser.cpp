// The denoiser's steps (kernels/denoise_steps.h) on the CPU, one row of pixels per work item.
#include <chrono>
#include <vector>

#include "render/cpu/parallel.h"
#include "kernels/denoise_steps.h"
#include "render/denoise/denoiser.h"
#include "render/error.h"

namespace pkrt {

void check_denoise_inputs(const Image& color, const FeatureImages& f) {
    for (const Image* img : {&f.albedo, &f.normal, &f.depth})
        if (img->width != color.width || img->height != color.height || img->pixels.size() != color.pixels.size())
            throw Error("internal: denoising an image without features of its size");
}

DenoiseInputs denoise_inputs(const Image& color, const FeatureImages& f) {
    return DenoiseInputs{color.pixels.data(), f.albedo.pixels.data(), f.normal.pixels.data(), f.depth.pixels.data()};
}

namespace {

class CpuDenoiser final : public Denoiser {
public:
    explicit CpuDenoiser(unsigned threads) : threads_(threads == 0 ? worker_count() : threads) {}

    std::string device() const override { return "CPU, " + std::to_string(threads_) + " threads"; }
    double last_device_ms() const override { return last_ms_; }

    Image denoise(const Image& color, const FeatureImages& features, const DenoiseParams& params) override {
        check_denoise_inputs(color, features);
        const auto t0 = std::chrono::steady_clock::now();
        const int w = color.width, h = color.height;
        const size_t n = color.pixels.size();
        std::vector<DenoiseTexel> a(n), b(n);
        std::vector<DenoiseGuide> guide(n);
        std::vector<float> slope(n), smooth(n);
        Image out = color;
        const DenoiseBuffers buffers{denoise_inputs(color, features),
                                     a.data(),
                                     b.data(),
                                     guide.data(),
                                     slope.data(),
                                     smooth.data(),
                                     out.pixels.data(),
                                     nullptr,
                                     0,
                                     0,
                                     nullptr};
        for (int step = 0; step < denoise_step_count(buffers, params); ++step)
            parallel_rows(
                h,
                [&](int y) {
                    for (int x = 0; x < w; ++x) denoise_step(buffers, w, h, params, step, x, y);
                },
                threads_);
        last_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        return out;
    }

private:
    unsigned threads_;
    double last_ms_ = 0.0;
};

}  // namespace

std::unique_ptr<Denoiser> make_cpu_denoiser(unsigned threads) { return std::make_unique<CpuDenoiser>(threads); }

}  // namespace pkrt
