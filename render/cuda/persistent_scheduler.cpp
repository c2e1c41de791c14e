// The persistent scheduler's host side: one launch per frame of a grid that stays resident
// (kernels/gpu/persistent.cu), the scheduling policy per frame (render/policy_tuner.h), and a watchdog
// that turns a kernel that stops making progress into an error instead of a hang.
#include <algorithm>
#include <array>
#include <chrono>
#include <map>
#include <thread>

#include "render/cuda/ray_queues.h"
#include "render/policy_tuner.h"
#include "render/cuda/scheduler.h"

namespace pkrt::cuda {

namespace {

constexpr int kStallSeconds = 10;
// Builds: 128 registers for frames that fit in one wave of lanes (latency-bound), 48 or 64 for the rest.
constexpr int kLatencyBuild = 4, kMiddleBuild = 8, kThroughputBuild = 10;

uint32_t next_pow2(uint64_t v) {
    uint32_t p = 1;
    while (p < v && p < (1u << 30)) p <<= 1;
    return p;
}

class PersistentScheduler final : public StreamScheduler {
public:
    PersistentScheduler(const GpuDevice& dev, const SchedulerOptions& opt) : dev_(dev), opt_(opt) {
        if (opt_.blocks_per_sm != 0 && std::find(std::begin(kPersistentBlocksPerSm), std::end(kPersistentBlocksPerSm),
                                                 opt_.blocks_per_sm) == std::end(kPersistentBlocksPerSm))
            throw Error("blocks_per_sm " + std::to_string(opt_.blocks_per_sm) + " is not built (auto, 4, 6, 8 or 10)");
        // Every build this scheduler may launch must hold the whole grid resident.
        int max_blocks = 0;
        for (int b : candidate_builds()) {
            int occupancy = persistent_occupancy(b);
            if (occupancy <= 0) throw Error("CUDA: the persistent kernel cannot be resident on " + dev.name);
            int resident = occupancy * dev.multiprocessors;
            if (opt_.grid_blocks > resident)
                throw Error("persistent grid of " + std::to_string(opt_.grid_blocks) + " blocks exceeds the " +
                            std::to_string(resident) + " that can be co-resident on " + dev.name + " (" +
                            std::to_string(occupancy) + " per SM x " + std::to_string(dev.multiprocessors) +
                            " SMs, blocks_per_sm " + std::to_string(b) + ")");
            grid_[b] = opt_.grid_blocks > 0 ? opt_.grid_blocks : resident;
            max_blocks = std::max(max_blocks, grid_[b]);
        }
        // Whatever builds are allowed, "latency-bound" means: fits in one wave of the 128-register one.
        int latency_blocks =
            opt_.grid_blocks > 0 ? opt_.grid_blocks : persistent_occupancy(kLatencyBuild) * dev.multiprocessors;
        latency_paths_ = static_cast<unsigned long long>(latency_blocks) * kPersistentThreads;
        uint32_t cap = opt_.queue_capacity ? opt_.queue_capacity : next_pow2(2ull * max_blocks * kPersistentThreads);
        control_.allocate(1);
        paths_.allocate(cap, nullptr);
        shadows_.allocate(cap, nullptr);
        check(cudaDeviceSynchronize(), "queue init");
    }

