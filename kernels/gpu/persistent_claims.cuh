// The persistent kernel's claim of work, a policy chosen at compile time (kernels/gpu/persistent_body.cuh):
//
//   FrameClaim        one frame on one grid: path numbers from the frame's counter
//   SharedFrameClaim  a frame whose paths are shared with other grids (SharedFrame), in chunks
//   ResidentClaim     the resident kernel's command ring (kernels/gpu/resident.cuh): jobs one after
//                     another, each warp with a copy of its job's frame
//
// A policy holds a warp's claim state and answers:
//   Block                                   its shared memory, set up by init_block (thread 0)
//   FrameRecord& frame()                    the frame the warp's paths belong to
//   bool queue_shadows                      the frame's shadow policy
//   control(monitor)                        the control step's extra (the resident ring's monitor)
//   counters()                              the global counters this block's counts go to now
//   refresh(held, exhausted)                a new job makes samples claimable again
//   claim(bc, need, exhausted, &number)     whole warp: path numbers for the lanes in `need`
//   idle_work()                             whole warp, nothing held: work between jobs
//   done(bc, exhausted, sweeper)            lead lane, nothing held: whether the warp may leave
#pragma once

#include "kernels/gpu/persistent_counters.cuh"
#include "kernels/gpu/resident.cuh"

namespace pkrt {

namespace {

// Shared frames (SharedFrame, kernels/gpu/gpu_records.h), one lane: the frame chunk of local chunk c,
// as chunk_map holds it (chunk + 1, or kChunkNone). The warp that claimed c's first local number
// (`owner`) takes a chunk from the shared counter, but only once c - 1 has one: so a grid takes its
// chunks in the order of its local chunks, and once one finds none left every later one does too
// (FrameControl::end_sample drops to it). Any other warp waits for the owner: one peer atomic.
// Out of line: it runs once per chunk of tens of thousands of paths. Its arguments are values: a
// reference into the kernel's parameters would make the compiler copy them all to local memory, and
// every later read of them in the loop a local load (a much slower frame: BENCHMARKS.md).
__device__ __noinline__ uint32_t shared_chunk(unsigned long long* next_chunk, uint32_t* chunk_map,
                                              unsigned long long chunk_base, uint32_t chunks, uint32_t chunk_paths,
                                              FrameControl* ctl, unsigned long long c, bool owner) {
    volatile uint32_t* map = chunk_map;
    if (c >= chunks) return kChunkNone;  // past the frame's size: no grid can need that many
    if (owner) {
        while (c > 0 && map[c - 1] == 0) __nanosleep(32);
        unsigned long long g = atomicAdd_system(next_chunk, 1ull) - chunk_base;
        uint32_t v = g < chunks ? static_cast<uint32_t>(g) + 1 : kChunkNone;
        if (v == kChunkNone) atomicMin(&ctl->end_sample, c * chunk_paths);
        __threadfence();
        map[c] = v;
        return v;
    }
    uint32_t v;
    while ((v = map[c]) == 0) __nanosleep(32);
    return v;
}

// Lead lane: counts k new paths in flight before they are claimed, so that no warp can see "all samples
// claimed and nothing in flight" while these are being created. (In resident mode the claim is a
// release, which orders the two for the sweepers. A persistent sweeper that left early would do no harm:
// every warp drains the queues it can see before it leaves; a fence between the two costs latency-bound
// frames, BENCHMARKS.md.)
__device__ __forceinline__ void count_in_flight(FrameControl* ctl, int k) { atomicAdd(&ctl->in_flight, k); }

// Lead lane: the k - n paths not claimed leave again, and the n claimed are counted.
__device__ __forceinline__ void count_claimed(FrameControl* ctl, BlockCounters& bc, int k, int n) {
    if (n < k) atomicSub(&ctl->in_flight, k - n);
    add_count(&bc.rays.paths_generated, n);
}

// The whole warp: this lane's number among `n` claimed from `base` in lane order (lanes in `need`).
__device__ __forceinline__ bool lane_number(unsigned need, unsigned long long base, int n, unsigned long long& number) {
    base = __shfl_sync(kFullMask, base, 0);
    int rank = __popc(need & lanemask_lt());
    number = base + rank;
    return ((need >> lane_id()) & 1u) && rank < n;
}

struct FrameClaim {
    static constexpr bool kL2 = false;         // path_index: the plan through L1 (it lives for one frame)
    static constexpr bool kPoolsPaths = true;  // bounces may go through the path queue (sort_stragglers)
    // Every warp's lead may move its block's counts to the global counters now and then: they are read
    // only after the kernel ends, when every flush is over.
    static constexpr bool kAnyWarpFlushes = true;
    struct Block {
        FrameRecord frame;
    };
    const PersistentParams& p;
    Block& block;
    bool queue_shadows;

