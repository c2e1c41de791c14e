// The CUDA backend: what every GPU scheduler shares, and the choice of scheduler per frame.
//
// A frame (start_frame .. finish_frame of the frame protocol, render/backend.h) goes to the scheduler of
// its mode (render/cuda/scheduler.h) as a GpuFrame: submitted, then finished in order, its counters
// turned into RenderStats. Display packing and framebuffer read-back run on a second stream that waits
// for the last submitted frame's work, so they never queue behind the next frame's.
#include "render/cuda/cuda_backend.h"

#include <algorithm>
#include <array>

#include "render/cuda/device_scene.h"
#include "render/cuda/frame_stats.h"
#include "render/cuda/gpu_adaptive.h"
#include "render/cuda/gpu_denoiser.h"
#include "render/cuda/gpu_unet_denoiser.h"
#include "render/cuda/gpu_framebuffer.h"
#include "render/cuda/gpu_view_denoiser.h"
#include "render/cuda/scheduler.h"

namespace pkrt {

namespace {

using namespace cuda;

class CudaBackend final : public CudaWorker, public DeviceImageSource {
public:
    CudaBackend(const GpuDevice& dev, const SchedulerOptions& opt) : dev_(dev), opt_(opt) {
        check(cudaSetDevice(dev.index), "cudaSetDevice");
        check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
        check(cudaStreamCreateWithFlags(&display_stream_, cudaStreamNonBlocking), "cudaStreamCreate");
        check(cudaEventCreateWithFlags(&submitted_, cudaEventDisableTiming), "cudaEventCreate");
        frame_.allocate(1);
        counters_.allocate(1);
        // The persistent scheduler is made at once: its grid and queues are checked and sized here, so an
        // impossible grid is refused before anything renders. Its queue set-up is a kernel.
        quit_resident_kernels();
        select(SchedulerMode::kPersistent);
    }

    ~CudaBackend() override {
        if (g_device_wedged) return;
        if (pending_) cudaStreamSynchronize(stream_);  // a frame begun and never ended
        release_device_holder();                       // before any free: a free waits for every kernel
        schedulers_ = {};
        cudaEventDestroy(submitted_);
        cudaStreamDestroy(display_stream_);
        cudaStreamDestroy(stream_);
    }

    std::string name() const override { return "cuda"; }
    std::string device() const override { return dev_.name; }
    std::unique_ptr<Denoiser> make_denoiser() const override { return make_cuda_denoiser(dev_); }
    std::unique_ptr<Denoiser> make_unet_denoiser(const UnetWeights& weights) const override {
        return make_cuda_unet_denoiser(dev_, weights);
    }
    std::unique_ptr<ViewDenoiser> make_view_denoiser() const override { return make_cuda_view_denoiser(dev_, *this); }
    const GpuDevice& gpu() const override { return dev_; }
    void share_next_frame(const SharedFrame& shared) override { shared_ = shared; }
    std::vector<SchedulerMode> modes() const override { return all_modes(); }

    void set_scene(const Scene& scene) override {
        drain();
        camera_ = scene.camera;
        if (scene_ == &scene) return;
        release_device_holder();  // it reads the scene being replaced
        scene_ = &scene;
        dscene_.upload(scene);
        ++scene_id_;
        for (auto& s : schedulers_)
            if (s) s->invalidate();
    }

    void reset(int width, int height) override {
        adaptive_.stop();  // rounds left unfinished end here
        if (device_held() && width == width_ && height == height_) {
            // The next frame clears the framebuffer before its samples, behind the frames still queued
            // (a memset would be a kernel, and wait for the holder's grid forever).
            clear_next_ = true;
            return;
        }
        drain();
        size_t n = static_cast<size_t>(width) * height;
        if (width != width_ || height != height_) release_device_holder();  // it renders into the buffers that go
        width_ = width;
        height_ = height;
        fb_.resize(n, features_on_);
        display_valid_ = false;
        clear_next_ = true;
        block_ = 1;
        odd_valid_ = false;
        clear_now();
    }

