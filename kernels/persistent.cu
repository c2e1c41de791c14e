// The persistent scheduler: one launch per frame, a grid no larger than what the GPU keeps resident,
// and warps that loop until the frame's work is done:
//
//   1. shadow rays first when a full warp's worth is queued (they are short, and retiring them frees
//      queue space);
//   2. dynamic fetch (Aila & Laine): when fewer than `fetch_threshold` lanes hold a path, the idle lanes
//      pop paths from the queue, and when the queue runs low the warp generates camera paths from the
//      global (pixel, sample) counter, so queue memory is bounded whatever the resolution and spp;
//   3. trace and shade; queue the shadow ray or trace it at once (queue_shadows), and push the bounce
//      (push_continuations = 1) or keep it in the lane (0). Kept bounces may be pooled through the
//      queue (pool_stragglers): a warp with fewer than `fetch_threshold` live lanes pushes them, once
//      no samples are left (1) or always (2), so stragglers of many warps are compacted into few full
//      ones. A push that finds the queue full keeps the bounce in the lane, or traces the shadow ray at
//      once: producers always progress;
//   4. a warp with nothing to do backs off with __nanosleep; it leaves once every sample has been
//      generated and nothing is in flight, or when the host raises the stop flag.
//
// Counters are kept per block in shared memory and flushed to the global ones every 64 iterations and
// at exit, so hot global addresses see a few atomics per warp per 64 iterations, not per iteration.
#include "gpu_common.cuh"
#include "gpu_launch.h"

