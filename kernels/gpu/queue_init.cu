// Resets a ray queue: every slot's sequence number to "free for ticket = slot", counters to zero.
#include "kernels/gpu/gpu_launch.h"

namespace pkrt {

namespace {
template <class Record> __global__ void queue_init_kernel(DeviceQueue<Record> q) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < q.capacity) q.seq[i] = i;
    if (i == 0) *q.counters = QueueCounters{};
}
}  // namespace

template <class Record> cudaError_t launch_queue_init(const DeviceQueue<Record>& q, cudaStream_t stream) {
    queue_init_kernel<<<(q.capacity + 255) / 256, 256, 0, stream>>>(q);
    return cudaGetLastError();
}

template cudaError_t launch_queue_init<PathRecord>(const DeviceQueue<PathRecord>&, cudaStream_t);
template cudaError_t launch_queue_init<ShadowRecord>(const DeviceQueue<ShadowRecord>&, cudaStream_t);

}  // namespace pkrt