    // begin_adaptive on a framebuffer of two halves (even- and odd-numbered samples, kernels/adaptive.h),
    // cleared and kept until the next reset, and the rounds' state. kernel_plans: its paths are the
    // kernel's to read from the plan.
    void start_adaptive(const RenderSettings& rs, const AdaptiveSettings& as, bool kernel_plans) {
        if (as.method != AdaptiveMethod::stop) throw Error(kProportionalCpuOnly);
        adaptive_.stop();
        drain();
        release_device_holder();  // it renders into the buffers that go
        fb_.split(static_cast<size_t>(width_) * height_, stream_);
        clear_next_ = false;
        display_valid_ = false;
        adaptive_.start(rs, as, kernel_plans, width_, height_, framebuffer(), stream_);
        odd_valid_ = true;
        block_ = 1;
    }

    // The next reset() allocates the buffers anew; a kernel that holds the device renders into the old ones.
    void set_features(bool on) override {
        if (on == features_on_) return;
        release_device();
        features_on_ = on;
        width_ = height_ = 0;
    }

    // From another thread: the frame being waited for sees the flag and stops itself.
    void interrupt() override { stop_flag_.host()[0] = 1; }

    void set_queue_ahead(bool on) override {
        if (on != queue_ahead_) drain();
        queue_ahead_ = on;
    }

    const float* finished_rgba() const override { return showing_snapshot() ? shown_image_ : nullptr; }

protected:
    // Queued frames are submitted and ended on one thread, which stops them here through the scheduler's
    // own channel where it has one (the stop flag would also stop the frames queued after).
    void cancel_frames(int through) override {
        (void)through;
        if (pending_ && pending_->cancel_outstanding()) return;
        stop_flag_.host()[0] = 1;
    }

    void start_frame(const FrameRequest& r) override {
        if (r.clear) reset(r.settings.width, r.settings.height);
        if (r.adaptive_round) begin_adaptive_round();
        else begin_accumulate(r.settings, r.first_sample, r.samples);
    }

    void finish_frame(const FrameRequest& r, FrameResult& result) override {
        if (r.adaptive_round) result.step = end_adaptive_round(result.stats);
        else end_accumulate(result.stats);
        result.cancelled = last_cancelled_;
    }

    bool frame_done(int position) const override {
        if (!pending_) return true;
        // Frames end in order; a later one is reported done once it is the oldest (conservative).
        if (position > 0) return false;
        return pending_->oldest_done();
    }

    // Queued ahead, a scheduler keeps one place of its queue free: a new view's frame goes in behind
    // frames just cancelled, without waiting for them.
    int max_outstanding(const RenderSettings& rs) const override {
        return queue_ahead_ ? std::max(1, cuda::max_outstanding(rs.mode.value_or(SchedulerMode::kPersistent)) - 1) : 1;
    }

    bool holds_device(const RenderSettings& rs) const override {
        return holds_device_between_frames(rs.mode.value_or(SchedulerMode::kPersistent));
    }
    bool rounds_one_at_a_time(const RenderSettings& rs) const override {
        return !plans_rounds(rs.mode.value_or(SchedulerMode::kPersistent));
    }

    void release_device() override {
        drain();
        release_device_holder();
        display_valid_ = false;
    }

private:
    // One frame on the scheduler of its mode, queued; end_accumulate waits for the oldest.
    void begin_accumulate(const RenderSettings& rs, uint32_t first_sample, uint32_t samples) {
        const SchedulerMode mode = rs.mode.value_or(SchedulerMode::kPersistent);
        if (pending_ &&
            !(pending_ == schedulers_[static_cast<size_t>(mode)].get() && pending_count_ < pending_->max_outstanding()))
            throw Error("internal: a CUDA frame was begun while another is in flight");
        GpuScheduler& s = select(mode);
        if (pending_count_ == 0) stop_flag_.host()[0] = 0;
        GpuFrame f = gpu_frame(rs, first_sample, samples);
        s.submit(f);
        check(cudaEventRecord(submitted_, stream_), "cudaEventRecord");
        clear_next_ = false;
        pending_ = &s;
        ++pending_count_;
        paths_ = f.paths();
    }

