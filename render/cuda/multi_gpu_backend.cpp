// One image on several GPUs (`--devices`): a CudaWorker per device index, each with its own grid,
// queues and framebuffer, and one image made of their sums and counts.
//
// Work is shared, never split in advance, so a faster or less loaded GPU takes more:
//   persistent frames  every worker's grid renders the same frame record; its warps take the frame's
//                      paths in chunks from one counter in the first GPU's memory, which the others
//                      reach over peer access (kernels/gpu/gpu_records.h, SharedFrame). One launch per
//                      GPU, all running at once.
//   the other modes    the host hands out chunks of whole samples per pixel: a worker that finishes
//                      one is given the next (the frame record's first sample and count say which).
// Persistent frames fall back to host chunks where a GPU cannot reach the first one's memory with
// atomics (no peer access, or no native peer atomics over its link).
#include <algorithm>
#include <atomic>
#include <exception>
#include <chrono>
#include <optional>
#include <thread>

#include "render/cuda/cuda_backend.h"
#include "render/denoise/denoiser.h"
#include "render/cuda/device_memory.h"
#include "render/distributed/sample_chunks.h"

namespace pkrt {

namespace {

using namespace cuda;

class MultiGpuBackend final : public Backend {
public:
    MultiGpuBackend(const std::vector<GpuDevice>& devices, const SchedulerOptions& opt) {
        if (devices.empty()) throw Error("internal: a multi-GPU backend without devices");
        for (const GpuDevice& d : devices) {
            on(d.index);
            workers_.push_back(make_cuda_worker(d, opt));
        }
        tickets_.assign(workers_.size(), 0);
        peer_atomics_ = enable_peer_atomics(devices);
        on(devices[0].index);
        next_chunk_.allocate(1);
        check(cudaMemset(next_chunk_.get(), 0, sizeof(unsigned long long)), "chunk counter");
    }

    ~MultiGpuBackend() override {
        // Each worker frees its memory on its own device; the chunk counter (a member, freed after
        // this body) on the first.
        const int first = first_device();
        for (auto& w : workers_) {
            cudaSetDevice(w->gpu().index);
            w.reset();
        }
        cudaSetDevice(first);
    }

    std::string name() const override { return "cuda"; }
    std::string device() const override {
        std::string out;
        for (const auto& w : workers_)
            out += (out.empty() ? "" : " + ") + w->gpu().name + " (" + std::to_string(w->gpu().index) + ")";
        return out;
    }
    // Not resident mode: its kernel holds its GPU between frames, and starting one ends any other
    // (render/cuda/resident_scheduler.cpp), so two could never run at once.
    std::vector<SchedulerMode> modes() const override {
        std::vector<SchedulerMode> m = all_modes();
        m.erase(std::remove(m.begin(), m.end(), SchedulerMode::kResident), m.end());
        return m;
    }
    // Four million paths a GPU (frames of a few ms, BENCHMARKS.md): host chunks of whole samples
    // need several samples per pass to share at all.
    uint64_t paths_per_pass() const override { return workers_.size() * (uint64_t{1} << 22); }

    void set_scene(const Scene& scene) override {
        camera_ = scene.camera;
        for_each([&](size_t, CudaWorker& w) { w.set_scene(scene); });
    }

    void reset(int width, int height) override {
        width_ = width;
        height_ = height;
        for_each([&](size_t, CudaWorker& w) { w.reset(width, height); });
    }
    std::unique_ptr<Denoiser> make_denoiser() const override { return workers_[0]->make_denoiser(); }
    std::unique_ptr<Denoiser> make_unet_denoiser(const UnetWeights& weights) const override {
        return workers_[0]->make_unet_denoiser(weights);
    }
    void set_features(bool on) override {
        for_each([&](size_t, CudaWorker& w) { w.set_features(on); });
    }

