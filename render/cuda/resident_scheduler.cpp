// Resident mode's host side: the persistent loop launched once (kernels/gpu/resident.cuh) and fed one job
// per frame through a ring in mapped host memory, so a frame costs no launch at all. The kernel lives
// until quit(): another mode, a new scene or size, or the backend's end. Completion, progress and the
// frame's device time come back through mapped memory; each job counts into a counter set of its own
// (one per ring slot), read with copy-engine copies, which run beside the grid (any other kernel would
// wait for it to leave). A queued frame's image is packed by the kernel and copied out.
#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>
#include <thread>

#include "render/cuda/ray_queues.h"
#include "render/log.h"
#include "render/policy_tuner.h"
#include "render/cuda/scheduler.h"

namespace pkrt::cuda {

namespace {

constexpr int kStallSeconds = 10;
using Clock = std::chrono::steady_clock;

class ResidentScheduler;
std::mutex g_running_mutex;
std::vector<ResidentScheduler*> g_running;  // resident kernels on the GPU now, of every backend

class ResidentScheduler final : public GpuScheduler {
    // A job's device-clock times and whether it was cancelled.
    struct JobTimes {
        unsigned long long start_ns = 0, end_ns = 0;
        bool cancelled = false;
    };
    // A job's outcome, kept where the kernel quit before finish() read it.
    struct Ended {
        JobTimes times;
        GpuCounters counters;
        // The queues' counters before the job and when the kernel quit (the same for later jobs, which
        // count nothing of the queues then: a relaunch starts them afresh).
        std::array<QueueCounters, 2> queues_before{}, queues{};
    };
    struct Outstanding {
        uint32_t seq = 0;
        int slot = -1;  // its image's snapshot slot (-1: none)
        PersistentPolicy policy;
        bool trial = false;
        unsigned long long paths = 0;
        std::shared_ptr<const Ended> ended;  // set where the kernel quit after the job and before finish()
    };

public:
    ResidentScheduler(const GpuDevice& dev, const SchedulerOptions& opt) : opt_(opt), device_(dev.index) {
        quit_resident_kernels();  // another backend's: the queue set-up below is a kernel
        if (opt_.blocks_per_sm != 0 && opt_.blocks_per_sm != kResidentBlocksPerSm)
            throw Error("blocks_per_sm " + std::to_string(opt_.blocks_per_sm) + ": the resident kernel is built for " +
                        std::to_string(kResidentBlocksPerSm) + " only");
        if (opt_.stragglers == Stragglers::kSorted)
            throw Error("stragglers=sorted: the resident kernel keeps every warp's bounces in its lanes (kept only)");
        int occupancy = resident_occupancy();
        if (occupancy <= 0) throw Error("CUDA: the resident kernel cannot be resident on " + dev.name);
        int resident = occupancy * dev.multiprocessors;
        if (opt_.grid_blocks > resident)
            throw Error("resident grid of " + std::to_string(opt_.grid_blocks) + " blocks exceeds the " +
                        std::to_string(resident) + " that can be co-resident on " + dev.name);
        blocks_ = opt_.grid_blocks > 0 ? opt_.grid_blocks : resident;
        uint32_t lanes = static_cast<uint32_t>(blocks_) * kPersistentThreads;
        uint32_t cap = opt_.queue_capacity;
        if (cap == 0)
            for (cap = 1; cap < 2 * lanes; cap <<= 1) {}
        check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
        control_.allocate(1);
        resident_control_.allocate(1);
        paths_.allocate(cap, stream_);
        shadows_.allocate(cap, stream_);
        check(cudaStreamSynchronize(stream_), "queue init");
    }

    // Its own memory is freed after quit() (the members' destructors run after this body).
    ~ResidentScheduler() override {
        try {
            quit(true);
        } catch (...) {  // a wedged kernel: left to the driver's teardown (g_device_wedged)
        }
        if (!g_device_wedged) cudaStreamDestroy(stream_);
    }

