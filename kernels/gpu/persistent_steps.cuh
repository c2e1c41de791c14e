// The persistent kernel's named steps (kernels/gpu/persistent_body.cuh runs them in a loop), for one warp:
//
//   control             every kControlInterval iterations: the host's stop flag, the timeline, counters
//   trace_shadow_batch  shadow rays first when a full warp's worth is queued (they are short, and
//                       retiring them frees queue space)
//   claim_work          dynamic fetch (Aila & Laine): when fewer than `fetch_threshold` lanes hold a path,
//                       idle lanes pop paths from the queue, and when it runs low the warp claims path
//                       numbers (the Claim policy, kernels/gpu/persistent_claims.cuh) and generates their
//                       camera paths, so queue memory is bounded whatever the resolution and spp
//   advance_path        extend, shade, queue the shadow ray or trace it at once (queue_shadows): the
//                       one step of a path every scheduler runs (kernels/path_stages.h); this warp is its Step
//   path_out            the path finished, kept in the lane, or pooled through the queue (sort_stragglers:
//                       a warp with few live lanes pushes them, and only empty warps take new camera
//                       paths, so primary rays travel in warps of their own). A push that finds a queue
//                       full keeps the bounce in the lane, or traces the shadow ray at once: producers
//                       always progress
//   idle                nothing held: work between jobs, leave once everything is done, or back off
//                       with __nanosleep
#pragma once

#include "kernels/gpu/persistent_claims.cuh"

