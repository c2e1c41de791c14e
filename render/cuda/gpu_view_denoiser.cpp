#include "render/cuda/gpu_view_denoiser.h"

#include "kernels/gpu/denoise_launch.h"
#include "kernels/gpu/gpu_launch.h"
#include "render/backend.h"
#include "render/cuda/gpu_denoiser.h"
#include "render/denoise/view_history.h"
#include "render/image/aov.h"

namespace pkrt {

namespace {

using cuda::check;
using cuda::DeviceArray;

// What a view leaves as the next one's history: its surfaces and its blend (kernels/denoise_temporal.h).
struct HistoryBuffers {
    DeviceArray<DenoiseGuide> guide;
    DeviceArray<float> slope, samples;
    DeviceArray<DenoiseTexel> blend;
};

class CudaViewDenoiser final : public ViewDenoiser {
public:
    CudaViewDenoiser(const GpuDevice& d, const cuda::DeviceImageSource& source) : device_(d), source_(source) {}

    std::string device() const override { return device_.name(); }
    bool output_on_device() const override { return !host_result_; }
    const float* finished_rgba() const override { return host_result_ ? rgba_host_.get() : nullptr; }

    // Into device or host memory, whichever `rgba` is (the display's staging path hands device memory
    // whatever this image's side).
    void copy_accumulation(float* rgba) const override {
        check(cudaSetDevice(device_.gpu().index), "denoised view: device");
        cudaPointerAttributes attr{};
        check(cudaPointerGetAttributes(&attr, rgba), "denoised view: pointer");
        if (attr.type != cudaMemoryTypeDevice && host_result_) {
            std::copy(rgba_host_.get(), rgba_host_.get() + 4 * static_cast<size_t>(width_) * height_, rgba);
            return;
        }
        const bool device = attr.type == cudaMemoryTypeDevice;
        if (!device) packed_.allocate(static_cast<size_t>(width_) * height_);
        float4* to = device ? reinterpret_cast<float4*>(rgba) : packed_.get();
        check(launch_pack_rgb(device_.out(), width_, height_, to, device_.stream()), "denoised view: pack");
        if (!device)
            check(cudaMemcpyAsync(rgba, to, packed_.size() * sizeof(float4), cudaMemcpyDeviceToHost, device_.stream()),
                  "denoised view: read back");
        check(cudaStreamSynchronize(device_.stream()), "denoised view: pack");
    }

    bool copy_accumulation_to_surface(unsigned long long surface) const override {
        check(cudaSetDevice(device_.gpu().index), "denoised view: device");
        check(launch_pack_rgb_surface(device_.out(), width_, height_, static_cast<cudaSurfaceObject_t>(surface),
                                      device_.stream()),
              "denoised view: pack");
        check(cudaStreamSynchronize(device_.stream()), "denoised view: pack");
        return true;
    }