    __device__ __forceinline__ FrameClaim(const PersistentParams& params, Block& b)
        : p(params), block(b), queue_shadows(params.queue_shadows != 0) {}
    static __device__ __forceinline__ void init_block(const PersistentParams& p, Block& b) { b.frame = *p.frame; }
    __device__ __forceinline__ FrameRecord& frame() { return block.frame; }
    __device__ __forceinline__ void control(bool) {}
    __device__ __forceinline__ GpuCounters* counters() const { return p.counters; }
    __device__ __forceinline__ void refresh(unsigned, bool&) {}
    __device__ __forceinline__ unsigned long long end() const { return p.control->end_sample; }
    __device__ __forceinline__ bool claim(BlockCounters& bc, unsigned need, bool& exhausted,
                                          unsigned long long& number) {
        FrameControl* ctl = p.control;
        int k = __popc(need);
        unsigned long long base = 0;
        int n = 0;
        if (lane_id() == 0) {
            count_in_flight(ctl, k);
            base = atomicAdd(&ctl->next_sample, static_cast<unsigned long long>(k));
            unsigned long long e = end();
            n = base >= e ? 0 : static_cast<int>(e - base < static_cast<unsigned long long>(k) ? e - base : k);
            count_claimed(ctl, bc, k, n);
        }
        n = __shfl_sync(kFullMask, n, 0);
        exhausted = n < k;
        return lane_number(need, base, n, number);
    }
    __device__ __forceinline__ bool idle_work() { return false; }
    // Once every sample is claimed, an empty warp leaves unless it is its block's sweeper (warp 0):
    // sweepers stay until nothing is in flight and finish whatever is still queued, so the rest need not
    // poll (which would crowd the hot counters' L2 lines).
    __device__ __forceinline__ int done(BlockCounters&, bool exhausted, bool sweeper) {
        FrameControl* ctl = p.control;
        bool all_claimed = exhausted || load_volatile(&ctl->next_sample) >= end();
        return all_claimed && (!sweeper || load_volatile(&ctl->in_flight) == 0);
    }
};

// The frame's paths shared with other grids: a build of its own, so that a frame on one GPU runs the
// loop without the chunk mapping (compiled in, it cost a frame on one GPU for code it never ran;
// BENCHMARKS.md, "The cost to one GPU").
struct SharedFrameClaim : FrameClaim {
    using FrameClaim::FrameClaim;
    __device__ __forceinline__ unsigned long long end() const { return load_volatile(&p.control->end_sample); }
    __device__ __forceinline__ bool claim(BlockCounters& bc, unsigned need, bool& exhausted,
                                          unsigned long long& number) {
        FrameControl* ctl = p.control;
        const SharedFrame& sf = p.shared;
        int k = __popc(need);
        unsigned long long base = 0;
        int n = 0;
        // Lead lane: the chunks (chunk_map values) of the claim's first and last numbers.
        uint32_t chunk0 = 0, chunk1 = 0;
        if (lane_id() == 0) {
            count_in_flight(ctl, k);
            base = atomicAdd(&ctl->next_sample, static_cast<unsigned long long>(k));
            unsigned long long e = end();
            n = base >= e ? 0 : static_cast<int>(e - base < static_cast<unsigned long long>(k) ? e - base : k);
            const unsigned long long cp = sf.chunk_paths, c0 = base / cp, c1 = (base + k - 1) / cp;  // k <= chunk_paths
            chunk0 = shared_chunk(sf.next_chunk, sf.chunk_map, sf.chunk_base, sf.chunks, sf.chunk_paths, ctl, c0,
                                  base % cp == 0);
            chunk1 = c1 == c0 ? chunk0
                              : shared_chunk(sf.next_chunk, sf.chunk_map, sf.chunk_base, sf.chunks, sf.chunk_paths, ctl,
                                             c1, true);
        }
        n = __shfl_sync(kFullMask, n, 0);
        // Local number -> the frame's: its chunk's place in the frame. A chunk none was left for, and the
        // frame's last chunk past its last path, hold nothing. Paths are counted once they are mapped.
        base = __shfl_sync(kFullMask, base, 0);
        int rank = __popc(need & lanemask_lt());
        const unsigned long long cp = sf.chunk_paths, local = base + rank;
        uint32_t m0 = __shfl_sync(kFullMask, chunk0, 0), m1 = __shfl_sync(kFullMask, chunk1, 0);
        uint32_t m = local / cp == base / cp ? m0 : m1;
        number = (m - 1ull) * cp + local % cp;
        bool take = ((need >> lane_id()) & 1u) && rank < n && m != kChunkNone && number < frame().paths();
        n = popc_ballot(take);
        if (lane_id() == 0) count_claimed(ctl, bc, k, n);
        exhausted = n < k;
        return take;
    }
    __device__ __forceinline__ int done(BlockCounters&, bool exhausted, bool sweeper) {
        FrameControl* ctl = p.control;
        bool all_claimed = exhausted || load_volatile(&ctl->next_sample) >= end();
        return all_claimed && (!sweeper || load_volatile(&ctl->in_flight) == 0);
    }
};

// The kernel outlives frames (kernels/gpu/resident.cuh). Its frame record changes between jobs: each warp
// keeps a copy of the one its paths belong to (the job of its last claim), refreshed when a claim brings
// a new job. Resident warps keep their bounces (no straggler pooling), so every path a warp holds comes
// from its own claims.
struct ResidentClaim {
    static constexpr bool kL2 = true;  // path_index: the plan through L2 (an SM's L1 may hold the last round's)
    static constexpr bool kPoolsPaths = false;
    // Only the sweeper (warp 0) flushes, the periodic flushes as well as the one at a job's drain. A flush
    // takes the block's counts and then adds them to the job's; had another warp's periodic flush taken
    // them just before the sweeper saw the job drained, they would have landed after the job's
    // completion was published, and the job would report fewer samples than it rendered (seen on the
    // H200: 1,048,320 of 1,048,576, once in 15 runs of Gpu.ResidentQueuedViewChangeLeavesNoSampleOfTheOldView).
    static constexpr bool kAnyWarpFlushes = false;
    struct Block {
        FrameRecord frames[kPersistentThreads / 32];
        uint32_t flushed_seq;                               // the last job whose counters this block flushed
        unsigned long long swept[kPersistentThreads / 32];  // each warp's last sweep it made its share of
    };
    const PersistentParams& p;
    Block& block;
    bool queue_shadows;                // job `job`'s policy
    uint32_t job = 0;                  // the job frame() holds
    uint32_t claimed = 0;              // the job of this warp's last claim
    unsigned long long job_paths = 0;  // the paths of job `job`