namespace pkrt {

namespace {

// Traversal out of line: the callee gets the whole register budget for its loop instead of sharing it
// with the scheduler's state (which, inlined, spilled inside the traversal loop), and the two shadow
// call sites share one copy of the code. A scene with cut-outs calls the loops that test them (with the
// test's two pointers), from the full build only; every other scene calls the loops without the test.
template <BvhViewLayout L> __device__ __noinline__ Hit trace_closest(const BvhView bvh, const Ray ray) {
    return closest_hit<L>(bvh, ray);
}
template <BvhViewLayout L> __device__ __noinline__ bool trace_occluded(const BvhView bvh, const Ray ray, float tmax) {
    return any_hit<L>(bvh, ray, tmax);
}
template <BvhViewLayout L>
__device__ __noinline__ Hit trace_closest_cutouts(const BvhView bvh, const CutoutSurfaces c, const Ray ray) {
    return closest_hit<L>(bvh, ray, kInfinity, c);
}
template <BvhViewLayout L>
__device__ __noinline__ bool trace_occluded_cutouts(const BvhView bvh, const CutoutSurfaces c, const Ray ray,
                                                    float tmax) {
    return any_hit<L>(bvh, ray, tmax, c);
}

template <BvhViewLayout L, bool kFull> struct OutOfLineTraversal {
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
__device__ __forceinline__ void trace_shadows(const PersistentParams& p, FramebufferSink& sink, bool have,
                                              const ShadowRecord& s) {
    if (have) resolve_shadow<OutOfLineTraversal<L, kFull>>(sink, p.scene, s.ray);
}

// The lane's path lives in shared memory, not registers: only its ray is needed during traversal, and
// 16 fewer live registers there is what keeps the traversal loop free of spills. Records sit 80 bytes
// apart, not 64: at 64 a warp's 4-byte accesses to one field fell into two banks (16-way conflicts;
// Nsight Compute counted 70% of the kernel's shared wavefronts as excess), at 80 into eight, and 16-byte
// accesses by a quarter warp meet no conflict at all.
struct alignas(16) SharedPath {
    PathRecord rec;
    uint32_t pad[4];
};

template <class Claim, BvhViewLayout L, bool kFull> struct PersistentWarp {
    const PersistentParams& p;
    BlockCounters& bc;
    PathRecord& rec;
    Claim claim;
    FramebufferSink sink;
    const bool monitor = blockIdx.x == 0 && threadIdx.x < 32;  // polls the host's stop flag
    const bool lead = lane_id() == 0;
    // Bounces kept in their lanes and no pooling: nothing ever enters the path queue, so warps do not pay
    // two dependent L2 reads per fetch to find it empty (a latency-bound frame feels every one).
    const bool path_queue_used;
    const unsigned warp = blockIdx.x * (kPersistentThreads / 32) + threadIdx.x / 32;
    bool have = false;  // this lane holds a path (fetched, generated or kept)
    unsigned held = 0;  // the lanes that do
    int backoff = 0;
    // Every sample has been claimed (seen by this warp): claims only grow, so once seen it stays true,
    // and the warp stops paying two atomics per iteration to learn it again.
    bool exhausted = false;
    PhaseClock clk;
    unsigned n_queued = 0, n_ended = 0;  // this iteration's shadow rays queued and paths ended

    __device__ __forceinline__ PersistentWarp(const PersistentParams& params, BlockCounters& b, PathRecord& r,
                                              typename Claim::Block& cb)
        : p(params), bc(b), rec(r), claim(params, cb), sink{params.fb},
          path_queue_used(Claim::kPoolsPaths && params.sort_stragglers) {}

    // Only every kControlInterval iterations: these are dependent L2 round trips on the critical path of
    // every bounce, and a path's latency is what small frames are made of. Returns whether to stop.
    __device__ __forceinline__ bool control(unsigned iter) {
        FrameControl* ctl = p.control;
        int stop = 0;
        if (lead) atomicAdd(&bc.iterations, 1ull);
        if (lead && iter % kControlInterval == 0) {
            if (monitor && p.host_stop && *p.host_stop) atomicExch(&ctl->stop, 1);
            claim.control(monitor);
            stop = load_volatile(&ctl->stop);
            // Only block sweepers (warp 0) sample: a quarter of the L2 traffic, and still ~1000 warps.
            if (p.timeline && threadIdx.x < 32) sample_timeline(claim.counters());
            if (iter % kFlushInterval == 0 && (Claim::kAnyWarpFlushes || threadIdx.x < 32))
                flush_counters(bc, claim.counters());  // resident: a load each
        }
        bool leave = __shfl_sync(kFullMask, stop, 0);
        if (!leave) clk.charge(bc, kPhaseControl);
        return leave;
    }

    // Lead lane of a block's sweeper: a timeline point if one is due, and the live statistics with it.
    __device__ __forceinline__ void sample_timeline(GpuCounters* c) {
        unsigned long long t;
        if (!timeline_due(c, &t)) return;
        FrameControl* ctl = p.control;
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

    // Returns whether it traced a batch (the iteration is over).
    __device__ __forceinline__ bool trace_shadow_batch() {
        held = __ballot_sync(kFullMask, have);
        int shadow_avail = claim.queue_shadows ? __shfl_sync(kFullMask, lead ? queue_available(p.shadows) : 0, 0) : 0;
        if (shadow_avail >= 32 || (held == 0 && shadow_avail > 0)) {
            ShadowRecord s;
            bool got;
            int n = warp_pop(p.shadows, kFullMask, s, &got);
            if (n > 0) {
                trace_shadows<L, kFull>(p, sink, got, s);
                count_shadow_rays(bc.rays, n);
                if (lead) atomicSub(&p.control->in_flight, n);
                backoff = 0;
                clk.charge(bc, kPhaseShadowBatch);
                return true;
            }
        }
        return false;
    }

    // Idle lanes take queued paths, then claim new path numbers and generate their camera paths.
    __device__ __forceinline__ void claim_work() {
        claim.refresh(held, exhausted);
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
                unsigned long long number;
                if (claim.claim(bc, ~held, exhausted, number)) generate_camera_path(number);
                held = __ballot_sync(kFullMask, have);
            }
        }
        clk.charge(bc, kPhaseFetch);
    }

    __device__ __forceinline__ void generate_camera_path(unsigned long long number) {
        PathIndex k = path_index<Claim::kL2>(claim.frame(), number);
        rec.path = generate_path(claim.frame(), k);
        rec.sample = k.sample;
        have = true;
    }

    // Nothing held: finished, or wait for other warps' work. Returns whether the warp leaves.
    __device__ __forceinline__ bool idle() {
        if (claim.idle_work()) {
            clk.charge(bc, kPhaseIdle);
            backoff = 0;
            return false;
        }
        int done = 0;
        if (lead) {
            done = claim.done(bc, exhausted, threadIdx.x < 32);
            if (!done) {
                unsigned ns = 64u << min_i(backoff, p.backoff_max_shift);  // idle polling must not crowd L2
                atomicAdd(&bc.idle, 1ull);
                atomicAdd(&bc.sleeps, 1ull);
                atomicAdd(&bc.sleep_ns, static_cast<unsigned long long>(ns));
                __nanosleep(ns);
            }
        }
        clk.charge(bc, kPhaseIdle);
        if (__shfl_sync(kFullMask, done, 0)) return true;
        ++backoff;
        return false;
    }

    // ---- the Step of advance_path (kernels/path_stages.h) ----
    __device__ __forceinline__ Hit closest(const Ray& ray) {
        return OutOfLineTraversal<L, kFull>::closest(p.scene, ray);
    }
    __device__ __forceinline__ void extended(bool active, const PathState& path) {
        __syncwarp();
        clk.charge(bc, kPhaseTrace);
        count_extension_rays(bc.rays, active, path.depth);
    }
    __device__ __forceinline__ void shade(PathState& path, const Hit& hit, ShadeResult& r) {
        shade_path<kFull>(p.scene, claim.frame(), path, hit, r, sink);
    }
    __device__ __forceinline__ void dropped(bool d) {
        count_dropped(bc.rays, d);
        clk.charge(bc, kPhaseShade);
    }
    // Into the queue (counted in flight), or traced right here if the queue is full.
    __device__ __forceinline__ void shadow(bool want, const ShadowRay& sr, int depth) {
        ShadowRecord s;
        if (want) {
            s.ray = sr;
            s.depth = static_cast<uint32_t>(min_i(depth, kStatsMaxDepth - 1));
        }
        bool queued = claim.queue_shadows ? warp_push(p.shadows, want, s) : !want;
        bool inline_shadow = want && !queued;
        unsigned n_inline = popc_ballot(inline_shadow);
        if (n_inline) {
            trace_shadows<L, kFull>(p, sink, inline_shadow, s);
            count_shadow_rays(bc.rays, n_inline);
            if (lead) add_count(&bc.inlined, n_inline);
        }
        n_queued = popc_ballot(want && queued);
        clk.charge(bc, kPhaseShadowOut);
    }
    __device__ __forceinline__ void finish(bool ended, const PathState& path) {
        n_ended = finish_samples(sink, bc.rays, ended, path.pixel);
    }

    // The path after its step: finished (counted by finish), continued in the lane, or pooled.
    __device__ __forceinline__ void path_out(bool cont) {
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
            if (delta) atomicAdd(&p.control->in_flight, delta);
        }
        clk.charge(bc, kPhasePathOut);
    }
};

}  // namespace

}  // namespace pkrt