    // Shared persistent frames are launched on every GPU here and waited for in end; host chunks are
    // handed out in end, where the host can wait for each worker's chunk.
protected:
    void start_frame(const FrameRequest& r) override {
        if (r.adaptive_round) throw Error("internal: an adaptive round on several GPUs");
        if (r.clear) reset(r.settings.width, r.settings.height);
        const RenderSettings& rs = r.settings;
        const uint32_t first_sample = r.first_sample, samples = r.samples;
        if (pending_) throw Error("internal: a multi-GPU frame was begun while another is in flight");
        if (rs.mode == SchedulerMode::kResident) check_mode(*this, *rs.mode);
        pending_ = Pending{rs, first_sample, samples, std::chrono::steady_clock::now(), false};
        cancelled_ = false;
        bool persistent = rs.mode.value_or(SchedulerMode::kPersistent) == SchedulerMode::kPersistent;
        if (!persistent || !peer_atomics_) return;
        unsigned long long paths = make_frame_record(camera_, width_, height_, rs, first_sample, samples, 0).paths();
        if (paths == 0) return;
        // About 32 chunks per worker: a GPU that finishes its last chunk waits at most a chunk's time
        // for the others, and the shared counter sees a few hundred peer atomics a frame.
        unsigned long long per = paths / (32ull * workers_.size());
        uint32_t chunk_paths = static_cast<uint32_t>(std::clamp<unsigned long long>(per, 1024, 1u << 20) / 32 * 32);
        SharedFrame shared;
        shared.next_chunk = next_chunk_.get();
        shared.chunk_base = chunk_base_;
        shared.chunks = static_cast<uint32_t>((paths + chunk_paths - 1) / chunk_paths);
        shared.chunk_paths = chunk_paths;
        for_each([&](size_t i, CudaWorker& w) {
            w.set_camera(camera_);
            w.share_next_frame(shared);
            FrameRequest part;
            part.settings = rs;
            part.first_sample = first_sample;
            part.samples = samples;
            tickets_[i] = w.submit(part);
        });
        pending_->shared = true;
        pending_->chunk_paths = chunk_paths;
    }

    void finish_frame(const FrameRequest&, FrameResult& result) override {
        RenderStats& stats = result.stats;
        if (!pending_) throw Error("internal: no multi-GPU frame in flight to end");
        Pending p = *pending_;
        pending_.reset();
        RenderStats frame;
        std::vector<RenderStats> per(workers_.size());
        std::vector<uint64_t> sample_chunks;
        if (p.shared) {
            for_each([&](size_t i, CudaWorker& w) { per[i].merge(w.wait(tickets_[i]).stats); });
            unsigned long long counter = 0;
            check(cudaMemcpy(&counter, next_chunk_.get(), sizeof(counter), cudaMemcpyDeviceToHost), "chunk counter");
            chunk_base_ = counter;  // the next frame's chunks start where this one's claims ended
            frame.work_sharing = "paths in chunks from a device counter";
        } else {
            sample_chunks = host_chunks(p, per);
            frame.work_sharing = "samples in chunks from the host";
        }
        double slowest_ms = 0.0;
        std::vector<uint64_t> sms;
        frame.devices.resize(workers_.size());
        for (size_t i = 0; i < workers_.size(); ++i) {
            const RenderStats& s = per[i];
            frame.merge(s);
            double ms = 0.0;
            for (double m : s.frame_gpu_ms) ms += m;
            slowest_ms = std::max(slowest_ms, ms);
            sms.insert(sms.end(), s.rays_per_sm.begin(), s.rays_per_sm.end());
            RenderStats::DeviceShare& d = frame.devices[i];
            d.device = workers_[i]->gpu().name;
            d.index = workers_[i]->gpu().index;
            d.samples = s.paths_completed;
            d.gpu_ms = ms;
            d.chunks = p.shared ? chunks_of(s.paths_completed, p) : sample_chunks[i];
        }
        // One frame of the image: as long as its slowest GPU took (host chunks: the wall time).
        frame.frames = 1;
        frame.frame_gpu_ms = {
            p.shared ? slowest_ms
                     : std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - p.start).count()};
        frame.rays_per_sm = sms;  // every GPU's SMs, one after another
        stats.merge(frame);
    }

    bool frame_done(int) const override {
        if (!pending_ || !pending_->shared) return true;
        bool ready = true;
        for_each([&](size_t i, CudaWorker& w) { ready = ready && w.done(tickets_[i]); });
        return ready;
    }

    void cancel_frames(int) override { stop_workers(); }

    void release_device() override {
        for_each([](size_t, CudaWorker& w) { w.drain(); });
    }

public:
    // From another thread: host chunks stop being handed out, and every worker's frame stops.
    void interrupt() override { stop_workers(); }

    void begin_adaptive(const RenderSettings&, const AdaptiveSettings&) override {
        throw Error(
            "--target-error: adaptive sampling runs on one GPU (its rounds are planned on the device); use one --devices index");
    }

protected:
    void begin_adaptive_round() override { throw Error("internal: an adaptive round on several GPUs"); }
    AdaptiveStep end_adaptive_round(RenderStats&) override {
        throw Error("internal: an adaptive round on several GPUs");
    }

public:
    void end_adaptive() override {}

    using Backend::accumulation;

    // Every worker's sums and counts, added (a pixel's samples may come from any GPU).
    void accumulation(Accumulation& out) const override {
        Accumulation part;
        for_each([&](size_t i, CudaWorker& w) {
            w.accumulation(i == 0 ? out : part);
            if (i == 0) return;
            add(out.sums, part.sums);
            add(out.odd_sums, part.odd_sums);
            add(out.counts, part.counts);
            add(out.features, part.features);
        });
    }

    std::vector<uint32_t> sample_counts() const override { return accumulation().counts; }

