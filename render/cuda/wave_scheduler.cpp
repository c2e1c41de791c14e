#include "render/cuda/wave_scheduler.h"

#include <algorithm>
#include <numeric>
#include <vector>

namespace pkrt::cuda {

WavefrontParams WaveScheduler::params(const GpuFrame& f) {
    if (staged()) {
        paths_[0].allocate(capacity_);
        paths_[1].allocate(capacity_);
        hits_.allocate(capacity_);
        shadows_.allocate(capacity_);
        counts_.allocate(static_cast<size_t>(count_ints(max_depth_)));
    }
    WavefrontParams p{};
    p.scene = f.scene;
    p.frame = f.frame;
    p.fb = f.fb;
    p.counters = f.counters;
    p.wave = wave_.get();
    p.paths[0] = paths_[0].get();
    p.paths[1] = paths_[1].get();
    p.hits = hits_.get();
    p.shadows = shadows_.get();
    p.path_counts = counts_.get();
    p.shadow_counts = counts_.get() ? counts_.get() + count_stride(max_depth_) : nullptr;
    p.capacity = capacity_;
    if (staged() && opt_.ray_order == RayOrder::kBinned) {
        bool fresh = bin_order_[0].size() != capacity_;
        for (int i = 0; i < 2; ++i) {
            bin_keys_[i].allocate(capacity_);
            bin_order_[i].allocate(capacity_);
        }
        size_t temp = wf_bin_temp_bytes(capacity_);
        bin_temp_.allocate(temp);
        if (fresh) {
            std::vector<uint32_t> identity(capacity_);
            std::iota(identity.begin(), identity.end(), 0u);
            check(
                cudaMemcpy(bin_order_[0].get(), identity.data(), capacity_ * sizeof(uint32_t), cudaMemcpyHostToDevice),
                "bin order");
        }
        for (int i = 0; i < 2; ++i) {
            p.bin_keys[i] = bin_keys_[i].get();
            p.bin_order[i] = bin_order_[i].get();
        }
        p.bin_temp = bin_temp_.get();
        p.bin_temp_bytes = temp;
    }
    return p;
}

// Queues every wave but the last waits for the one before it (staging reuse, and cancellation between
// waves); the last is left running.
void WaveScheduler::begin(const GpuFrame& f) {
    if (f.shared.next_chunk) throw Error("internal: a shared frame outside persistent mode");
    stream_ = f.stream;
    max_depth_ = f.record.max_depth;
    if (max_depth_ < 0 || max_depth_ > kMaxDepth)
        throw Error("max depth " + std::to_string(max_depth_) + ": the wave schedulers take 0 to " +
                    std::to_string(kMaxDepth));
    launches_ = enqueued_ = 0;
    unsigned long long total = f.paths();
    // Grids are sized for the frame's paths (capped by the wave buffers): the host knows that bound
    // without reading anything back, and empty blocks past it would only cost launch time.
    capacity_ = static_cast<uint32_t>(std::min<unsigned long long>(opt_.wave_capacity, total));
    WavefrontParams p = params(f);
    for (unsigned long long first = 0; first < total; first += capacity_) {
        if (first > 0) finish_wave();
        if (*f.stop_host) break;
        *wave_host_.host() =
            WaveParams{first, static_cast<uint32_t>(std::min<unsigned long long>(capacity_, total - first))};
        check(cudaMemcpyAsync(wave_.get(), wave_host_.host(), sizeof(WaveParams), cudaMemcpyHostToDevice, stream_),
              "wave params");
        launches_ += enqueue_wave(p, max_depth_, stream_);
        wave_unfinished_ = true;
    }
}

void WaveScheduler::finish_wave() {
    enqueue_readback(stream_);
    check(cudaStreamSynchronize(stream_), "wave");
    add_wave_counts();
}

void WaveScheduler::enqueue_readback(cudaStream_t stream) {
    if (!staged() || !wave_unfinished_) return;
    check(cudaMemcpyAsync(counts_host_.host()->data(), counts_.get(), count_ints(max_depth_) * sizeof(int),
                          cudaMemcpyDeviceToHost, stream),
          "read counts");
}

// Every path entering a bounce and every shadow ray went through a stage buffer once.
void WaveScheduler::add_wave_counts() {
    if (staged() && wave_unfinished_)
        for (int i = 0; i < count_ints(max_depth_); ++i) enqueued_ += static_cast<uint64_t>(counts_host_.host()->at(i));
    wave_unfinished_ = false;
}

void WaveScheduler::end(float gpu_ms, bool cancelled, RenderStats& stats) {
    (void)gpu_ms;
    (void)cancelled;
    add_wave_counts();
    stats.kernel_launches += launches_;
    stats.enqueued += enqueued_;
    stats.dequeued += enqueued_;
    stats.block_threads = kWavefrontThreads;
    stats.queue_capacity = static_cast<int>(capacity_);
}

}  // namespace pkrt::cuda
