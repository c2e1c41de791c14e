// Storage of one device ray queue (kernels/gpu_queue.cuh): counters, per-slot sequence numbers, slots.
#pragma once

#include "device_memory.h"
#include "kernels/gpu_launch.h"

namespace pkrt::cuda {

template <class Record>
struct QueueStorage {
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

}  // namespace pkrt::cuda