    GpuFrame gpu_frame(const RenderSettings& rs, uint32_t first_sample, uint32_t samples) {
        GpuFrame f;
        f.stream = stream_;
        f.scene = dscene_.view();
        f.record = make_frame_record(camera_, width_, height_, rs, first_sample, samples, ++epoch_);
        odd_valid_ = odd_valid_ && adaptive_.on();  // a frame outside the rounds adds no odd sums
        if (adaptive_.on()) adaptive_.attach(f);
        if (clear_next_) f.job_flags |= kJobClear;
        f.want_image = queue_ahead_ && !adaptive_.on();
        // A preview renders a smaller image into the framebuffer's first pixels; every reading of it
        // shows them as blocks (the resident kernel's pack does so itself).
        block_ = std::max(1, rs.preview);
        f.block = block_;
        f.image_width = width_;
        f.image_height = height_;
        f.frame = frame_.get();
        f.fb = framebuffer();
        f.counters = counters_.get();
        f.stop_device = stop_flag_.device();
        f.stop_host = stop_flag_.host();
        f.scene_id = scene_id_;
        f.shared = shared_;
        shared_ = SharedFrame{};
        // Aim the timeline at timeline_points from the time per path the last frame took, scaled to this
        // frame's paths (a viewer's frames change size). Warps look at the clock only every few
        // iterations, so short frames (mostly a tail of few busy warps) land nearer a third of the aim.
        f.timeline_interval_ns = static_cast<unsigned>(
            std::clamp(ns_per_path_ * static_cast<double>(f.paths()) / opt_.timeline_points, 200.0, 1e7));
        return f;
    }

    void end_accumulate(RenderStats& stats) {
        if (!pending_) throw Error("internal: no CUDA frame in flight to end");
        GpuScheduler& s = *pending_;
        if (--pending_count_ == 0) pending_ = nullptr;
        FrameOutcome out = s.finish();
        check(cudaGetLastError(), "frame");
        if (out.image) {
            shown_image_ = out.image;
            shown_features_ = out.features;
            shown_device_image_ = out.device_image;
            shown_device_features_ = out.device_features;
            display_valid_ = true;
        }
        RenderStats f = frame_stats(*out.counters, out.gpu_ms, dev_.multiprocessors);
        last_cancelled_ = stop_flag_.host()[0] != 0 || out.cancelled;
        s.end(out.gpu_ms, last_cancelled_, f);
        stats.merge(f);
        if (paths_ > 0 && out.gpu_ms > 0.0f) ns_per_path_ = out.gpu_ms * 1e6 / static_cast<double>(paths_);
    }

public:
    // Rounds of one frame each, the device's scan behind every one (kernels/gpu/adaptive_scan.cu): the
    // scan writes the next round's plan and work list in device memory, and the host reads back only
    // its log, to report progress and to stop. Resident mode queues its rounds ahead, blind: the kernel
    // itself scans once a round drains and sizes the next from the plan it wrote.
    void accumulate_adaptive(const RenderSettings& rs, const AdaptiveSettings& as, AdaptiveReport& report,
                             RenderStats& stats, Progress* progress) override {
        GpuScheduler& s = select(rs.mode.value_or(SchedulerMode::kPersistent));
        if (!s.plans_rounds()) return Backend::accumulate_adaptive(rs, as, report, stats, progress);
        start_adaptive(rs, as, true);
        AdaptiveRounds rounds(as, report, static_cast<uint64_t>(width_) * height_,
                              progress);  // its clock starts with the first round
        // Rounds queued after the time limit passed still run, and are reported; those queued past the
        // last have no samples and are not.
        uint32_t queued = 0, ended = 0;
        bool more = true;
        while (ended < queued || more) {
            while (more && static_cast<int>(queued - ended) < s.max_outstanding()) {
                begin_accumulate(adaptive_.round(), 0, adaptive_.min_spp());
                adaptive_.round_queued();
                ++queued;
            }
            end_accumulate(stats);
            const AdaptiveRoundLog& log = adaptive_.read(stream_).log[ended++ % kAdaptiveLogRounds];
            if (log.paths == 0) {
                more = false;
                continue;
            }
            if (!rounds.record(adaptive_.step(log), stats.samples)) more = false;
        }
        release_device_holder();  // the halves' sum is a kernel
        end_adaptive();
    }

    void begin_adaptive(const RenderSettings& rs, const AdaptiveSettings& as) override {
        if (!rounds_one_at_a_time(rs))
            throw Error(
                "adaptive rounds one at a time do not run in resident mode (its kernel queues them itself: pkrt render "
                "--target-error); use persistent, relaunch, graph or megakernel");
        start_adaptive(rs, as, false);
    }

protected:
    void begin_adaptive_round() override {
        if (!adaptive_.on()) throw Error("internal: an adaptive round without begin_adaptive");
        begin_accumulate(adaptive_.round(), 0, adaptive_.min_spp());
        adaptive_.scan(width_, height_, stream_);
    }