    void begin(const GpuFrame& f) override {
        stream_ = f.stream;
        stop_host_ = f.stop_host;
        unsigned long long total = f.paths();
        total_ = total;
        *control_host_.host() = FrameControl{};
        control_host_.host()->end_sample = total;
        SharedFrame shared = f.shared;
        if (shared.next_chunk) {  // local numbers run to the most chunks this grid could take
            control_host_.host()->end_sample = static_cast<unsigned long long>(shared.chunks) * shared.chunk_paths;
            if (chunk_map_.size() < shared.chunks) chunk_map_.allocate(shared.chunks);
            check(cudaMemsetAsync(chunk_map_.get(), 0, shared.chunks * sizeof(uint32_t), f.stream), "chunk map");
            shared.chunk_map = chunk_map_.get();
        }
        check(cudaMemcpyAsync(control_.get(), control_host_.host(), sizeof(FrameControl), cudaMemcpyHostToDevice,
                              f.stream),
              "frame control");
        // A frame that changes class (latency- or throughput-bound) changes the candidates, which
        // restarts the trials.
        policy_ = tuner_.next(f.tuning_key(), candidates(total), &trial_);
        int blocks = grid_.at(policy_.blocks_per_sm);
        PersistentParams p = persistent_params(f, opt_, paths_, shadows_, control_.get(), live_.device(), blocks,
                                               policy_.queue_shadows, policy_.sort_stragglers);
        p.host_stop = opt_.poll_stop ? f.stop_device : nullptr;
        p.shared = shared;
        live_.host()->running = 1;
        check(launch_persistent(p, blocks, policy_.blocks_per_sm, f.stream), "persistent kernel launch");
    }

    void enqueue_readback(cudaStream_t stream) override {
        check(cudaMemcpyAsync(&after_.host()->at(0), paths_.counters.get(), sizeof(QueueCounters),
                              cudaMemcpyDeviceToHost, stream),
              "read queue counters");
        check(cudaMemcpyAsync(&after_.host()->at(1), shadows_.counters.get(), sizeof(QueueCounters),
                              cudaMemcpyDeviceToHost, stream),
              "read queue counters");
    }

    // The kernel updates the host-mapped live statistics at every timeline point (at least every 10 ms
    // while any warp iterates); if none of them changes for kStallSeconds the frame is stopped and
    // reported instead of hanging the process.
    void wait(cudaEvent_t done) override {
        if (!opt_.timeline) return StreamScheduler::wait(done);
        using clock = std::chrono::steady_clock;
        const LiveStats* live = live_.host();
        auto snapshot = [live] {
            return std::array<long long, 5>{static_cast<long long>(live->rays),
                                            static_cast<long long>(live->samples_done), live->path_queue,
                                            live->shadow_queue, live->in_flight};
        };
        auto start = clock::now(), last_change = start;
        auto seen = snapshot();
        for (;;) {
            cudaError_t e = cudaEventQuery(done);
            if (e == cudaSuccess) return;
            if (e != cudaErrorNotReady) check(e, "persistent kernel");
            auto now = clock::now();
            if (now - start > std::chrono::milliseconds(1)) std::this_thread::sleep_for(std::chrono::microseconds(200));
            auto current = snapshot();
            if (current != seen) {
                seen = current;
                last_change = now;
            } else if (now - last_change > std::chrono::seconds(kStallSeconds)) {
                report_stall(seen, done);
            }
        }
    }

    void end(float ms, bool cancelled, RenderStats& stats) override {
        live_.host()->running = 0;
        const QueueCounters& pa = after_.host()->at(0);
        const QueueCounters& sh = after_.host()->at(1);
        stats.kernel_launches += 1;
        stats.enqueued += (pa.tail - before_[0].tail) + (sh.tail - before_[1].tail);
        stats.dequeued += (pa.head - before_[0].head) + (sh.head - before_[1].head);
        stats.peak_queue =
            std::max<uint64_t>(stats.peak_queue, static_cast<uint64_t>(pa.peak) + static_cast<uint64_t>(sh.peak));
        before_ = {pa, sh};
        if (cancelled || pa.reserved != 0 || sh.reserved != 0) reset_queues();  // abandoned records
        stats.grid_blocks = grid_.at(policy_.blocks_per_sm);
        stats.blocks_per_sm = policy_.blocks_per_sm;
        stats.shadows_queued = policy_.queue_shadows;
        stats.stragglers_sorted = policy_.sort_stragglers;
        stats.policy_trial = trial_;
        stats.block_threads = kPersistentThreads;
        stats.queue_capacity = static_cast<int>(paths_.capacity);
        if (trial_ && !cancelled && total_ > 0) tuner_.record(ms * 1e6f / static_cast<float>(total_));  // ns per path
    }

private:
    std::vector<int> candidate_builds() const {
        if (opt_.blocks_per_sm) return {opt_.blocks_per_sm};
        return {kLatencyBuild, kMiddleBuild, kThroughputBuild};
    }

