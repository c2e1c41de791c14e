// The persistent scheduler: one launch per frame, a grid no larger than what the GPU keeps resident,
// and warps that loop until the frame's work is done:
//
//   1. shadow rays first when a full warp's worth is queued (they are short, and retiring them frees
//      queue space);
//   2. dynamic fetch (Aila & Laine): when fewer than `fetch_threshold` lanes hold a path, the idle lanes
//      pop paths from the queue, and when the queue runs low the warp generates camera paths from the
//      global path counter, so queue memory is bounded whatever the resolution and spp;
//   3. trace and shade; queue the shadow ray or trace it at once (queue_shadows), and keep the bounce in
//      the lane. With sort_stragglers a warp with fewer than `fetch_threshold` live lanes pushes them
//      to the path queue, and only empty warps take new camera paths, so primary rays travel in warps
//      of their own. A push that finds the queue full keeps the bounce in the lane, or traces the
//      shadow ray at once: producers always progress;
//   4. a warp with nothing to do backs off with __nanosleep; it leaves once every sample has been
//      generated and nothing is in flight, or when the host raises the stop flag.
//
// Counters are kept per block in shared memory and flushed to the global ones every 64 iterations and
// at exit, so hot global addresses see a few atomics per warp per 64 iterations, not per iteration.
//
// Each BVH layout gets its own builds of these kernels (persistent_bvh2.cu, persistent_cwbvh.cu: two
// translation units, so that they compile in parallel); persistent.cu picks one at launch.
#pragma once

#include "kernels/gpu/gpu_common.cuh"
#include "kernels/gpu/gpu_launch.h"
#include "kernels/gpu/resident.cuh"

