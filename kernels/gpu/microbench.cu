#include "kernels/gpu/microbench.h"

#include "kernels/gpu/gpu_queue.cuh"

namespace pkrt {

namespace {

__global__ void empty_kernel() {}

// Sense-reversing barrier on a global counter; the grid must be co-resident.
__device__ void grid_barrier(unsigned* count, volatile unsigned* sense, unsigned blocks, unsigned& local_sense) {
    __syncthreads();
    if (threadIdx.x == 0) {
        local_sense ^= 1u;
        __threadfence();
        if (atomicAdd(count, 1u) == blocks - 1) {
            *count = 0;
            __threadfence();
            *sense = local_sense;
        } else {
            while (*sense != local_sense) {}
        }
    }
    __syncthreads();
}

__global__ void barrier_kernel(unsigned* count, unsigned* sense, int rounds) {
    __shared__ unsigned local_sense;
    if (threadIdx.x == 0) local_sense = 0;
    __syncthreads();
    for (int i = 0; i < rounds; ++i) grid_barrier(count, sense, gridDim.x, local_sense);
}

__global__ void warp_atomic_kernel(unsigned long long* target, int rounds) {
    for (int i = 0; i < rounds; ++i) {
        unsigned n = __popc(__activemask());
        if (lane_id() == 0) atomicAdd(target, static_cast<unsigned long long>(n));
    }
}

// Every warp pushes a full warp of path records and pops a full warp back, `rounds` times.
__global__ void queue_kernel(DeviceQueue<PathRecord> q, int rounds, unsigned long long* moved) {
    PathRecord rec{};
    rec.path.pixel = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long count = 0;
    for (int i = 0; i < rounds; ++i) {
        bool pushed = warp_push(q, true, rec);
        count += __popc(__ballot_sync(kFullMask, pushed));
        bool got = false;
        int n = 0;
        do {  // what this warp pushed is there for someone; take a full warp's worth back
            n = warp_pop(q, kFullMask, rec, &got);
        } while (n == 0 && pushed && queue_available(q) > 0);
        count += n;
    }
    if (lane_id() == 0) atomicAdd(moved, count);
}

}  // namespace

cudaError_t launch_empty_kernel(cudaStream_t stream) {
    empty_kernel<<<1, 32, 0, stream>>>();
    return cudaGetLastError();
}

cudaError_t launch_grid_barrier(unsigned* mem, int blocks, int rounds) {
    barrier_kernel<<<blocks, kMicroThreads>>>(mem, mem + 1, rounds);
    return cudaGetLastError();
}

cudaError_t launch_warp_atomics(unsigned long long* target, int blocks, int rounds) {
    warp_atomic_kernel<<<blocks, kMicroThreads>>>(target, rounds);
    return cudaGetLastError();
}

cudaError_t launch_queue_exercise(const DeviceQueue<PathRecord>& q, int blocks, int rounds, unsigned long long* moved) {
    queue_kernel<<<blocks, kMicroThreads>>>(q, rounds, moved);
    return cudaGetLastError();
}

}  // namespace pkrt
