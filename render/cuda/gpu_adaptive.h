// An adaptive render's rounds on one GPU (kernels/gpu/adaptive_scan.cu): the device's state (the plan
// of the round being rendered, the scan's counters for the next, its log), its copy here, the work
// list and the scan's verdict per tile, and what the host keeps between rounds to report each one.
// The CUDA backend owns the framebuffer's two halves the rounds render into (kernels/adaptive.h).
#pragma once

#include "kernels/gpu/gpu_launch.h"
#include "render/adaptive.h"
#include "render/backend.h"
#include "render/cuda/device_memory.h"
#include "render/cuda/scheduler.h"

namespace pkrt::cuda {

class GpuAdaptiveRounds {
public:
    bool on() const { return r_.on; }
    // The first round's state (every pixel at min_spp) on the device. kernel_plans: the kernel reads
    // each round's paths from the plan (the host does not know them).
    void start(const RenderSettings& rs, const AdaptiveSettings& as, bool kernel_plans, int width, int height,
               const DeviceFramebuffer& fb, cudaStream_t stream);
    void stop() { r_ = Rounds{}; }  // its buffers are kept for the next render

    // The rounds' frames: their settings and samples per path number, and the round's plan in `f`.
    const RenderSettings& round() const { return r_.round; }
    uint32_t min_spp() const { return r_.rule.min_spp; }
    void attach(GpuFrame& f) const;
    void round_queued() { r_.first = false; }

    // The scan behind a round that the host queues itself; after it ended, its step.
    void scan(int width, int height, cudaStream_t stream);
    AdaptiveStep end_round(cudaStream_t stream);

    // The device's state now (rounds queued ahead: the log of each one the kernel scanned).
    const AdaptiveDevice& read(cudaStream_t stream);
    // The round that `log` ends: its tiles and step were the last log's news.
    AdaptiveStep step(const AdaptiveRoundLog& log);

private:
    struct Rounds {
        bool on = false;
        bool first = false;            // the first round: every pixel, no work list
        unsigned long long paths = 0;  // the round's paths where the host knows them (0: the kernel plans)
        AdaptiveRule rule{};
        RenderSettings round;          // the rounds' frames
        uint32_t tiles = 0, step = 0;  // the next round's tiles and largest step
        uint32_t ended = 0;            // rounds ended
    };
    Rounds r_;
    DeviceArray<AdaptiveDevice> device_;
    PinnedHost<AdaptiveDevice> host_;
    DeviceArray<WorkPixel> work_;
    DeviceArray<int> tile_class_;
};

}  // namespace pkrt::cuda
