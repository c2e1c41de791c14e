#include "render/cuda/gpu_denoiser.h"

#include "kernels/gpu/denoise_launch.h"
#include "render/cuda/device_memory.h"
#include "render/cuda/scheduler.h"

namespace pkrt {

namespace {

using cuda::check;
using cuda::DeviceArray;
using cuda::quit_resident_kernels;

class CudaDenoiser final : public Denoiser {
public:
    explicit CudaDenoiser(const GpuDevice& d) : dev_(d) {}
    ~CudaDenoiser() override {
        if (stream_) cudaStreamDestroy(stream_);
        if (start_) cudaEventDestroy(start_);
        if (end_) cudaEventDestroy(end_);
    }

    std::string device() const override { return "GPU " + std::to_string(dev_.index) + " (" + dev_.name + ")"; }
    double last_device_ms() const override { return last_ms_; }

    Image denoise(const Image& color, const FeatureImages& f, const DenoiseParams& params) override {
        check_denoise_inputs(color, f);
        check(cudaSetDevice(dev_.index), "denoise: device");
        const size_t n = color.pixels.size();
        if (n > pixels_) {  // grown as needed, kept for the next image (with no resident grid, which a free waits for)
            quit_resident_kernels();
            if (!stream_) {
                check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "denoise: stream");
                check(cudaEventCreate(&start_), "denoise: event");
                check(cudaEventCreate(&end_), "denoise: event");
            }
            for (auto* a : {&color_, &albedo_, &normal_, &depth_, &out_}) a->allocate(n);
            a_.allocate(n);
            b_.allocate(n);
            guide_.allocate(n);
            slope_.allocate(n);
            smooth_.allocate(n);
            pixels_ = n;
        }
        auto up = [&](DeviceArray<Vec3>& to, const Image& from) {
            check(cudaMemcpyAsync(to.get(), from.pixels.data(), n * sizeof(Vec3), cudaMemcpyHostToDevice, stream_),
                  "denoise: upload");
        };
        up(color_, color);
        up(albedo_, f.albedo);
        up(normal_, f.normal);
        up(depth_, f.depth);
        DenoiseBuffers b{{color_.get(), albedo_.get(), normal_.get(), depth_.get()},
                         a_.get(),
                         b_.get(),
                         guide_.get(),
                         slope_.get(),
                         smooth_.get(),
                         out_.get()};
        // Beside a resident grid no kernel of ours would start: its warps make the steps instead.
        float ms = 0.0f;
        const bool resident = cuda::denoise_in_resident_kernel(
            dev_.index, DenoiseJob{b, params, color.width, color.height}, stream_, &ms);
        if (!resident) {
            check(cudaEventRecord(start_, stream_), "denoise");
            check(launch_denoise(b, color.width, color.height, params, stream_), "denoise");
            check(cudaEventRecord(end_, stream_), "denoise");
        }
        Image out = color;
        check(cudaMemcpyAsync(out.pixels.data(), out_.get(), n * sizeof(Vec3), cudaMemcpyDeviceToHost, stream_),
              "denoise: read back");
        check(cudaStreamSynchronize(stream_), "denoise");
        if (!resident) check(cudaEventElapsedTime(&ms, start_, end_), "denoise: timing");
        last_ms_ = ms;
        return out;
    }

private:
    GpuDevice dev_;
    cudaStream_t stream_ = nullptr;
    cudaEvent_t start_ = nullptr, end_ = nullptr;
    size_t pixels_ = 0;
    DeviceArray<Vec3> color_, albedo_, normal_, depth_, out_;
    DeviceArray<DenoiseTexel> a_, b_;
    DeviceArray<DenoiseGuide> guide_;
    DeviceArray<float> slope_, smooth_;
    double last_ms_ = 0.0;
};

}  // namespace

std::unique_ptr<Denoiser> make_cuda_denoiser(const GpuDevice& device) { return std::make_unique<CudaDenoiser>(device); }

}  // namespace pkrt
