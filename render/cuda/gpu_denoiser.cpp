#include "render/cuda/gpu_denoiser.h"

#include "kernels/gpu/denoise_launch.h"
#include "render/cuda/scheduler.h"

namespace pkrt {

namespace cuda {

DenoiseDevice::DenoiseDevice(const GpuDevice& d) : dev_(d) {
    check(cudaSetDevice(dev_.index), "denoise: device");
    check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "denoise: stream");
    check(cudaEventCreate(&start_), "denoise: event");
    check(cudaEventCreate(&end_), "denoise: event");
}

DenoiseDevice::~DenoiseDevice() {
    cudaStreamDestroy(stream_);
    cudaEventDestroy(start_);
    cudaEventDestroy(end_);
}

bool DenoiseDevice::reserve(size_t n) {
    if (n <= pixels_) return false;
    quit_resident_kernels();
    for (auto* a : {&color_, &albedo_, &normal_, &depth_, &out_}) a->allocate(n);
    a_.allocate(n);
    b_.allocate(n);
    smooth_.allocate(n);
    pixels_ = n;
    return true;
}

DenoiseBuffers DenoiseDevice::buffers(DenoiseGuide* guide, float* slope, const DenoiseViewSteps* view,
                                      bool resolve_first, bool temporal) const {
    return DenoiseBuffers{{color_.get(), albedo_.get(), normal_.get(), depth_.get()},
                          a_.get(),
                          b_.get(),
                          guide,
                          slope,
                          smooth_.get(),
                          out_.get(),
                          nullptr,
                          resolve_first ? 1 : 0,
                          temporal ? 1 : 0,
                          view};
}

bool DenoiseDevice::run(const DenoiseBuffers& b, int width, int height, const DenoiseParams& params) {
    by_grid_ = denoise_in_resident_kernel(dev_.index, DenoiseJob{b, params, width, height}, stream_, &grid_ms_);
    if (!by_grid_) {
        check(cudaEventRecord(start_, stream_), "denoise");
        check(launch_denoise(b, width, height, params, stream_), "denoise");
        check(cudaEventRecord(end_, stream_), "denoise");
    }
    return by_grid_;
}

void DenoiseDevice::upload(const Image& color, const FeatureImages& f) {
    const size_t bytes = color.pixels.size() * sizeof(Vec3);
    auto up = [&](Vec3* to, const Image& from) {
        check(cudaMemcpyAsync(to, from.pixels.data(), bytes, cudaMemcpyHostToDevice, stream_), "denoise: upload");
    };
    up(color_.get(), color);
    up(albedo_.get(), f.albedo);
    up(normal_.get(), f.normal);
    up(depth_.get(), f.depth);
}

float DenoiseDevice::filter_ms() {
    if (by_grid_) return grid_ms_;
    float ms = 0.0f;
    check(cudaEventElapsedTime(&ms, start_, end_), "denoise: timing");
    return ms;
}

}  // namespace cuda

namespace {

using cuda::check;

class CudaDenoiser final : public Denoiser {
public:
    explicit CudaDenoiser(const GpuDevice& d) : device_(d) {}

    std::string device() const override { return device_.name(); }
    double last_device_ms() const override { return last_ms_; }

    Image denoise(const Image& color, const FeatureImages& f, const DenoiseParams& params) override {
        check_denoise_inputs(color, f);
        check(cudaSetDevice(device_.gpu().index), "denoise: device");
        const size_t n = color.pixels.size();
        if (device_.reserve(n)) {  // kept for the next image
            guide_.allocate(n);
            slope_.allocate(n);
        }
        const cudaStream_t s = device_.stream();
        device_.upload(color, f);
        device_.run(device_.buffers(guide_.get(), slope_.get()), color.width, color.height, params);
        Image out = color;
        check(cudaMemcpyAsync(out.pixels.data(), device_.out(), n * sizeof(Vec3), cudaMemcpyDeviceToHost, s),
              "denoise: read back");
        check(cudaStreamSynchronize(s), "denoise");
        last_ms_ = device_.filter_ms();
        return out;
    }

private:
    cuda::DenoiseDevice device_;
    cuda::DeviceArray<DenoiseGuide> guide_;
    cuda::DeviceArray<float> slope_;
    double last_ms_ = 0.0;
};

}  // namespace

std::unique_ptr<Denoiser> make_cuda_denoiser(const GpuDevice& device) { return std::make_unique<CudaDenoiser>(device); }

}  // namespace pkrt
