// The U-Net (unet.h) behind the Denoiser interface, on the host's cores.
#include <chrono>

#include "render/cpu/parallel.h"
#include "render/denoise/denoiser.h"
#include "render/denoise/unet.h"

namespace pkrt {

namespace {

class CpuUnetDenoiser final : public Denoiser {
public:
    CpuUnetDenoiser(const UnetWeights& weights, unsigned threads)
        : network_(weights), threads_(threads == 0 ? worker_count() : threads) {}

    std::string device() const override { return "CPU, " + std::to_string(threads_) + " threads, U-Net"; }
    double last_device_ms() const override { return last_ms_; }

    Image denoise(const Image& color, const FeatureImages& features, const DenoiseParams&) override {
        check_denoise_inputs(color, features);
        const auto t0 = std::chrono::steady_clock::now();
        Image out = network_.denoise(color, features, threads_);
        last_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        return out;
    }

private:
    UnetNetwork network_;
    unsigned threads_;
    double last_ms_ = 0.0;
};

}  // namespace

std::unique_ptr<Denoiser> make_cpu_unet_denoiser(const UnetWeights& weights, unsigned threads) {
    return std::make_unique<CpuUnetDenoiser>(weights, threads);
}

}  // namespace pkrt
