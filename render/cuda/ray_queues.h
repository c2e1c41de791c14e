// Storage of one device ray queue (kernels/gpu/gpu_queue.cuh): counters, per-slot sequence numbers, slots;
// and the kernel parameters of the persistent loop that uses them.
#pragma once

#include <algorithm>
#include <vector>

#include "render/cuda/device_memory.h"
#include "kernels/gpu/gpu_launch.h"
#include "render/cuda/scheduler.h"

namespace pkrt::cuda {

template <class Record> struct QueueStorage {
    DeviceArray<QueueCounters> counters;
    DeviceArray<unsigned long long> seq;
    DeviceArray<Record> slots;
    uint32_t capacity = 0;

    void allocate(uint32_t cap, cudaStream_t stream) {
        capacity = cap;
        counters.allocate(1);
        seq.allocate(cap);
        slots.allocate(cap);
        reset(stream);
    }
    void reset(cudaStream_t stream) { check(launch_queue_init(view(), stream), "queue init"); }
    DeviceQueue<Record> view() const { return DeviceQueue<Record>{counters.get(), seq.get(), slots.get(), capacity}; }
};

// The shadow-ray policies a frame may use (1 queued, 0 traced where cast): what the options fix, else
// both, for the policy tuner to time.
inline std::vector<int> shadow_policies(const SchedulerOptions& opt) {
    if (opt.shadow_rays == ShadowRays::kQueued) return {1};
    if (opt.shadow_rays == ShadowRays::kInline) return {0};
    return {1, 0};
}

// What both schedulers of the persistent loop (persistent, resident) give its kernel, but for the
// per-mode fields (stop flag, resident ring).
inline PersistentParams persistent_params(const GpuFrame& f, const SchedulerOptions& opt,
                                          const QueueStorage<PathRecord>& paths,
                                          const QueueStorage<ShadowRecord>& shadows, FrameControl* control,
                                          LiveStats* live, int blocks, int queue_shadows, int sort_stragglers) {
    PersistentParams p{};
    p.scene = f.scene;
    p.frame = f.frame;
    p.fb = f.fb;
    p.paths = paths.view();
    p.shadows = shadows.view();
    p.control = control;
    p.counters = f.counters;
    p.live = live;
    p.fetch_threshold = opt.fetch_threshold;
    p.queue_shadows = queue_shadows;
    p.sort_stragglers = sort_stragglers;
    p.timeline = opt.timeline;
    p.backoff_max_shift = opt.backoff_max_shift;
    uint32_t lanes = static_cast<uint32_t>(blocks) * kPersistentThreads;
    p.low_water = static_cast<int>(std::min<uint32_t>(lanes, paths.capacity / 2));
    return p;
}

}  // namespace pkrt::cuda