    void copy_accumulation(float* rgba) const override {
        std::vector<float> part(workers_.size() > 1 ? 4 * pixels() : 0);
        for_each([&](size_t i, CudaWorker& w) {
            w.copy_accumulation(i == 0 ? rgba : part.data());
            if (i == 0) return;
            for (size_t k = 0; k < part.size(); ++k) rgba[k] += part[k];
        });
    }

private:
    void stop_workers() {
        cancelled_ = true;
        for (auto& w : workers_) w->interrupt();  // sets host flags only: no device call
    }

    struct Pending {
        RenderSettings rs;
        uint32_t first_sample = 0, samples = 0;
        std::chrono::steady_clock::time_point start;
        bool shared = false;
        uint32_t chunk_paths = 1;
    };

    // Chunks of whole samples per pixel (render/distributed/sample_chunks.h) from one queue: a host thread per
    // worker, since a frame of the wave schedulers blocks its caller between waves. The first error
    // ends every thread's loop and is rethrown here. Returns the chunks each worker took.
    std::vector<uint64_t> host_chunks(const Pending& p, std::vector<RenderStats>& per) {
        const int n = static_cast<int>(workers_.size());
        ChunkQueue queue(p.samples, chunk_samples(p.samples, pixels(), n), n);
        std::atomic<bool> failed{false};
        std::vector<std::exception_ptr> errors(workers_.size());
        std::vector<std::thread> threads;
        for (int i = 0; i < n; ++i) {
            threads.emplace_back([&, i] {
                try {
                    on(workers_[i]->gpu().index);
                    workers_[i]->set_camera(camera_);
                    for (SampleChunk c = queue.next(i); c.count && !failed && !cancelled_; c = queue.next(i))
                        workers_[i]->accumulate(p.rs, p.first_sample + c.first, c.count, per[i]);
                } catch (...) {
                    errors[i] = std::current_exception();
                    failed = true;
                    stop_workers();
                }
            });
        }
        for (auto& t : threads) t.join();
        on(first_device());
        for (auto& e : errors)
            if (e) std::rethrow_exception(e);
        std::vector<uint64_t> chunks;
        for (const auto& share : queue.shares()) chunks.push_back(share.chunks);
        return chunks;
    }

    // A worker's completed paths in chunks of this frame, rounded up (the frame's last chunk is partial).
    static uint64_t chunks_of(uint64_t paths, const Pending& p) { return (paths + p.chunk_paths - 1) / p.chunk_paths; }

    // Peer access from every GPU to the first, with native atomics over the link; false where one
    // lacks it (its persistent frames then share samples through the host instead).
    static bool enable_peer_atomics(const std::vector<GpuDevice>& devices) {
        const int first = devices[0].index;
        for (const GpuDevice& d : devices) {
            if (d.index == first) continue;
            int access = 0, atomics = 0;
            check(cudaDeviceCanAccessPeer(&access, d.index, first), "cudaDeviceCanAccessPeer");
            check(cudaDeviceGetP2PAttribute(&atomics, cudaDevP2PAttrNativeAtomicSupported, d.index, first),
                  "cudaDeviceGetP2PAttribute");
            if (!access || !atomics) return false;
            check(cudaSetDevice(d.index), "cudaSetDevice");
            cudaError_t e = cudaDeviceEnablePeerAccess(first, 0);
            if (e == cudaErrorPeerAccessAlreadyEnabled) cudaGetLastError();
            else check(e, "cudaDeviceEnablePeerAccess");
        }
        return true;
    }

    // f(i, worker i) with worker i's device current, in order; the first device current after.
    template <class F> void for_each(F&& f) const {
        for (size_t i = 0; i < workers_.size(); ++i) {
            on(workers_[i]->gpu().index);
            f(i, *workers_[i]);
        }
        on(first_device());
    }
    static void on(int device) { check(cudaSetDevice(device), "cudaSetDevice"); }
    int first_device() const { return workers_.front()->gpu().index; }
    template <class T> static void add(std::vector<T>& to, const std::vector<T>& from) {
        for (size_t k = 0; k < to.size() && k < from.size(); ++k) to[k] += from[k];
    }
    size_t pixels() const { return static_cast<size_t>(width_) * height_; }

    std::vector<std::unique_ptr<CudaWorker>> workers_;
    std::vector<FrameTicket> tickets_;  // each worker's part of the shared frame in flight
    bool peer_atomics_ = false;
    DeviceArray<unsigned long long> next_chunk_;  // on the first GPU
    unsigned long long chunk_base_ = 0;
    std::optional<Pending> pending_;
    std::atomic<bool> cancelled_{false};
    int width_ = 0, height_ = 0;
};

}  // namespace

std::unique_ptr<Backend> make_multi_gpu_backend(const std::vector<GpuDevice>& devices,
                                                const SchedulerOptions& options) {
    return std::make_unique<MultiGpuBackend>(devices, options);
}

}  // namespace pkrt