    bool refresh(const Backend& backend, const ViewRefresh& r) override {
        check(cudaSetDevice(device_.gpu().index), "denoised view: device");
        const cudaStream_t s = device_.stream();
        cuda::DeviceAccumulation acc;
        const bool readable = source_.device_accumulation(acc, s);  // by kernels: no read-back
        if (!readable) {
            backend.accumulation(host_acc_);
            if (host_acc_.features.empty()) {
                why_ = "no feature buffers in these frames";
                return false;
            }
            acc.width = host_acc_.width;
            acc.height = host_acc_.height;
        }
        why_.clear();
        const int w = acc.width, h = acc.height;
        const size_t n = static_cast<size_t>(w) * h;
        if (device_.reserve(n)) grow(n);
        const DenoiseResolveTo to{device_.color(), device_.albedo(), device_.normal(), device_.depth(), samples_.get()};
        const bool resolve_first = readable && acc.snapshot;
        // A resident grid's image: the first of the steps resolves it.
        steps_.resolve = DenoiseResolve{resolve_first ? acc.snapshot : nullptr, acc.snapshot_features, to};
        if (!readable) upload_host_image(n);
        else if (!resolve_first)
            check(launch_resolve_for_denoise(acc.fb, w, h, acc.block, acc.half, to, s), "denoised view: resolve");
        steps_.temporal = temporal(r, w, h);
        check(cudaMemcpyAsync(reused_count_.get(), &zero_, sizeof(unsigned), cudaMemcpyHostToDevice, s), "denoise");
        check(cudaMemcpyAsync(steps_device_.get(), &steps_, sizeof(steps_), cudaMemcpyHostToDevice, s), "denoise");
        // A resident grid's image goes back to host memory as the display's texels, for its copy engines
        // (no kernel starts beside the grid).
        host_result_ = !readable || acc.snapshot;
        HistoryBuffers& view = history_.current_buffers();  // its guide and slope, temporal or not
        DenoiseBuffers b =
            device_.buffers(view.guide.get(), view.slope.get(), steps_device_.get(), resolve_first, r.temporal);
        b.rgba = host_result_ ? rgba_device_.get() : nullptr;
        device_.run(b, w, h, params_);
        unsigned reused = 0;
        check(cudaMemcpyAsync(&reused, reused_count_.get(), sizeof(unsigned), cudaMemcpyDeviceToHost, s), "denoise");
        if (host_result_)
            check(
                cudaMemcpyAsync(rgba_host_.get(), rgba_device_.get(), 4 * n * sizeof(float), cudaMemcpyDeviceToHost, s),
                "denoised view: read back");
        check(cudaStreamSynchronize(s), "denoise");
        width_ = w;
        height_ = h;
        filter_ms_ = device_.filter_ms();
        reused_ = r.temporal ? static_cast<double>(reused) / static_cast<double>(n) : 0.0;
        return true;
    }

private:
    // The view's own buffers for n pixels beside the steps' (just grown, no resident grid): the history
    // goes with the old ones.
    void grow(size_t n) {
        samples_.allocate(n);
        history_.each([n](HistoryBuffers& v) {
            v.guide.allocate(n);
            v.slope.allocate(n);
            v.samples.allocate(n);
            v.blend.allocate(n);
        });
        reused_count_.allocate(1);
        steps_device_.allocate(1);
        rgba_device_.allocate(4 * n);
        rgba_host_.allocate(4 * n);
        history_.clear();
    }

    // A host image (a resident grid's snapshot) resolved here and uploaded.
    void upload_host_image(size_t n) {
        resolve_accumulation(host_acc_, image_);
        resolve_features(host_acc_, features_);
        host_samples_ = accumulation_samples(host_acc_);
        device_.upload(image_, features_);
        check(cudaMemcpyAsync(samples_.get(), host_samples_.data(), n * sizeof(float), cudaMemcpyHostToDevice,
                              device_.stream()),
              "denoised view: upload");
    }

    // This refresh's temporal step, the history turned over as ViewRefresh asks.
    TemporalBuffers temporal(const ViewRefresh& r, int w, int h) {
        history_.turn_over(r.restart, r.temporal, r.next_view);
        const CameraView camera = make_camera_view(r.camera, w, h);
        const TemporalFrame before = history_.history([](const HistoryBuffers& b) {
            return TemporalFrame{CameraView{}, 0, 0, b.blend.get(), b.guide.get(), b.slope.get(), b.samples.get()};
        });
        HistoryBuffers& now = history_.current(camera, w, h, r.temporal).buffers;
        return TemporalBuffers{
            before, camera, samples_.get(), now.blend.get(), now.samples.get(), reused_count_.get(), TemporalParams{}};
    }

    cuda::DenoiseDevice device_;
    const cuda::DeviceImageSource& source_;
    DenoiseParams params_;
    DeviceArray<float> samples_;
    ViewHistory<HistoryBuffers> history_;
    DeviceArray<unsigned> reused_count_;
    DenoiseViewSteps steps_{};                    // this refresh's resolve and temporal steps,
    DeviceArray<DenoiseViewSteps> steps_device_;  // and their copy the kernels read
    const unsigned zero_ = 0;
    mutable DeviceArray<float4> packed_;
    bool host_result_ = false;
    Accumulation host_acc_;
    Image image_;
    FeatureImages features_;
    std::vector<float> host_samples_;
    DeviceArray<float> rgba_device_;      // a host result's texels (RGBA32F, a = 1), written by the last pass
    cuda::PinnedArray<float> rgba_host_;  // and read back
};

}  // namespace

std::unique_ptr<ViewDenoiser> make_cuda_view_denoiser(const GpuDevice& device, const cuda::DeviceImageSource& source) {
    return std::make_unique<CudaViewDenoiser>(device, source);
}

}  // namespace pkrt