    int max_outstanding() const override { return kMaxOutstanding; }
    bool holds_device() const override { return running_; }
    bool plans_rounds() const override { return true; }
    void release() override { quit(); }
    bool oldest_done() const override { return outstanding_.empty() || done(outstanding_.front()); }
    bool cancel_outstanding() override {
        if (!outstanding_.empty()) ring_.host()->cancel = outstanding_.back().seq;
        return true;
    }

    void submit(const GpuFrame& f) override {
        if (static_cast<int>(outstanding_.size()) >= kMaxOutstanding)
            throw Error("internal: more than " + std::to_string(kMaxOutstanding) + " resident frames outstanding");
        if (f.shared.next_chunk) throw Error("internal: a shared frame outside persistent mode");
        copy_stream_ = f.stream;
        stop_host_ = f.stop_host;
        std::array<unsigned long long, 5> key{
            reinterpret_cast<unsigned long long>(f.fb.radiance), reinterpret_cast<unsigned long long>(f.fb.features),
            reinterpret_cast<unsigned long long>(f.frame), f.scene_id,
            static_cast<unsigned long long>(f.image_width) << 32 | static_cast<unsigned>(f.image_height)};
        if (running_ && key != key_) quit();
        if (!running_) {
            launch(f);
            launches_pending_ = 1;
        }
        key_ = key;
        ResidentJob& job = ring_.host()->jobs[(seq_ + 1) % kResidentRingSlots];
        job.frame = f.record;
        job.command = kResidentRender;
        job.timeline_interval_ns = f.timeline_interval_ns;
        // The shadow policy is the job's: the first jobs of a configuration time both (as persistent
        // frames do), later ones run the faster. The build (registers) is the kernel's for its life.
        Outstanding o;
        o.policy = tuner_.next(f.tuning_key(), candidates(), &o.trial);
        o.paths = f.paths();
        job.flags = f.job_flags | (o.policy.queue_shadows ? kJobQueueShadows : 0u);
        o.slot = -1;
        if (f.want_image) {  // the kernel packs the image as the frame ends
            o.slot = free_snapshot_slot();
            job.flags |= kJobSnapshot | (snapshot_features_ ? kJobSnapshotFeatures : 0u);
            job.snapshot = snapshots_.get() + static_cast<size_t>(o.slot) * snapshot_floats();
        } else {
            job.snapshot = nullptr;
        }
        job.adaptive = f.adaptive;
        job.block = f.block;
        job.image_width = f.image_width;
        job.image_height = f.image_height;
        publish(++seq_);
        o.seq = seq_;
        outstanding_.push_back(o);
    }

    // The oldest frame's counters, time and image; the image comes with the counters (copy engines run
    // beside the grid), behind one wait.
    FrameOutcome finish() override {
        wait(oldest());
        const Outstanding& o = outstanding_.front();
        const JobTimes r = o.ended ? o.ended->times : times(o.seq);
        FrameOutcome out;
        out.gpu_ms = static_cast<float>(r.end_ns - r.start_ns) * 1e-6f;
        out.cancelled = r.cancelled;
        // What a view change costs on the GPU: the relay gap before a job, and how soon a cancelled one ends.
        log_debug("resident job %u%s: %.3f ms on the GPU, begun %.3f ms after the job before ended", o.seq,
                  out.cancelled ? " (cancelled)" : "", out.gpu_ms,
                  last_end_ns_ ? static_cast<double>(static_cast<long long>(r.start_ns - last_end_ns_)) * 1e-6 : 0.0);
        last_end_ns_ = r.end_ns;
        if (o.ended) std::memcpy(static_cast<void*>(counters_host_.host()), &o.ended->counters, sizeof(GpuCounters));
        else
            check(cudaMemcpyAsync(counters_host_.host(), counters_.get() + o.seq % kResidentRingSlots,
                                  sizeof(GpuCounters), cudaMemcpyDeviceToHost, copy_stream_),
                  "read counters");
        if (o.slot >= 0 && !out.cancelled) {
            size_t floats = snapshot_floats();
            check(cudaMemcpyAsync(image_host_.get(), snapshots_.get() + o.slot * floats, floats * sizeof(float),
                                  cudaMemcpyDeviceToHost, copy_stream_),
                  "read snapshot");
            out.image = image_host_.get();
            out.device_image = snapshots_.get() + o.slot * floats;
            if (snapshot_features_) {
                out.features = image_host_.get() + 4 * pixels_;
                out.device_features = out.device_image + 4 * pixels_;
            }
            shown_slot_ = o.slot;
        }
        check(cudaStreamSynchronize(copy_stream_), "read counters");
        out.counters = counters_host_.host();
        return out;
    }

