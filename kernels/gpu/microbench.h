// Kernels of the microbenchmarks that place the schedulers against the machine's limits: launch costs,
// graph nodes, grid barriers, contended atomics and the project's own ray queue. The timing around them
// is host code (render/cuda/microbench.cpp).
#pragma once

#include <cuda_runtime.h>

#include "kernels/gpu/gpu_records.h"

namespace pkrt {

constexpr int kMicroThreads = 256;

cudaError_t launch_empty_kernel(cudaStream_t stream);
// `blocks` co-resident blocks meet at an atomic-counter barrier `rounds` times; mem: two zeroed words.
cudaError_t launch_grid_barrier(unsigned* mem, int blocks, int rounds);
// Every warp adds to one address `rounds` times.
cudaError_t launch_warp_atomics(unsigned long long* target, int blocks, int rounds);
// Every warp pushes a full warp of path records and pops a full warp back, `rounds` times; *moved
// counts records pushed and popped.
cudaError_t launch_queue_exercise(const DeviceQueue<PathRecord>& q, int blocks, int rounds, unsigned long long* moved);

}  // namespace pkrt