    AdaptiveStep end_adaptive_round(RenderStats& stats) override {
        if (!adaptive_.on()) throw Error("internal: an adaptive round without begin_adaptive");
        end_accumulate(stats);
        return adaptive_.end_round(stream_);
    }

public:
    void end_adaptive() override {
        if (!adaptive_.on()) return;
        drain();
        check(launch_adaptive_combine(framebuffer(), width_, height_, stream_), "adaptive combine");
        check(cudaStreamSynchronize(stream_), "adaptive combine");
        adaptive_.stop();
    }

    using Backend::accumulation;  // the copy-returning one beside the override below

    std::vector<uint32_t> sample_counts() const override {
        std::vector<uint32_t> out(static_cast<size_t>(width_) * height_);
        if (showing_snapshot()) {
            for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<uint32_t>(shown_image_[4 * i + 3]);
            return out;
        }
        if (clear_next_) return std::vector<uint32_t>(out.size(), 0u);  // the clear is still to come
        if (block_ > 1) return accumulation().counts;
        after_frame();
        fb_.read_counts(out.data(), 0, out.size(), display_stream_);
        if (odd_half()) fb_.add_second_half_counts(out, display_stream_);  // between adaptive rounds
        return out;
    }

    // Queued-ahead resident frames come to the host (the kernel packs them; no other kernel can run).
    bool output_on_device() const override { return !showing_snapshot(); }

    void copy_accumulation(float* rgba) const override {
        if (showing_snapshot()) {
            std::copy_n(shown_image_, 4 * static_cast<size_t>(width_) * height_, rgba);
            return;
        }
        pack_for_display([&](const DeviceFramebuffer& fb) {
            return launch_pack_accumulation(fb, width_, height_, block_, odd_half(), reinterpret_cast<float4*>(rgba),
                                            display_stream_);
        });
    }

    bool copy_accumulation_to_surface(unsigned long long surface) const override {
        pack_for_display([&](const DeviceFramebuffer& fb) {
            return launch_pack_accumulation_surface(fb, width_, height_, block_, odd_half(),
                                                    static_cast<cudaSurfaceObject_t>(surface), display_stream_);
        });
        return true;
    }

    bool device_accumulation(DeviceAccumulation& out, cudaStream_t stream) const override {
        out = DeviceAccumulation{framebuffer(), width_, height_, block_, odd_half(), nullptr, nullptr};
        if (showing_snapshot()) {  // packed whole by the grid, in its snapshot slot in device memory
            out.snapshot = shown_device_image_;
            out.snapshot_features = shown_device_features_;
            return out.snapshot_features != nullptr;
        }
        if (device_held() || clear_next_ || !fb_.has_features()) return false;
        quit_resident_kernels();  // another backend's
        check(cudaStreamWaitEvent(stream, submitted_, 0), "cudaStreamWaitEvent");
        return true;
    }

    // Copies out of host memory the copy engine wrote (the resident snapshot, or the framebuffer):
    // sequences take every frame's accumulation on their render loop, where temporaries, passes over
    // the pixels and pageable copies cost more than the frame's GPU time (BENCHMARKS.md, image
    // sequences).
    void accumulation(Accumulation& a) const override {
        size_t n = static_cast<size_t>(width_) * height_;
        a.width = width_;
        a.height = height_;
        if (showing_snapshot()) {
            a.rgba.assign(shown_image_, shown_image_ + 4 * n);
            a.sums.clear();
            a.counts.clear();
            a.features.assign(shown_features_, shown_features_ ? shown_features_ + kFeatureFloats * n : nullptr);
            return;
        }
        after_frame();
        fb_.read_image(a, n, clear_next_, odd_valid_, odd_half() != 0, display_stream_);
        expand_preview(a, block_);
    }

private:
    // The scheduler of `mode`, made the first time; one that holds the device lets it go first (the
    // new one's launches would wait for it).
    GpuScheduler& select(SchedulerMode mode) {
        auto& s = schedulers_[static_cast<size_t>(mode)];
        for (auto& other : schedulers_)
            if (other && other != s && other->holds_device()) other->release();
        if (!s) s = make_scheduler(mode, dev_, opt_);
        return *s;
    }

    // Resolve and display read the last ended frame's packed image, not the framebuffer that queued
    // frames are writing.
    bool showing_snapshot() const { return queue_ahead_ && display_valid_ && shown_image_ && device_held(); }