    // The policies a frame may use: what the options fix, and otherwise the candidates the tuner times.
    // Frames whose paths fit in one wave of the 128-register build are latency-bound: that build and
    // stragglers kept. Larger ones try 48 and 64 registers and sorted stragglers.
    std::vector<PersistentPolicy> candidates(unsigned long long paths) const {
        bool latency = paths <= latency_paths_;
        std::vector<int> builds = opt_.blocks_per_sm ? std::vector<int>{opt_.blocks_per_sm}
                                  : latency          ? std::vector<int>{kLatencyBuild}
                                                     : std::vector<int>{kThroughputBuild, kMiddleBuild};
        std::vector<int> shadows = shadow_policies(opt_);
        std::vector<int> sorts = opt_.stragglers == Stragglers::kKept     ? std::vector<int>{0}
                                 : opt_.stragglers == Stragglers::kSorted ? std::vector<int>{1}
                                 : latency                                ? std::vector<int>{0}
                                                                          : std::vector<int>{0, 1};
        std::vector<PersistentPolicy> out;
        for (int sort : sorts)
            for (int b : builds)
                for (int q : shadows) out.push_back(PersistentPolicy{b, q, sort});
        return out;
    }

    void reset_queues() {
        paths_.reset(stream_);
        shadows_.reset(stream_);
        check(cudaStreamSynchronize(stream_), "queue init");
        before_ = {};
    }

    [[noreturn]] void report_stall(const std::array<long long, 5>& s, cudaEvent_t done) {
        // The backend's stop flag is the kernel's poison pill; raise it through the mapped pointer.
        *const_cast<volatile int*>(stop_host_) = 1;
        auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
        bool stopped = false;
        while (std::chrono::steady_clock::now() < deadline) {
            if (cudaEventQuery(done) != cudaErrorNotReady) {
                stopped = true;
                break;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        std::string what = "persistent kernel made no progress for " + std::to_string(kStallSeconds) + " s (" +
                           std::to_string(s[1]) + " samples done, " + std::to_string(s[4]) + " in flight, path queue " +
                           std::to_string(s[2]) + ", shadow queue " + std::to_string(s[3]) + ")";
        if (stopped) {
            cudaGetLastError();
            reset_queues();
            throw Error(what + "; the frame was stopped");
        }
        g_device_wedged = true;
        throw Error(what + "; it did not stop either, so the GPU is left to the driver at exit");
    }

    GpuDevice dev_;
    SchedulerOptions opt_;
    std::map<int, int> grid_;               // grid size of each build this scheduler may launch
    unsigned long long latency_paths_ = 0;  // frames of at most this many paths fit in one wave of the latency build
    QueueStorage<PathRecord> paths_;
    QueueStorage<ShadowRecord> shadows_;
    DeviceArray<FrameControl> control_;
    DeviceArray<uint32_t> chunk_map_;  // shared frames: this grid's local chunks -> the frame's
    PinnedHost<FrameControl> control_host_;
    PinnedHost<std::array<QueueCounters, 2>> after_;  // queue counters after the frame (async copy)
    std::array<QueueCounters, 2> before_{};           // ... and before it (the last frame's after)
    MappedHost<LiveStats> live_;
    PolicyTuner tuner_;
    PersistentPolicy policy_;
    bool trial_ = false;
    unsigned long long total_ = 0;
    cudaStream_t stream_ = nullptr;
    const volatile int* stop_host_ = nullptr;
};

}  // namespace

std::unique_ptr<GpuScheduler> make_persistent_scheduler(const GpuDevice& device, const SchedulerOptions& options) {
    return std::make_unique<PersistentScheduler>(device, options);
}

}  // namespace pkrt::cuda
