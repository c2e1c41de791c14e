// The persistent scheduler: one launch per frame, a grid no larger than what the GPU keeps resident, and
// warps that loop until the frame's work is done, over the named steps of kernels/gpu/persistent_steps.cuh.
// How a warp claims work is a policy chosen at compile time (kernels/gpu/persistent_claims.cuh): one
// frame, a frame shared by several GPUs, or the resident kernel's command ring. A warp leaves once every
// sample has been generated and nothing is in flight, or when the host raises the stop flag.
//
// Each BVH layout gets its own builds of these kernels (persistent_bvh2.cu, persistent_cwbvh.cu: two
// translation units, so that they compile in parallel); persistent.cu picks one at launch.
#pragma once

#include <type_traits>

#include "kernels/gpu/persistent_steps.cuh"

namespace pkrt {

template <class Claim, BvhViewLayout L, bool kFull>
__device__ __forceinline__ void persistent_body(const PersistentParams& p) {
    __shared__ BlockCounters bc;
    __shared__ typename Claim::Block claim_block;
    __shared__ SharedPath block_paths[kPersistentThreads];
    for (int i = threadIdx.x; i < static_cast<int>(sizeof(BlockCounters) / 8); i += blockDim.x)
        reinterpret_cast<unsigned long long*>(&bc)[i] = 0;
    if (threadIdx.x == 0) Claim::init_block(p, claim_block);
    __syncthreads();
    PersistentWarp<Claim, L, kFull> w(p, bc, block_paths[threadIdx.x].rec, claim_block);
    for (unsigned iter = 1;; ++iter) {
        w.clk.begin(iter, w.warp);
        if (w.control(iter)) break;
        if (w.trace_shadow_batch()) continue;
        w.claim_work();
        if (w.held == 0) {
            if (w.idle()) break;
            continue;
        }
        w.backoff = 0;
        w.path_out(advance_path(w, w.rec.path, w.have));
    }
    if (w.lead) flush_counters(bc, w.claim.counters());
}

// Register caps: the same loop compiled for 4, 6, 8 or 10 resident blocks per SM (128, 80, 64 or 48
// registers). More warps hide more memory latency; fewer registers spill more. Each for a BVH layout,
// and with or without the full shading (kFull, kernels/shading/environment.h).
// kShared: the frame's paths are shared with other grids (SharedFrameClaim).
template <int kMinBlocks, BvhViewLayout L, bool kFull, bool kShared>
__global__ void __launch_bounds__(kPersistentThreads, kMinBlocks) persistent_kernel(PersistentParams p) {
    persistent_body<std::conditional_t<kShared, SharedFrameClaim, FrameClaim>, L, kFull>(p);
}

template <BvhViewLayout L, bool kFull>
__global__ void __launch_bounds__(kPersistentThreads, kResidentBlocksPerSm) resident_kernel(PersistentParams p) {
    persistent_body<ResidentClaim, L, kFull>(p);
}

namespace {
template <BvhViewLayout L, bool kFull, bool kShared, class F> cudaError_t with_register_cap(int blocks_per_sm, F&& f) {
    switch (blocks_per_sm) {
        case 4: return f(persistent_kernel<4, L, kFull, kShared>);
        case 6: return f(persistent_kernel<6, L, kFull, kShared>);
        case 8: return f(persistent_kernel<8, L, kFull, kShared>);
        case 10: return f(persistent_kernel<10, L, kFull, kShared>);
        default: return cudaErrorInvalidValue;
    }
}
}  // namespace

// The fewer of the two builds' (alone and shared), so that a grid sized by it is resident either way.
template <BvhViewLayout L, bool kFull> int persistent_occupancy_as(int blocks_per_sm) {
    int alone = 0, shared = 0;
    auto query = [&](int* blocks) {
        return [blocks](auto kernel) {
            return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, kernel, kPersistentThreads, 0);
        };
    };
    cudaError_t e = with_register_cap<L, kFull, false>(blocks_per_sm, query(&alone));
    if (e == cudaSuccess) e = with_register_cap<L, kFull, true>(blocks_per_sm, query(&shared));
    return e == cudaSuccess ? (alone < shared ? alone : shared) : 0;
}

template <BvhViewLayout L, bool kFull>
cudaError_t launch_persistent_as(const PersistentParams& p, int blocks, int blocks_per_sm, cudaStream_t stream) {
    auto launch = [&](auto kernel) {
        kernel<<<blocks, kPersistentThreads, 0, stream>>>(p);
        return cudaGetLastError();
    };
    return p.shared.next_chunk ? with_register_cap<L, kFull, true>(blocks_per_sm, launch)
                               : with_register_cap<L, kFull, false>(blocks_per_sm, launch);
}

template <BvhViewLayout L, bool kFull> int resident_occupancy_as() {
    int blocks = 0;
    cudaError_t e =
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, resident_kernel<L, kFull>, kPersistentThreads, 0);
    return e == cudaSuccess ? blocks : 0;
}

template <BvhViewLayout L, bool kFull>
cudaError_t launch_resident_as(const PersistentParams& p, int blocks, cudaStream_t stream) {
    resident_kernel<L, kFull><<<blocks, kPersistentThreads, 0, stream>>>(p);
    return cudaGetLastError();
}

// One layout's builds, with and without the full shading, for persistent_bvh2.cu and persistent_cwbvh.cu.
#define PKRT_PERSISTENT_BUILDS_AS(L, F)                                                               \
    template int persistent_occupancy_as<L, F>(int);                                                  \
    template cudaError_t launch_persistent_as<L, F>(const PersistentParams&, int, int, cudaStream_t); \
    template int resident_occupancy_as<L, F>();                                                       \
    template cudaError_t launch_resident_as<L, F>(const PersistentParams&, int, cudaStream_t);
#define PKRT_PERSISTENT_BUILDS(L) PKRT_PERSISTENT_BUILDS_AS(L, false) PKRT_PERSISTENT_BUILDS_AS(L, true)

}  // namespace pkrt