    void end(float ms, bool cancelled, RenderStats& stats) override {
        Outstanding o = std::move(outstanding_.front());
        outstanding_.pop_front();
        const std::array<QueueCounters, 2> before = o.ended ? o.ended->queues_before : before_;
        const std::array<QueueCounters, 2> after = o.ended ? o.ended->queues : queue_counters(copy_stream_);
        if (!o.ended) before_ = after;
        if (o.trial && !cancelled && o.paths > 0)
            tuner_.record(o.policy, ms * 1e6f / static_cast<float>(o.paths));  // ns per path
        stats.kernel_launches += launches_pending_;
        launches_pending_ = 0;
        stats.enqueued += (after[0].tail - before[0].tail) + (after[1].tail - before[1].tail);
        stats.dequeued += (after[0].head - before[0].head) + (after[1].head - before[1].head);
        stats.peak_queue = std::max<uint64_t>(stats.peak_queue, static_cast<uint64_t>(after[0].peak) + after[1].peak);
        stats.grid_blocks = blocks_;
        stats.blocks_per_sm = kResidentBlocksPerSm;
        stats.shadows_queued = o.policy.queue_shadows;
        stats.policy_trial = o.trial;
        stats.stragglers_sorted = 0;
        stats.block_threads = kPersistentThreads;
        stats.queue_capacity = static_cast<int>(paths_.capacity);
    }

    // Ends the kernel. A quit comes from anywhere in the process (every free calls quit_resident_kernels),
    // so the frames the backend has queued run to their end first and their outcomes are kept for
    // finish(), as if the kernel still ran; the next frame launches it again. `drop`: nobody will wait
    // for them (this scheduler's end), and they are cancelled instead.
    bool quit(bool drop = false) {
        if (!running_) return false;
        if (drop) outstanding_.clear();
        else if (!outstanding_.empty()) wait(outstanding_.back());
        running_ = false;
        {
            std::lock_guard<std::mutex> lock(g_running_mutex);
            g_running.erase(std::remove(g_running.begin(), g_running.end(), this), g_running.end());
        }
        if (status_.host()->completed != seq_) ring_.host()->cancel = seq_;  // jobs begun and never waited for
        ring_.host()->jobs[(seq_ + 1) % kResidentRingSlots].command = kResidentQuit;
        publish(++seq_);
        auto deadline = Clock::now() + std::chrono::seconds(5);
        for (;;) {
            cudaError_t e = cudaStreamQuery(stream_);
            if (e == cudaSuccess) break;
            if (e != cudaErrorNotReady) check(e, "resident kernel");
            if (Clock::now() > deadline) {
                g_device_wedged = true;
                throw Error("the resident kernel did not quit within 5 s; the GPU is left to the driver at exit");
            }
            std::this_thread::sleep_for(std::chrono::microseconds(50));
        }
        keep_outcomes();
        return true;
    }

    void invalidate() override { quit(); }

    int device() const { return device_; }