namespace pkrt {

namespace {

struct BlockCounters {
    unsigned long long iterations, extension, shadow, generated, completed, idle, sleeps, sleep_ns, kept, inlined;
    unsigned long long depth[kStatsMaxDepth];
    unsigned long long phase[kPhaseCount];
};

// Lane 0 of each warp charges the cycles since its last mark to a phase.
struct PhaseClock {
    long long last;
    __device__ __forceinline__ void start() { last = clock64(); }
    __device__ __forceinline__ void charge(BlockCounters& b, int phase) {
        if (lane_id() == 0) {
            long long now = clock64();
            atomicAdd(&b.phase[phase], static_cast<unsigned long long>(now - last));
            last = now;
        }
    }
};

constexpr int kFlushInterval = 64;   // a multiple of kControlInterval
constexpr int kControlInterval = 8;

__device__ __forceinline__ void add_shared(unsigned long long* dst, unsigned n) {
    if (n) atomicAdd(dst, static_cast<unsigned long long>(n));
}

__device__ __forceinline__ unsigned long long take(unsigned long long* v) { return atomicExch(v, 0ull); }

// One lane. Moves what the block has counted so far into the global counters.
__device__ void flush_counters(BlockCounters& b, GpuCounters* c) {
    unsigned long long v;
    unsigned long long rays = 0;
    if ((v = take(&b.iterations))) atomicAdd(&c->warp_iterations, v);
    if ((v = take(&b.extension))) { atomicAdd(&c->extension_rays, v); rays += v; }
    if ((v = take(&b.shadow))) { atomicAdd(&c->shadow_rays, v); rays += v; }
    if ((v = take(&b.generated))) atomicAdd(&c->paths_generated, v);
    if ((v = take(&b.completed))) atomicAdd(&c->paths_completed, v);
    if ((v = take(&b.idle))) atomicAdd(&c->idle_iterations, v);
    if ((v = take(&b.sleeps))) atomicAdd(&c->backoff_sleeps, v);
    if ((v = take(&b.sleep_ns))) atomicAdd(&c->backoff_ns, v);
    if ((v = take(&b.kept))) atomicAdd(&c->kept_paths, v);
    if ((v = take(&b.inlined))) atomicAdd(&c->inline_shadows, v);
    for (int d = 0; d < kStatsMaxDepth; ++d)
        if ((v = take(&b.depth[d]))) atomicAdd(&c->rays_by_depth[d], v);
    for (int ph = 0; ph < kPhaseCount; ++ph)
        if ((v = take(&b.phase[ph]))) atomicAdd(&c->phase_cycles[ph], v);
    if (rays) atomicAdd(&c->rays_per_sm[sm_id() % kStatsMaxSms], rays);  // a resident block never moves
}

__device__ __forceinline__ unsigned popc_ballot(bool pred) { return __popc(__ballot_sync(kFullMask, pred)); }

// Traversal out of line: the callee gets the whole register budget for its loop instead of sharing it
// with the scheduler's state (which, inlined, spilled inside the traversal loop), and the two shadow
// call sites share one copy of the code.
__device__ __noinline__ Hit trace_closest(const BvhView bvh, const Ray ray) { return intersect_closest(bvh, ray); }
__device__ __noinline__ bool trace_occluded(const BvhView bvh, const Ray ray, float tmax) { return occluded(bvh, ray, tmax); }

// Traces a warp's shadow rays (lanes with `have`) and adds the unoccluded contributions.
__device__ __forceinline__ void trace_shadows(const PersistentParams& p, bool have, const ShadowRecord& s) {
    if (have && !trace_occluded(p.scene.bvh, Ray{s.ray.origin, s.ray.dir}, s.ray.tmax))
        add_radiance(p.fb, s.ray.pixel, s.ray.contribution);
}

}  // namespace

__device__ __forceinline__ void persistent_body(const PersistentParams& p) {
    __shared__ BlockCounters bc;
    for (int i = threadIdx.x; i < static_cast<int>(sizeof(BlockCounters) / 8); i += blockDim.x)
        reinterpret_cast<unsigned long long*>(&bc)[i] = 0;
    __syncthreads();

    GpuCounters* c = p.counters;
    FrameControl* ctl = p.control;
    const bool monitor = blockIdx.x == 0 && threadIdx.x < 32;  // polls the host's stop flag
    const bool lead = lane_id() == 0;
    // The lane's path lives in shared memory, not registers: only its ray is needed during traversal,
    // and 16 fewer live registers there is what keeps the traversal loop free of spills.
    __shared__ PathRecord block_paths[kPersistentThreads];
    PathRecord& rec = block_paths[threadIdx.x];
    bool have = false;  // this lane holds a path (fetched, generated or kept)
    int backoff = 0;
    // Every sample has been claimed (seen by this warp): claims only grow, so once seen it stays true,
    // and the warp stops paying two atomics per iteration to learn it again.
    bool exhausted = false;
    // Bounces kept in their lanes and no pooling: nothing ever enters the path queue, so warps do not
    // pay two dependent L2 reads per fetch to find it empty (a latency-bound frame feels every one).
    const bool path_queue_used = p.push_continuations || p.pool_stragglers;
    PhaseClock clk;
    clk.start();

    for (unsigned iter = 1;; ++iter) {
        // ---- stop flag, timeline, counters ----
        // Every kControlInterval iterations only: these are dependent L2 round trips on the critical
        // path of every bounce, and a path's latency is what small frames are made of.
        int stop = 0;
        if (lead) atomicAdd(&bc.iterations, 1ull);
        if (lead && iter % kControlInterval == 0) {
            if (monitor && p.host_stop && *p.host_stop) atomicExch(&ctl->stop, 1);
            stop = load_volatile(&ctl->stop);
            unsigned long long t;
            // Only block sweepers (warp 0) sample: a quarter of the L2 traffic, and still ~1000 warps.
            if (p.timeline && threadIdx.x < 32 && timeline_due(c, &t)) {
                int pq = queue_occupancy(p.paths), sq = queue_occupancy(p.shadows), fl = load_volatile(&ctl->in_flight);
                record_timeline(c, t, pq, sq, fl);
                if (p.live) {
                    p.live->rays = load_volatile(&c->extension_rays) + load_volatile(&c->shadow_rays);
                    p.live->samples_done = load_volatile(&c->paths_completed);
                    p.live->path_queue = pq;
                    p.live->shadow_queue = sq;
                    p.live->in_flight = fl;
                }
            }
            if (iter % kFlushInterval == 0) flush_counters(bc, c);
        }
        if (__shfl_sync(kFullMask, stop, 0)) break;
        clk.charge(bc, kPhaseControl);

        // ---- 1. a full batch of shadow rays ----
        unsigned held = __ballot_sync(kFullMask, have);
        int shadow_avail = p.queue_shadows ? __shfl_sync(kFullMask, lead ? queue_available(p.shadows) : 0, 0) : 0;
        if (shadow_avail >= 32 || (held == 0 && shadow_avail > 0)) {
            ShadowRecord s;
            bool got;
            int n = warp_pop(p.shadows, kFullMask, s, &got);
            if (n > 0) {
                trace_shadows(p, got, s);
                if (lead) {
                    add_shared(&bc.shadow, n);
                    atomicSub(&ctl->in_flight, n);
                }
                backoff = 0;
                clk.charge(bc, kPhaseShadowBatch);
                continue;
            }
        }

        // ---- 2. dynamic fetch: idle lanes take queued paths, then new samples ----
        if (__popc(held) < p.fetch_threshold) {
            int path_avail = 0;
            if (path_queue_used) {
                PathRecord r;
                bool got;
                warp_pop(p.paths, ~held, r, &got);
                if (got) {
                    rec = r;
                    have = true;
                }
                held = __ballot_sync(kFullMask, have);
                path_avail = __shfl_sync(kFullMask, lead ? queue_available(p.paths) : 0, 0);
            }
            // Sorted pooling (2): only an empty warp takes new camera paths, so primary rays travel in
            // warps of their own instead of beside secondary rays from elsewhere.
            bool may_generate = p.pool_stragglers != 2 || held == 0;
            if (!exhausted && may_generate && __popc(held) < 32 && path_avail < p.low_water) {
                unsigned need = ~held;
                int k = __popc(need);
                unsigned long long base = 0;
                int n = 0;
                if (lead) {
                    // Count the new paths in flight before claiming them, so that no warp can see
                    // "all samples claimed and nothing in flight" while these are being created.
                    atomicAdd(&ctl->in_flight, k);
                    base = atomicAdd(&ctl->next_sample, static_cast<unsigned long long>(k));
                    unsigned long long end = ctl->end_sample;
                    n = base >= end ? 0 : static_cast<int>(end - base < static_cast<unsigned long long>(k) ? end - base : k);
                    if (n < k) atomicSub(&ctl->in_flight, k - n);
                    add_shared(&bc.generated, n);
                }
                n = __shfl_sync(kFullMask, n, 0);
                exhausted = n < k;
                base = __shfl_sync(kFullMask, base, 0);
                int rank = __popc(need & lanemask_lt());
                if (((need >> lane_id()) & 1u) && rank < n) {
                    unsigned long long idx = base + rank;
                    uint32_t pixel = static_cast<uint32_t>(idx % p.pixels);
                    uint32_t sample = p.first_sample + static_cast<uint32_t>(idx / p.pixels);
                    rec.path = start_path(p.scene, p.frame, pixel, sample);
                    rec.sample = sample;
                    have = true;
                }
                held = __ballot_sync(kFullMask, have);
            }
        }

        clk.charge(bc, kPhaseFetch);

        // ---- nothing to do: finished, or wait for other warps' work ----
        if (held == 0) {
            int done = 0;
            if (lead) {
                bool all_claimed = exhausted || load_volatile(&ctl->next_sample) >= ctl->end_sample;
                // Once every sample is claimed, an empty warp leaves unless it is its block's sweeper
                // (warp 0): sweepers stay until nothing is in flight and finish whatever is still
                // queued, so the rest need not poll (which would crowd the hot counters' L2 lines).
                bool sweeper = threadIdx.x < 32;
                done = all_claimed && (!sweeper || load_volatile(&ctl->in_flight) == 0);
                if (!done) {
                    unsigned ns = 64u << min_i(backoff, p.backoff_max_shift);  // idle polling must not crowd L2
                    atomicAdd(&bc.idle, 1ull);
                    atomicAdd(&bc.sleeps, 1ull);
                    atomicAdd(&bc.sleep_ns, static_cast<unsigned long long>(ns));
                    __nanosleep(ns);
                }
            }
            clk.charge(bc, kPhaseIdle);
            if (__shfl_sync(kFullMask, done, 0)) break;
            ++backoff;
            continue;
        }
        backoff = 0;

        // ---- 3. trace and shade ----
        Hit hit = no_hit();
        if (have) hit = trace_closest(p.scene.bvh, Ray{rec.path.origin, rec.path.dir});
        __syncwarp();
        clk.charge(bc, kPhaseTrace);
        int depth = have ? min_i(rec.path.depth, kStatsMaxDepth - 1) : -1;
        unsigned same = __match_any_sync(kFullMask, depth);
        if (have && static_cast<int>(lane_id()) == __ffs(same) - 1) add_shared(&bc.depth[depth], __popc(same));
        if (lead) add_shared(&bc.extension, __popc(held));
        ShadeResult r;
        r.has_shadow = false;
        r.continues = false;
        if (have) {
            uint32_t pixel = rec.path.pixel;
            shade_path(p.scene, p.frame, rec.path, hit, r);
            add_radiance(p.fb, pixel, r.radiance);
        }
        __syncwarp();
        clk.charge(bc, kPhaseShade);

        // Shadow ray: into the queue (counted in flight), or traced right here if the queue is full.
        ShadowRecord s;
        bool want_shadow = have && r.has_shadow;
        if (want_shadow) {
            s.ray = r.shadow;
            s.depth = static_cast<uint32_t>(depth);
        }
        bool queued = p.queue_shadows ? warp_push(p.shadows, want_shadow, s) : !want_shadow;
        bool inline_shadow = want_shadow && !queued;
        unsigned n_inline = popc_ballot(inline_shadow);
        if (n_inline) {
            trace_shadows(p, inline_shadow, s);
            if (lead) {
                add_shared(&bc.shadow, n_inline);
                add_shared(&bc.inlined, n_inline);
            }
        }
        unsigned n_queued = popc_ballot(want_shadow && queued);
        clk.charge(bc, kPhaseShadowOut);

        // The path: finished (count its sample), continued in the lane, or continued through the queue.
        bool ended = have && !r.continues;
        if (ended) atomicAdd(&p.fb.samples[rec.path.pixel], 1u);
        unsigned n_ended = popc_ballot(ended);
        bool cont = have && r.continues;
        bool push = cont && p.push_continuations;
        if (!p.push_continuations && (p.pool_stragglers == 2 || (p.pool_stragglers && exhausted))) {
            // Pool this warp's stragglers with everyone else's.
            unsigned live = popc_ballot(cont);
            push = cont && live < static_cast<unsigned>(p.fetch_threshold);
        }
        bool pushed = warp_push(p.paths, push, rec) && push;
        have = cont && !pushed;
        unsigned n_kept = popc_ballot(push && !pushed);
        if (lead) {
            add_shared(&bc.completed, n_ended);
            add_shared(&bc.kept, n_kept);
            // One update: new shadow rays in, finished paths out (never dips below the true count).
            int delta = static_cast<int>(n_queued) - static_cast<int>(n_ended);
            if (delta) atomicAdd(&ctl->in_flight, delta);
        }
        clk.charge(bc, kPhasePathOut);
    }
    if (lead) flush_counters(bc, c);
}

// Register caps: the same loop compiled for 4, 6, 8 or 10 resident blocks per SM (128, 80, 64 or 48
// registers). More warps hide more memory latency; fewer registers spill more.
template <int kMinBlocks>
__global__ void __launch_bounds__(kPersistentThreads, kMinBlocks) persistent_kernel(PersistentParams p) {
    persistent_body(p);
}

namespace {
template <class F>
cudaError_t with_variant(int blocks_per_sm, F&& f) {
    switch (blocks_per_sm) {
        case 4: return f(persistent_kernel<4>);
        case 6: return f(persistent_kernel<6>);
        case 8: return f(persistent_kernel<8>);
        case 10: return f(persistent_kernel<10>);
        default: return cudaErrorInvalidValue;
    }
}
}  // namespace

int persistent_blocks_per_sm(int variant) {
    int blocks = 0;
    cudaError_t e = with_variant(variant, [&](auto kernel) {
        return cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, kPersistentThreads, 0);
    });
    return e == cudaSuccess ? blocks : 0;
}

cudaError_t set_persistent_carveout(int variant, int percent) {
    return with_variant(variant, [&](auto kernel) {
        return cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, percent);
    });
}

cudaError_t launch_persistent(const PersistentParams& p, int blocks, int variant, cudaStream_t stream) {
    return with_variant(variant, [&](auto kernel) {
        kernel<<<blocks, kPersistentThreads, 0, stream>>>(p);
        return cudaGetLastError();
    });
}

namespace {
template <class Record>
__global__ void queue_init_kernel(DeviceQueue<Record> q) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < q.capacity) q.seq[i] = i;
    if (i == 0) *q.counters = QueueCounters{};
}
}  // namespace

template <class Record>
cudaError_t launch_queue_init(const DeviceQueue<Record>& q, cudaStream_t stream) {
    queue_init_kernel<<<(q.capacity + 255) / 256, 256, 0, stream>>>(q);
    return cudaGetLastError();
}

template cudaError_t launch_queue_init<PathRecord>(const DeviceQueue<PathRecord>&, cudaStream_t);
template cudaError_t launch_queue_init<ShadowRecord>(const DeviceQueue<ShadowRecord>&, cudaStream_t);

}  // namespace pkrt