    DeviceFramebuffer framebuffer() const { return fb_.view(); }
    // Between adaptive rounds the odd-numbered samples are in the framebuffer's second half, this many
    // pixels on; 0 otherwise.
    size_t odd_half() const { return adaptive_.on() ? static_cast<size_t>(width_) * height_ : 0; }

    // A clear asked for by reset() and not yet made by a frame, made here (no grid holds the device).
    void clear_now() {
        if (!clear_next_) return;
        quit_resident_kernels();  // another backend's: a memset is a kernel
        fb_.clear(static_cast<size_t>(width_) * height_, stream_);
        clear_next_ = false;
        display_valid_ = false;
    }

    bool device_held() const {
        for (const auto& s : schedulers_)
            if (s && s->holds_device()) return true;
        return false;
    }
    void release_device_holder() {
        for (auto& s : schedulers_)
            if (s && s->holds_device()) s->release();
    }
    // A pack for display after the last frame, waited for. Packing is a kernel, and it would wait for a grid
    // that holds the device forever.
    template <class Launch> void pack_for_display(Launch&& launch) const {
        if (device_held())
            throw Error("resident mode: the accumulation cannot be packed for display while the kernel runs");
        quit_resident_kernels();  // another backend's
        after_frame();
        check(launch(framebuffer()), "pack accumulation");
        check(cudaStreamSynchronize(display_stream_), "pack accumulation");
    }

    // The display stream's work waits for the last frame's work (a no-op before the first frame).
    void after_frame() const { check(cudaStreamWaitEvent(display_stream_, submitted_, 0), "cudaStreamWaitEvent"); }

    // Frames still in flight when the buffers or scene change under them: wait, drop their counters.
    void drain() {
        finish_outstanding();  // the protocol's frames
        while (pending_) {     // frames queued here directly (resident adaptive rounds)
            RenderStats ignored;
            end_accumulate(ignored);
        }
    }

    GpuDevice dev_;
    SchedulerOptions opt_;
    SharedFrame shared_{};  // the next frame's share of a frame other grids render too
    cudaStream_t stream_ = nullptr, display_stream_ = nullptr;
    cudaEvent_t submitted_ = nullptr;  // after the last submitted frame's work on stream_
    const Scene* scene_ = nullptr;
    unsigned long long scene_id_ = 0;
    uint32_t epoch_ = 0;
    DeviceScene dscene_;
    int width_ = 0, height_ = 0, pending_count_ = 0;
    GpuFramebuffer fb_;
    DeviceArray<FrameRecord> frame_;
    DeviceArray<GpuCounters> counters_;
    const float* shown_image_ = nullptr;     // the last ended frame's packed image (FrameOutcome::image)
    const float* shown_features_ = nullptr;  // and its features, where it has them
    // The same in device memory (FrameOutcome::device_image).
    const float *shown_device_image_ = nullptr, *shown_device_features_ = nullptr;
    bool display_valid_ = false, queue_ahead_ = false;
    bool features_on_ = false;  // set_features: the framebuffer's next allocation keeps feature sums
    bool clear_next_ = false;   // reset() asked for a clear the next frame makes
    int block_ = 1;             // the image's preview block (RenderSettings::preview), 1 for a full one
    MappedHost<int> stop_flag_;
    std::array<std::unique_ptr<GpuScheduler>, 5> schedulers_;
    GpuScheduler* pending_ = nullptr;
    unsigned long long paths_ = 0;
    double ns_per_path_ = 6.0;  // first frames: a large GPU on a large scene (BENCHMARKS.md)
    GpuAdaptiveRounds adaptive_;
    bool last_cancelled_ = false;  // the last ended frame stopped before all its samples
    bool odd_valid_ = false;       // the framebuffer's second half holds this image's odd sums
};

}  // namespace

std::vector<int> persistent_builds() { return {std::begin(kPersistentBlocksPerSm), std::end(kPersistentBlocksPerSm)}; }

std::unique_ptr<Backend> make_cuda_backend(const GpuDevice& device, const SchedulerOptions& options) {
    return std::make_unique<CudaBackend>(device, options);
}

std::unique_ptr<CudaWorker> make_cuda_worker(const GpuDevice& device, const SchedulerOptions& options) {
    return std::make_unique<CudaBackend>(device, options);
}

}  // namespace pkrt