    // The denoiser's steps as the grid's side job (kernels/gpu/gpu_records.h), between two frames' jobs,
    // once `inputs` (the stream that uploads them) is done; blocks until they are done and returns their
    // GPU time in ms.
    float denoise(const DenoiseJob& job, cudaStream_t inputs) {
        if (!running_) throw Error("internal: a resident denoise without a resident kernel");
        check(cudaStreamSynchronize(inputs), "denoise: upload");
        const auto posted = Clock::now();
        ring_.host()->side_job = job;
        std::atomic_thread_fence(std::memory_order_seq_cst);
        ring_.host()->side = ++side_;
        const ResidentStatus* s = status_.host();
        auto deadline = Clock::now() + std::chrono::seconds(kStallSeconds);
        while (s->side_completed != side_) {
            expect_running("its denoise job");
            if (Clock::now() > deadline)
                throw Error("resident kernel: its denoise job was not done within " + std::to_string(kStallSeconds) +
                            " s");
            std::this_thread::sleep_for(std::chrono::microseconds(50));
        }
        std::atomic_thread_fence(std::memory_order_seq_cst);
        const float gpu_ms = static_cast<float>(s->side_end_ns - s->side_start_ns) * 1e-6f;
        // The rest of the wait is the frame the grid was rendering when the job came (it runs between jobs).
        log_debug("resident denoise: done %.3f ms after it was posted, %.3f ms of it on the GPU",
                  std::chrono::duration<double, std::milli>(Clock::now() - posted).count(), gpu_ms);
        return gpu_ms;
    }

private:
    // Two frames of an image (the next waits queued on the GPU while the host takes the last one's
    // image, so the grid never idles; more would only add latency), and one more of a new view queued
    // behind two that were just cancelled. With the quit job, the ring's four slots.
    static constexpr int kMaxOutstanding = kResidentRingSlots - 1;
    unsigned long long last_end_ns_ = 0;  // the GPU time the last job read by finish() ended

    // Until job `o` is done: the host's stop flag cancels the jobs; a kernel that stops making progress is
    // an error, not a hang.
    void wait(const Outstanding& o) {
        const uint32_t seq = o.seq;
        const LiveStats* live = live_.host();
        auto snapshot = [live] {
            return std::array<long long, 4>{static_cast<long long>(live->rays),
                                            static_cast<long long>(live->samples_done), live->path_queue,
                                            live->in_flight};
        };
        auto start = Clock::now(), last_change = start;
        auto seen = snapshot();
        bool cancelled = false;
        while (!done(o)) {
            expect_running("job " + std::to_string(seq));
            if (!cancelled && *stop_host_) {  // cancel(): the jobs stop claiming samples and drain
                cancel_outstanding();
                cancelled = true;
            }
            auto now = Clock::now();
            if (now - start > std::chrono::milliseconds(1)) std::this_thread::sleep_for(std::chrono::microseconds(100));
            auto current = snapshot();
            if (current != seen || !opt_.timeline) {
                seen = current;
                last_change = now;
            } else if (now - last_change > std::chrono::seconds(kStallSeconds)) {
                throw Error("resident kernel made no progress on job " + std::to_string(seq) + " for " +
                            std::to_string(kStallSeconds) + " s (" + std::to_string(seen[1]) + " samples done, " +
                            std::to_string(seen[3]) + " in flight)");
            }
        }
    }

    // An Error unless the kernel still runs: it must not end before `what` is done.
    void expect_running(const std::string& what) const {
        cudaError_t e = cudaStreamQuery(stream_);
        if (e == cudaSuccess) throw Error("the resident kernel ended before " + what + " was done");
        if (e != cudaErrorNotReady) check(e, "resident kernel");
    }

    const Outstanding& oldest() const {
        if (outstanding_.empty()) throw Error("internal: no resident frame outstanding");
        return outstanding_.front();
    }
    bool done(uint32_t seq) const { return static_cast<int32_t>(status_.host()->completed - seq) >= 0; }
    bool done(const Outstanding& o) const { return o.ended || done(o.seq); }