namespace pkrt {

namespace {

struct BlockCounters {
    RayCounts rays;
    unsigned long long iterations, idle, sleeps, sleep_ns, kept, inlined;
    unsigned long long phase[kPhaseCount];
};

// Lane 0 of each warp charges the cycles since its last mark to a phase, in one iteration of every
// kPhaseSampling, scaled up by it. The sampled residue is staggered across warps, so that iterations of
// every kind (the control step's every eighth among them) are sampled as often as they occur. Timing
// every iteration cost the Cornell box 2.8% at 1920x1080 and, with nothing timed, its 128x128 frame ran
// 10% faster (H200, BENCHMARKS.md session 11): six clock reads and counter updates on every bounce.
constexpr unsigned kPhaseSampling = 8;

struct PhaseClock {
    long long last;
    bool sampled;  // this iteration is timed (warp-uniform)
    __device__ __forceinline__ void begin(unsigned iter, unsigned warp) {
        sampled = (iter + warp) % kPhaseSampling == 0;
        if (sampled) last = clock64();
    }
    __device__ __forceinline__ void charge(BlockCounters& b, int phase) {
        if (sampled && lane_id() == 0) {
            long long now = clock64();
            atomicAdd(&b.phase[phase], static_cast<unsigned long long>(now - last) * kPhaseSampling);
            last = now;
        }
    }
};

constexpr int kFlushInterval = 64;   // a multiple of kControlInterval
constexpr int kControlInterval = 8;

__device__ __forceinline__ unsigned long long take(unsigned long long* v) { return atomicExch(v, 0ull); }

__device__ __forceinline__ void move_count(unsigned long long* from, unsigned long long* to) {
    unsigned long long v = take(from);
    if (v) atomicAdd(to, v);
}

// One lane. Moves what the block has counted so far into the global counters. Rays are taken once and
// counted both in total and on this SM (a resident block never moves), so the two always agree.
__device__ void flush_counters(BlockCounters& b, GpuCounters* c) {
    unsigned long long extension = take(&b.rays.extension_rays), shadow = take(&b.rays.shadow_rays);
    if (extension) atomicAdd(&c->rays.extension_rays, extension);
    if (shadow) atomicAdd(&c->rays.shadow_rays, shadow);
    if (extension + shadow) atomicAdd(&c->rays_per_sm[sm_id() % kStatsMaxSms], extension + shadow);
    move_count(&b.rays.paths_generated, &c->rays.paths_generated);
    move_count(&b.rays.paths_completed, &c->rays.paths_completed);
    move_count(&b.rays.nonfinite, &c->rays.nonfinite);
    for (int d = 0; d < kStatsMaxDepth; ++d) move_count(&b.rays.rays_by_depth[d], &c->rays.rays_by_depth[d]);
    move_count(&b.iterations, &c->warp_iterations);
    move_count(&b.idle, &c->idle_iterations);
    move_count(&b.sleeps, &c->backoff_sleeps);
    move_count(&b.sleep_ns, &c->backoff_ns);
    move_count(&b.kept, &c->kept_paths);
    move_count(&b.inlined, &c->inline_shadows);
    for (int ph = 0; ph < kPhaseCount; ++ph) move_count(&b.phase[ph], &c->phase_cycles[ph]);
}

// Traversal out of line: the callee gets the whole register budget for its loop instead of sharing it
// with the scheduler's state (which, inlined, spilled inside the traversal loop), and the two shadow
// call sites share one copy of the code. A scene with cut-outs calls the loops that test them (with the
// test's two pointers), from the full build only; every other scene calls the loops without the test.
template <BvhViewLayout L>
__device__ __noinline__ Hit trace_closest(const BvhView bvh, const Ray ray) { return closest_hit<L>(bvh, ray); }
template <BvhViewLayout L>
__device__ __noinline__ bool trace_occluded(const BvhView bvh, const Ray ray, float tmax) { return any_hit<L>(bvh, ray, tmax); }
template <BvhViewLayout L>
__device__ __noinline__ Hit trace_closest_cutouts(const BvhView bvh, const CutoutSurfaces c, const Ray ray) {
    return closest_hit<L>(bvh, ray, kInfinity, c);
}
template <BvhViewLayout L>
__device__ __noinline__ bool trace_occluded_cutouts(const BvhView bvh, const CutoutSurfaces c, const Ray ray, float tmax) {
    return any_hit<L>(bvh, ray, tmax, c);
}

template <BvhViewLayout L, bool kFull>
struct OutOfLineTraversal {
    static __device__ __forceinline__ Hit closest(const SceneView& s, const Ray& ray) {
        if constexpr (kFull)
            if (s.cutouts) return trace_closest_cutouts<L>(s.bvh, SurfacesOf<true>::of(s), ray);
        return trace_closest<L>(s.bvh, ray);
    }
    static __device__ __forceinline__ bool occluded(const SceneView& s, const Ray& ray, float tmax) {
        if constexpr (kFull)
            if (s.cutouts) return trace_occluded_cutouts<L>(s.bvh, SurfacesOf<true>::of(s), ray, tmax);
        return trace_occluded<L>(s.bvh, ray, tmax);
    }
};

// Traces a warp's shadow rays (lanes with `have`) and adds the unoccluded contributions.
template <BvhViewLayout L, bool kFull>
__device__ __forceinline__ void trace_shadows(const PersistentParams& p, FramebufferSink& sink, bool have, const ShadowRecord& s) {
    if (have) resolve_shadow<OutOfLineTraversal<L, kFull>>(sink, p.scene, s.ray);
}

// Shared frames (SharedFrame, kernels/gpu/gpu_records.h), one lane: the frame chunk of local chunk c,
// as chunk_map holds it (chunk + 1, or kChunkNone). The warp that claimed c's first local number
// (`owner`) takes a chunk from the shared counter, but only once c - 1 has one: so a grid takes its
// chunks in the order of its local chunks, and once one finds none left every later one does too
// (FrameControl::end_sample drops to it). Any other warp waits for the owner: one peer atomic.
// Out of line: it runs once per chunk of tens of thousands of paths. Its arguments are values: a
// reference into the kernel's parameters would make the compiler copy them all to local memory, and
// every later read of them in the loop a local load (a 10-33% slower frame on the H200).
__device__ __noinline__ uint32_t shared_chunk(unsigned long long* next_chunk, uint32_t* chunk_map, unsigned long long chunk_base,
                                              uint32_t chunks, uint32_t chunk_paths, FrameControl* ctl, unsigned long long c,
                                              bool owner) {
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

}  // namespace

// kResident: the kernel outlives frames (kernels/gpu/resident.cuh). Its frame record changes between jobs:
// each warp keeps a copy of the one its paths belong to (the job of its last claim), refreshed when a
// claim brings a new job. Resident warps keep their bounces (no straggler pooling), so every path a
// warp holds comes from its own claims.
// kShared: the frame's paths are shared with other grids (SharedFrame): a build of its own, so that a
// frame on one GPU runs the loop without the chunk mapping (which, compiled in, cost Dabrovic Sponza
// 1.7% at 1920x1080 on the H200 for code it never ran).
template <bool kResident, BvhViewLayout L, bool kFull, bool kShared = false>
__device__ __forceinline__ void persistent_body(const PersistentParams& p) {
    __shared__ BlockCounters bc;
    __shared__ FrameRecord frame_copy[kResident ? kPersistentThreads / 32 : 1];
    __shared__ uint32_t flushed_seq;  // resident: the last job whose counters this block flushed
    for (int i = threadIdx.x; i < static_cast<int>(sizeof(BlockCounters) / 8); i += blockDim.x)
        reinterpret_cast<unsigned long long*>(&bc)[i] = 0;
    if (threadIdx.x == 0) {
        if (!kResident) frame_copy[0] = *p.frame;
        flushed_seq = 0;
    }
    __syncthreads();
    FrameRecord& frame = frame_copy[kResident ? threadIdx.x / 32 : 0];
    uint32_t job = 0;      // resident: the job `frame` holds
    uint32_t claimed = 0;  // resident: the job of this warp's last claim
    unsigned long long job_paths = 0;  // resident: the paths of job `job`
    bool queue_shadows = p.queue_shadows != 0;  // resident: job `job`'s policy

    GpuCounters* c = p.counters;
    FrameControl* ctl = p.control;
    FramebufferSink sink{p.fb};
    const bool monitor = blockIdx.x == 0 && threadIdx.x < 32;  // polls the host's stop flag
    const bool lead = lane_id() == 0;
    // The lane's path lives in shared memory, not registers: only its ray is needed during traversal,
    // and 16 fewer live registers there is what keeps the traversal loop free of spills. Records sit
    // 80 bytes apart, not 64: at 64 a warp's 4-byte accesses to one field fell into two banks (16-way
    // conflicts; Nsight Compute counted 70% of the kernel's shared wavefronts as excess), at 80 into
    // eight, and 16-byte accesses by a quarter warp meet no conflict at all.
    struct alignas(16) SharedPath {
        PathRecord rec;
        uint32_t pad[4];
    };
    __shared__ SharedPath block_paths[kPersistentThreads];
    PathRecord& rec = block_paths[threadIdx.x].rec;
    bool have = false;  // this lane holds a path (fetched, generated or kept)
    int backoff = 0;
    // Every sample has been claimed (seen by this warp): claims only grow, so once seen it stays true,
    // and the warp stops paying two atomics per iteration to learn it again.
    bool exhausted = false;
    // Bounces kept in their lanes and no pooling: nothing ever enters the path queue, so warps do not
    // pay two dependent L2 reads per fetch to find it empty (a latency-bound frame feels every one).
    const bool path_queue_used = !kResident && p.sort_stragglers;
    PhaseClock clk;
    const unsigned warp = blockIdx.x * (kPersistentThreads / 32) + threadIdx.x / 32;

    for (unsigned iter = 1;; ++iter) {
        clk.begin(iter, warp);
        // ---- stop flag, timeline, counters ----
        // Every kControlInterval iterations only: these are dependent L2 round trips on the critical
        // path of every bounce, and a path's latency is what small frames are made of.
        int stop = 0;
        if (lead) atomicAdd(&bc.iterations, 1ull);
        if (lead && iter % kControlInterval == 0) {
            if (monitor && p.host_stop && *p.host_stop) atomicExch(&ctl->stop, 1);
            if (kResident && monitor) resident_monitor(p);
            stop = load_volatile(&ctl->stop);
            unsigned long long t;
            // Only block sweepers (warp 0) sample: a quarter of the L2 traffic, and still ~1000 warps.
            if (p.timeline && threadIdx.x < 32 && timeline_due(c, &t)) {
                int pq = queue_occupancy(p.paths), sq = queue_occupancy(p.shadows), fl = load_volatile(&ctl->in_flight);
                record_timeline(c, t, pq, sq, fl);
                if (p.live) {
                    p.live->rays = load_volatile(&c->rays.extension_rays) + load_volatile(&c->rays.shadow_rays);
                    p.live->samples_done = load_volatile(&c->rays.paths_completed);
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
        int shadow_avail = queue_shadows ? __shfl_sync(kFullMask, lead ? queue_available(p.shadows) : 0, 0) : 0;
        if (shadow_avail >= 32 || (held == 0 && shadow_avail > 0)) {
            ShadowRecord s;
            bool got;
            int n = warp_pop(p.shadows, kFullMask, s, &got);
            if (n > 0) {
                trace_shadows<L, kFull>(p, sink, got, s);
                count_shadow_rays(bc.rays, n);
                if (lead) atomicSub(&ctl->in_flight, n);
                backoff = 0;
                clk.charge(bc, kPhaseShadowBatch);
                continue;
            }
        }

        // ---- 2. dynamic fetch: idle lanes take queued paths, then new samples ----
        // A new job makes samples claimable again. It cannot start while this warp holds paths (a job
        // ends only when nothing of it is in flight), so only an empty warp asks: the question is an
        // L2 round trip, and warps finishing a job's last paths are its critical path.
        if (kResident && exhausted && held == 0) {
            uint32_t running = __shfl_sync(kFullMask, lead ? resident_job(p) : 0u, 0);
            if (running != claimed) exhausted = false;
        }
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
            // Sorted stragglers: only an empty warp takes new camera paths, so primary rays travel in
            // warps of their own instead of beside secondary rays from elsewhere.
            bool may_generate = !p.sort_stragglers || held == 0;
            if (!exhausted && may_generate && __popc(held) < 32 && path_avail < p.low_water) {
                unsigned need = ~held;
                int k = __popc(need);
                unsigned long long base = 0;
                int n = 0;
                [[maybe_unused]] uint32_t chunk0 = 0, chunk1 = 0;  // shared frames, lead lane: the claim's chunks (chunk_map values)
                if (lead) {
                    // Count the new paths in flight before claiming them, so that no warp can see
                    // "all samples claimed and nothing in flight" while these are being created. In
                    // resident mode the claim is a release, which orders the two for the sweepers
                    // (they would otherwise flush their block's counters and count it drained while
                    // these paths run). A persistent sweeper that left early would do no harm (every
                    // warp drains the queues it can see before it leaves), and a fence between the
                    // two costs 4% on latency-bound frames (H200, Cornell 128x128).
                    atomicAdd(&ctl->in_flight, k);
                    if constexpr (kResident) {
                        n = resident_claim(p, k, job, job_paths, &base, &claimed);
                    } else {
                        base = atomicAdd(&ctl->next_sample, static_cast<unsigned long long>(k));
                        unsigned long long end = kShared ? load_volatile(&ctl->end_sample) : ctl->end_sample;
                        n = base >= end ? 0 : static_cast<int>(end - base < static_cast<unsigned long long>(k) ? end - base : k);
                        if constexpr (kShared) {  // the chunks of the claim's first and last numbers (k <= chunk_paths)
                            const unsigned long long cp = p.shared.chunk_paths, c0 = base / cp, c1 = (base + k - 1) / cp;
                            const SharedFrame& sf = p.shared;
                            chunk0 = shared_chunk(sf.next_chunk, sf.chunk_map, sf.chunk_base, sf.chunks, sf.chunk_paths, ctl, c0,
                                                  base % cp == 0);
                            chunk1 = c1 == c0 ? chunk0
                                              : shared_chunk(sf.next_chunk, sf.chunk_map, sf.chunk_base, sf.chunks, sf.chunk_paths,
                                                             ctl, c1, true);
                        }
                    }
                    if constexpr (!kShared) {  // shared frames count their paths once they are mapped, below
                        if (n < k) atomicSub(&ctl->in_flight, k - n);
                        add_count(&bc.rays.paths_generated, n);
                    }
                }
                n = __shfl_sync(kFullMask, n, 0);
                if constexpr (kResident) {
                    claimed = __shfl_sync(kFullMask, claimed, 0);
                    if (n > 0 && claimed != job) {  // the first paths of a new job: its frame
                        resident_load_frame(p, frame);
                        job = claimed;
                        job_paths = frame.paths();
                        // The relayed job is this one: the next is relayed only once this one drains.
                        queue_shadows = (load_volatile(&p.resident->job_flags) & kJobQueueShadows) != 0;
                    }
                }
                if constexpr (!kShared) {  // the loop of a frame on one grid, as it was before shared frames
                    exhausted = n < k;
                    base = __shfl_sync(kFullMask, base, 0);
                    int rank = __popc(need & lanemask_lt());
                    if (((need >> lane_id()) & 1u) && rank < n) {
                        PathIndex k = path_index<kResident>(frame, base + rank);
                        rec.path = generate_path(frame, k);
                        rec.sample = k.sample;
                        have = true;
                    }
                } else {
                    // Local number -> the frame's: its chunk's place in the frame. A chunk none was left
                    // for, and the frame's last chunk past its last path, hold nothing.
                    base = __shfl_sync(kFullMask, base, 0);
                    int rank = __popc(need & lanemask_lt());
                    const unsigned long long cp = p.shared.chunk_paths, local = base + rank;
                    uint32_t m0 = __shfl_sync(kFullMask, chunk0, 0), m1 = __shfl_sync(kFullMask, chunk1, 0);
                    uint32_t m = local / cp == base / cp ? m0 : m1;
                    unsigned long long number = (m - 1ull) * cp + local % cp;
                    bool take = ((need >> lane_id()) & 1u) && rank < n && m != kChunkNone && number < frame.paths();
                    n = popc_ballot(take);
                    if (lead) {
                        if (n < k) atomicSub(&ctl->in_flight, k - n);
                        add_count(&bc.rays.paths_generated, n);
                    }
                    exhausted = n < k;
                    if (take) {
                        PathIndex k = path_index<kResident>(frame, number);
                        rec.path = generate_path(frame, k);
                        rec.sample = k.sample;
                        have = true;
                    }
                }
                held = __ballot_sync(kFullMask, have);
            }
        }

        clk.charge(bc, kPhaseFetch);

        // ---- nothing to do: finished, or wait for other warps' work ----
        if (held == 0) {
            if constexpr (kResident) {
                if (resident_sweep(p)) {  // between jobs: a tile of a clear or a pack
                    clk.charge(bc, kPhaseIdle);
                    backoff = 0;
                    continue;
                }
            }
            int done = 0;
            if (lead) {
                bool sweeper = threadIdx.x < 32;
                if constexpr (kResident) {
                    // Warps stay for the next job; a drained job is flushed and published by sweepers.
                    // The fence pairs with the claimers' (count in flight, fence, claim): having seen
                    // the last claim, the in-flight read below sees its count.
                    // Between jobs (this block already flushed the last one) it does not poll at all.
                    uint32_t running = resident_job(p);
                    // flushed_seq is the sweeper's alone: read through volatile, so that no other lane
                    // reads it speculatively (racecheck saw warp 1 do so).
                    if (sweeper && running != 0 && *static_cast<volatile uint32_t*>(&flushed_seq) != running &&
                        resident_all_claimed(p, running)) {
                        __threadfence();
                        if (load_volatile(&ctl->in_flight) == 0)
                            resident_drained(p, running, &flushed_seq, [&] { flush_counters(bc, c); });
                    }
                } else {
                    bool all_claimed = exhausted || load_volatile(&ctl->next_sample) >= (kShared ? load_volatile(&ctl->end_sample) : ctl->end_sample);
                    // Once every sample is claimed, an empty warp leaves unless it is its block's sweeper
                    // (warp 0): sweepers stay until nothing is in flight and finish whatever is still
                    // queued, so the rest need not poll (which would crowd the hot counters' L2 lines).
                    done = all_claimed && (!sweeper || load_volatile(&ctl->in_flight) == 0);
                }
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
        if (have) hit = OutOfLineTraversal<L, kFull>::closest(p.scene, Ray{rec.path.origin, rec.path.dir});
        __syncwarp();
        clk.charge(bc, kPhaseTrace);
        int depth = rec.path.depth;
        count_extension_rays(bc.rays, have, depth);
        ShadeResult r;
        r.has_shadow = false;
        r.continues = false;
        r.dropped = false;
        if (have) {
            uint32_t pixel = rec.path.pixel;
            shade_path<kFull>(p.scene, frame, rec.path, hit, r);
            sink.add(pixel, r.radiance);
        }
        count_dropped(bc.rays, r.dropped);
        clk.charge(bc, kPhaseShade);

        // Shadow ray: into the queue (counted in flight), or traced right here if the queue is full.
        ShadowRecord s;
        bool want_shadow = have && r.has_shadow;
        if (want_shadow) {
            s.ray = r.shadow;
            s.depth = static_cast<uint32_t>(min_i(depth, kStatsMaxDepth - 1));
        }
        bool queued = queue_shadows ? warp_push(p.shadows, want_shadow, s) : !want_shadow;
        bool inline_shadow = want_shadow && !queued;
        unsigned n_inline = popc_ballot(inline_shadow);
        if (n_inline) {
            trace_shadows<L, kFull>(p, sink, inline_shadow, s);
            count_shadow_rays(bc.rays, n_inline);
            if (lead) add_count(&bc.inlined, n_inline);
        }
        unsigned n_queued = popc_ballot(want_shadow && queued);
        clk.charge(bc, kPhaseShadowOut);

        // The path: finished (count its sample), continued in the lane, or pooled through the queue.
        unsigned n_ended = finish_samples(sink, bc.rays, have && !r.continues, rec.path.pixel);
        bool cont = have && r.continues;
        bool push = false;
        if (p.sort_stragglers) {
            unsigned live = popc_ballot(cont);
            push = cont && live < static_cast<unsigned>(p.fetch_threshold);
        }
        bool pushed = warp_push(p.paths, push, rec) && push;
        have = cont && !pushed;
        unsigned n_kept = popc_ballot(push && !pushed);
        if (lead) {
            add_count(&bc.kept, n_kept);
            // One update: new shadow rays in, finished paths out (never dips below the true count).
            int delta = static_cast<int>(n_queued) - static_cast<int>(n_ended);
            if (delta) atomicAdd(&ctl->in_flight, delta);
        }
        clk.charge(bc, kPhasePathOut);
    }
    if (lead) flush_counters(bc, c);
}

// Register caps: the same loop compiled for 4, 6, 8 or 10 resident blocks per SM (128, 80, 64 or 48
// registers). More warps hide more memory latency; fewer registers spill more. Each for a BVH layout,
// and with or without the full shading (kFull, kernels/shading/environment.h).
template <int kMinBlocks, BvhViewLayout L, bool kFull, bool kShared>
__global__ void __launch_bounds__(kPersistentThreads, kMinBlocks) persistent_kernel(PersistentParams p) {
    persistent_body<false, L, kFull, kShared>(p);
}

template <BvhViewLayout L, bool kFull>
__global__ void __launch_bounds__(kPersistentThreads, kResidentBlocksPerSm) resident_kernel(PersistentParams p) {
    persistent_body<true, L, kFull>(p);
}

namespace {
template <BvhViewLayout L, bool kFull, bool kShared, class F>
cudaError_t with_build(int blocks_per_sm, F&& f) {
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
template <BvhViewLayout L, bool kFull>
int persistent_occupancy_as(int blocks_per_sm) {
    int alone = 0, shared = 0;
    auto query = [&](int* blocks) {
        return [blocks](auto kernel) { return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, kernel, kPersistentThreads, 0); };
    };
    cudaError_t e = with_build<L, kFull, false>(blocks_per_sm, query(&alone));
    if (e == cudaSuccess) e = with_build<L, kFull, true>(blocks_per_sm, query(&shared));
    return e == cudaSuccess ? (alone < shared ? alone : shared) : 0;
}

template <BvhViewLayout L, bool kFull>
cudaError_t launch_persistent_as(const PersistentParams& p, int blocks, int blocks_per_sm, cudaStream_t stream) {
    auto launch = [&](auto kernel) {
        kernel<<<blocks, kPersistentThreads, 0, stream>>>(p);
        return cudaGetLastError();
    };
    return p.shared.next_chunk ? with_build<L, kFull, true>(blocks_per_sm, launch) : with_build<L, kFull, false>(blocks_per_sm, launch);
}

template <BvhViewLayout L, bool kFull>
int resident_occupancy_as() {
    int blocks = 0;
    cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, resident_kernel<L, kFull>, kPersistentThreads, 0);
    return e == cudaSuccess ? blocks : 0;
}

template <BvhViewLayout L, bool kFull>
cudaError_t launch_resident_as(const PersistentParams& p, int blocks, cudaStream_t stream) {
    resident_kernel<L, kFull><<<blocks, kPersistentThreads, 0, stream>>>(p);
    return cudaGetLastError();
}

// One layout's builds, with and without the full shading, for persistent_bvh2.cu and persistent_cwbvh.cu.
#define PKRT_PERSISTENT_BUILDS_AS(L, F)                                                                       \
    template int persistent_occupancy_as<L, F>(int);                                                          \
    template cudaError_t launch_persistent_as<L, F>(const PersistentParams&, int, int, cudaStream_t);         \
    template int resident_occupancy_as<L, F>();                                                               \
    template cudaError_t launch_resident_as<L, F>(const PersistentParams&, int, cudaStream_t);
#define PKRT_PERSISTENT_BUILDS(L) PKRT_PERSISTENT_BUILDS_AS(L, false) PKRT_PERSISTENT_BUILDS_AS(L, true)

}  // namespace pkrt
