// The schedulers that run a frame in waves of at most `wave_capacity` paths, each wave a fixed sequence
// of launches: the wavefront (relaunch and graph) and the megakernel. This base class owns the waves:
// their parameters in device memory (so a captured graph serves every wave), the wait between waves
// (staging is reused; the host's stop flag is checked there), and the statistics they share.
#pragma once

#include <array>

#include "render/cuda/device_memory.h"
#include "render/cuda/scheduler.h"
#include "render/scene/render_limits.h"

namespace pkrt::cuda {

class WaveScheduler : public StreamScheduler {
public:
    explicit WaveScheduler(const SchedulerOptions& opt) : opt_(opt) { wave_.allocate(1); }

    void begin(const GpuFrame& f) final;
    void enqueue_readback(cudaStream_t stream) final;
    void end(float gpu_ms, bool cancelled, RenderStats& stats) final;

    // Live paths per bounce, then shadow rays per bounce, each list on 128-byte lines of its own: the
    // shade stage appends to both at once, and atomics on one line serialise (the shade kernel slower
    // with both lists on one line: BENCHMARKS.md).
    static int count_stride(int max_depth) { return (max_depth + 2 + 31) / 32 * 32; }
    static int count_ints(int max_depth) { return 2 * count_stride(max_depth); }

protected:
    // Enqueues one wave on `stream`; returns the kernel launches (a graph replay counts as one). Staged
    // waves clear their counts first: p.path_counts holds count_ints(max_depth) ints.
    virtual uint64_t enqueue_wave(const WavefrontParams& p, int max_depth, cudaStream_t stream) = 0;
    // Whether the waves need the stage buffers (paths, hits, shadow rays and their counts).
    virtual bool staged() const = 0;

private:
    WavefrontParams params(const GpuFrame& f);
    void finish_wave();
    void add_wave_counts();

    SchedulerOptions opt_;
    cudaStream_t stream_ = nullptr;
    int max_depth_ = 0;
    uint32_t capacity_ = 0;
    uint64_t launches_ = 0, enqueued_ = 0;
    bool wave_unfinished_ = false;
    DeviceArray<WaveParams> wave_;
    PinnedHost<WaveParams> wave_host_;
    DeviceArray<PathRecord> paths_[2];
    DeviceArray<Hit> hits_;
    DeviceArray<ShadowRecord> shadows_;
    DeviceArray<int> counts_;  // count_ints(max depth) (see count_stride)
    // ray_order=binned: keys, the identity order and the sorted one, the sort's scratch.
    DeviceArray<uint16_t> bin_keys_[2];
    DeviceArray<uint32_t> bin_order_[2];
    DeviceArray<unsigned char> bin_temp_;
    static constexpr int kMaxDepth = limits::kMaxDepth;
    PinnedHost<std::array<int, 2 * ((kMaxDepth + 2 + 31) / 32 * 32)>> counts_host_;  // their copy after a wave
};

}  // namespace pkrt::cuda