    // A done job's outcome while its ring and counter slots are still its own.
    JobTimes times(uint32_t seq) const {
        const ResidentJobResult& r = status_.host()->results[seq % kResidentRingSlots];
        return JobTimes{r.start_ns, r.end_ns, r.cancelled != 0};
    }

    // The queues' counters since the launch, read by the copy engines beside the grid.
    std::array<QueueCounters, 2> queue_counters(cudaStream_t s) const {
        std::array<QueueCounters, 2>& after = *after_.host();
        check(cudaMemcpyAsync(&after[0], paths_.counters.get(), sizeof(QueueCounters), cudaMemcpyDeviceToHost, s),
              "queue counters");
        check(cudaMemcpyAsync(&after[1], shadows_.counters.get(), sizeof(QueueCounters), cudaMemcpyDeviceToHost, s),
              "queue counters");
        check(cudaStreamSynchronize(s), "queue counters");
        return after;
    }

    // After a quit, the outstanding jobs' outcomes, copied out of the ring, counter sets and queues that
    // the next launch starts afresh.
    void keep_outcomes() {
        if (outstanding_.empty()) return;
        const std::array<QueueCounters, 2> queues = queue_counters(stream_);
        for (Outstanding& o : outstanding_) {
            if (o.ended) continue;
            auto e = std::make_shared<Ended>();
            e->times = times(o.seq);
            check(cudaMemcpy(&e->counters, counters_.get() + o.seq % kResidentRingSlots, sizeof(GpuCounters),
                             cudaMemcpyDeviceToHost),
                  "read counters");
            e->queues_before = before_;
            e->queues = before_ = queues;
            o.ended = std::move(e);
        }
    }

    // The kernel's one build, bounces kept, and the shadow policies the options leave open.
    std::vector<PersistentPolicy> candidates() const {
        std::vector<PersistentPolicy> out;
        for (int q : shadow_policies(opt_)) out.push_back(PersistentPolicy{kResidentBlocksPerSm, q, 0});
        return out;
    }

    void publish(uint32_t seq) {
        ring_.host()->jobs[seq % kResidentRingSlots].seq = seq;
        std::atomic_thread_fence(std::memory_order_seq_cst);
        ring_.host()->head = seq;
    }

    void launch(const GpuFrame& f) {
        quit_resident_kernels();  // another backend's would keep this one from starting
        check(cudaMemsetAsync(control_.get(), 0, sizeof(FrameControl), stream_), "resident control");
        check(cudaMemsetAsync(resident_control_.get(), 0, sizeof(ResidentControl), stream_), "resident control");
        counters_.allocate(kResidentRingSlots);
        check(cudaMemsetAsync(counters_.get(), 0, kResidentRingSlots * sizeof(GpuCounters), stream_),
              "resident counters");
        // Allocated here, with no grid of this scheduler's running (a free would wait for it forever).
        pixels_ = static_cast<size_t>(f.image_width) * f.image_height;
        snapshot_features_ = f.fb.features != nullptr;
        if (snapshots_.size() != kSnapshotSlots * snapshot_floats()) {
            if (!outstanding_.empty()) throw Error("internal: a resident image resized under frames outstanding");
            snapshots_.allocate(kSnapshotSlots * snapshot_floats());
            shown_slot_ = -1;
        }
        image_host_.allocate(snapshot_floats());
        paths_.reset(stream_);
        shadows_.reset(stream_);
        check(cudaStreamSynchronize(stream_), "resident set-up");
        std::memset(static_cast<void*>(ring_.host()), 0, sizeof(ResidentRing));
        std::memset(static_cast<void*>(status_.host()), 0, sizeof(ResidentStatus));
        before_ = {};
        seq_ = 0;
        side_ = 0;
        // The shadow policy comes with each job (kJobQueueShadows); resident warps keep their bounces.
        PersistentParams p =
            persistent_params(f, opt_, paths_, shadows_, control_.get(), live_.device(), blocks_, 0, false);
        p.counters = counters_.get();
        p.host_stop = nullptr;  // cancel() stops a job, not the kernel
        p.job_frame = const_cast<FrameRecord*>(f.frame);
        p.ring = ring_.device();
        p.status = status_.device();
        p.resident = resident_control_.get();
        check(launch_resident(p, blocks_, stream_), "resident kernel launch");
        running_ = true;
        std::lock_guard<std::mutex> lock(g_running_mutex);
        g_running.push_back(this);
    }