    __device__ __forceinline__ ResidentClaim(const PersistentParams& params, Block& b)
        : p(params), block(b), queue_shadows(params.queue_shadows != 0) {}
    static __device__ __forceinline__ void init_block(const PersistentParams&, Block& b) {
        b.flushed_seq = 0;
        for (unsigned long long& s : b.swept) s = 0;
    }
    __device__ __forceinline__ FrameRecord& frame() { return block.frames[threadIdx.x / 32]; }
    __device__ __forceinline__ void control(bool monitor) {
        if (monitor) resident_monitor(p);
    }
    // The relayed job's: counts made after a block's flush at the last job's drain are the next job's.
    __device__ __forceinline__ GpuCounters* counters() const {
        return resident_job_counters(p, load_volatile(&p.resident->relayed));
    }
    // A new job cannot start while this warp holds paths (a job ends only when nothing of it is in
    // flight), so only an empty warp asks: the question is an L2 round trip, and warps finishing a job's
    // last paths are its critical path.
    __device__ __forceinline__ void refresh(unsigned held, bool& exhausted) {
        if (exhausted && held == 0) {
            uint32_t running = __shfl_sync(kFullMask, lane_id() == 0 ? resident_job(p) : 0u, 0);
            if (running != claimed) exhausted = false;
        }
    }
    __device__ __forceinline__ bool claim(BlockCounters& bc, unsigned need, bool& exhausted,
                                          unsigned long long& number) {
        FrameControl* ctl = p.control;
        int k = __popc(need);
        unsigned long long base = 0;
        int n = 0;
        if (lane_id() == 0) {
            count_in_flight(ctl, k);
            n = resident_claim(p, k, job, job_paths, &base, &claimed);
            count_claimed(ctl, bc, k, n);
        }
        n = __shfl_sync(kFullMask, n, 0);
        claimed = __shfl_sync(kFullMask, claimed, 0);
        if (n > 0 && claimed != job) {  // the first paths of a new job: its frame
            resident_load_frame(p, frame());
            job = claimed;
            job_paths = frame().paths();
            // The relayed job is this one: the next is relayed only once this one drains.
            queue_shadows = (load_volatile(&p.resident->job_flags) & kJobQueueShadows) != 0;
        }
        exhausted = n < k;
        return lane_number(need, base, n, number);
    }
    // Between jobs: this warp's share of a sweep (a clear, a pack, a step of the side job), once.
    __device__ __forceinline__ bool idle_work() { return resident_sweep(p, block.swept[threadIdx.x / 32]); }
    // Warps stay for the next job; a drained job is flushed and published by sweepers. The fence pairs
    // with the claimers' (count in flight, fence, claim): having seen the last claim, the in-flight read
    // below sees its count. Between jobs (this block already flushed the last one) it does not poll at all.
    __device__ __forceinline__ int done(BlockCounters& bc, bool, bool sweeper) {
        uint32_t running = resident_job(p);
        // flushed_seq is the sweeper's alone: read through volatile, so that no other lane reads it
        // speculatively (racecheck saw warp 1 do so).
        if (sweeper && running != 0 && *static_cast<volatile uint32_t*>(&block.flushed_seq) != running &&
            resident_all_claimed(p, running)) {
            __threadfence();
            if (load_volatile(&p.control->in_flight) == 0)
                resident_drained(p, running, &block.flushed_seq,
                                 [&] { flush_counters(bc, resident_job_counters(p, running)); });
        }
        return 0;
    }
};

}  // namespace

}  // namespace pkrt