    SchedulerOptions opt_;
    int device_ = 0;
    int blocks_ = 0;
    cudaStream_t stream_ = nullptr, copy_stream_ = nullptr;
    QueueStorage<PathRecord> paths_;
    QueueStorage<ShadowRecord> shadows_;
    DeviceArray<FrameControl> control_;
    DeviceArray<ResidentControl> resident_control_;
    MappedHost<ResidentRing> ring_;
    MappedHost<ResidentStatus> status_;
    MappedHost<LiveStats> live_;
    std::array<QueueCounters, 2> before_{};
    PinnedHost<std::array<QueueCounters, 2>> after_;
    DeviceArray<GpuCounters> counters_;  // a set per ring slot: job seq counts into seq % kResidentRingSlots
    PinnedHost<GpuCounters> counters_host_;
    size_t pixels_ = 0;               // the image's (snapshots are whole images)
    bool snapshot_features_ = false;  // snapshots carry the frame's features after its image
    size_t snapshot_floats() const { return (4 + (snapshot_features_ ? kFeatureFloats : 0)) * pixels_; }
    // Packed images (RGBA32F, and features): one for each outstanding frame and one for the last finished
    // frame's, which stays intact for a denoise on the device (FrameOutcome::device_image) until the next
    // frame ends and another is queued.
    static constexpr int kSnapshotSlots = kMaxOutstanding + 1;
    DeviceArray<float> snapshots_;
    int shown_slot_ = -1;            // the last finished frame's slot
    PinnedArray<float> image_host_;  // the last finished frame's packed image (and features)

    int free_snapshot_slot() const {
        for (int slot = 0; slot < kSnapshotSlots; ++slot)
            if (slot != shown_slot_ && std::none_of(outstanding_.begin(), outstanding_.end(),
                                                    [&](const Outstanding& o) { return o.slot == slot; }))
                return slot;
        throw Error("internal: no free resident snapshot slot");
    }
    std::array<unsigned long long, 5> key_{};
    uint32_t seq_ = 0;
    uint32_t side_ = 0;                    // side jobs published since the launch
    std::deque<Outstanding> outstanding_;  // begun and not ended, oldest first
    PolicyTuner tuner_;
    int launches_pending_ = 0;  // the launch goes to the stats of the frame that made it
    bool running_ = false;
    const volatile int* stop_host_ = nullptr;
};

}  // namespace

void quit_resident_kernels() {
    std::vector<ResidentScheduler*> running;
    {
        std::lock_guard<std::mutex> lock(g_running_mutex);
        running = g_running;
    }
    for (ResidentScheduler* s : running) s->quit();
}

bool denoise_in_resident_kernel(int device, const DenoiseJob& job, cudaStream_t inputs, float* gpu_ms) {
    ResidentScheduler* on_device = nullptr;
    {
        std::lock_guard<std::mutex> lock(g_running_mutex);
        for (ResidentScheduler* s : g_running)
            if (s->device() == device) on_device = s;
    }
    if (!on_device) return false;
    *gpu_ms = on_device->denoise(job, inputs);
    return true;
}

std::unique_ptr<GpuScheduler> make_resident_scheduler(const GpuDevice& device, const SchedulerOptions& options) {
    return std::make_unique<ResidentScheduler>(device, options);
}

}  // namespace pkrt::cuda
