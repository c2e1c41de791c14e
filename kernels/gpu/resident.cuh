// The resident kernel's parts beyond the persistent kernel it is built from (kernels/gpu/persistent.cu):
// jobs relayed from the host's mapped ring, path numbers claimed per job, and a job's completion
// published to mapped memory once every sample and shadow ray is done, every block has flushed its
// counters and, if the job asks, its image is packed for display. Jobs run one after another; a claim
// carries its job's number, so a claim that races with the next job's start can never take or lose
// one of its paths. A job that starts a new image clears the framebuffer first, on the GPU, so the
// host queues it behind running jobs without waiting for them; a cancelled job's late paths land
// before that clear and are dropped with it.
#pragma once

#include <cstddef>

#include "kernels/gpu/adaptive_scan.cuh"
#include "kernels/gpu/gpu_launch.h"

namespace pkrt {

__device__ __forceinline__ uint32_t job_seq(unsigned long long packed) {
    return static_cast<uint32_t>(packed >> kJobSeqShift);
}

// Each job counts into counters of its own (one set per ring slot, cleared as the job is relayed): a
// job's counts are complete when it completes, and the next job's, which starts at once, never land in
// them before the host has read them.
__device__ __forceinline__ GpuCounters* resident_job_counters(const PersistentParams& p, uint32_t seq) {
    return p.counters + seq % kResidentRingSlots;
}

// One lane: opens job `seq`'s paths to claims (the two stores every claimer looks at, in this order).
__device__ inline void resident_open_claims(ResidentControl* rc, uint32_t seq) {
    __threadfence();
    store_volatile(&rc->job_end,
                   (static_cast<unsigned long long>(seq) << kJobSeqShift) | load_volatile(&rc->job_paths));
    __threadfence();
    atomicExch(&rc->next, static_cast<unsigned long long>(seq) << kJobSeqShift);
}

// One lane: job `seq` is done; its result goes to the host.
__device__ inline void resident_complete(const PersistentParams& p, uint32_t seq, bool cancelled) {
    ResidentJobResult& r = p.status->results[seq % kResidentRingSlots];
    r.end_ns = global_timer_ns();
    r.cancelled = cancelled ? 1u : 0u;
    r.seq = seq;
    p.resident->completed = seq;
    __threadfence_system();
    p.status->completed = seq;
}

// One lane: starts a sweep of the framebuffer's first `pixels` pixels. Sweeps run one at a time (a
// job's clear before its paths, its pack after them), so only one lane ever starts one.
__device__ inline void resident_start_sweep(ResidentControl* rc, uint32_t kind, uint32_t pixels) {
    const unsigned long long n = load_volatile(&rc->sweeps) + 1;  // 64 bits: never 0, never one seen before
    rc->sweeps = n;
    rc->sweep_kind = kind;
    rc->sweep_pixels = pixels;
    rc->sweep_done = 0;
    __threadfence();
    store_volatile(&rc->sweep, n);
}

// A warp's share of a sweep: of its units (32 pixels, or one adaptive tile: a warp's work, 64 pixels and
// a halo of 100), warp w of the grid's W makes units w, w + W, w + 2W, ... No warp claims: every warp of
// the grid comes by between jobs, where sweeps run (a job already ends only once every block has
// flushed, so every block is resident), and claims of 512 pixels serialised on their counter, about
// 75 us a sweep, and each warp made its pixels one after another (BENCHMARKS.md, session 25). Warps are
// numbered block by block within each warp slot (slot 0 of every block, then slot 1, ...), so a sweep of
// fewer units than warps still spreads over every SM rather than over the first blocks' warps.
struct SweepShare {
    uint32_t kind, pixels;  // pixels: adaptive tiles for those sweeps
    uint32_t warp, warps;
    __device__ __forceinline__ SweepShare(uint32_t k, uint32_t n)
        : kind(k), pixels(n), warp((threadIdx.x / 32) * gridDim.x + blockIdx.x), warps(gridDim.x * (blockDim.x / 32)) {}
    __device__ __forceinline__ uint32_t unit() const { return kind >= kSweepScan ? 1u : 32u; }
    // This lane's first pixel and the step to its next (pixel sweeps).
    __device__ __forceinline__ uint32_t first_pixel() const { return warp * 32u + lane_id(); }
    __device__ __forceinline__ uint32_t pixel_stride() const { return warps * 32u; }
    // What the warp's units hold, all lanes together: its count towards the sweep's end.
    __device__ __forceinline__ uint32_t items() const {
        const uint32_t units = (pixels + unit() - 1) / unit();
        if (warp >= units) return 0;
        const uint32_t mine = (units - 1 - warp) / warps + 1, last = warp + (mine - 1) * warps;
        return mine * unit() - (last == units - 1 ? units * unit() - pixels : 0u);
    }
};

// One lane (the monitor): relays the next job, or a cancel, from host memory into device memory.
__device__ inline void resident_monitor(const PersistentParams& p) {
    ResidentControl* rc = p.resident;
    uint32_t head = p.ring->head;
    uint32_t completed = load_volatile(&rc->completed);
    if (p.ring->cancel >= rc->relayed && completed != rc->relayed &&
        job_seq(load_volatile(&rc->job_end)) == rc->relayed) {
        // No more claims for this job: it completes once what is in flight drains. (While its clear
        // runs, its claims are not open yet; the cancel lands once they are.) Claims of a warp whose
        // frame is this job's compare with the job's size, not job_end: `next` moves to the end too.
        unsigned long long seq = static_cast<unsigned long long>(rc->relayed) << kJobSeqShift;
        atomicMax(&rc->next, seq | rc->job_paths);
        store_volatile(&rc->job_end, seq);
    }
    if (completed != rc->relayed || load_volatile(&rc->side_running)) return;
    uint32_t side = p.ring->side;
    if (side != rc->side_relayed) {  // sweeps only: the claims and counters stay the completed job's
        __threadfence();             // the job as the host wrote it before its number
        rc->side_relayed = side;
        rc->side_running = 1;
        rc->denoise = p.ring->side_job;
        rc->denoise_step = 0;
        p.status->side_start_ns = global_timer_ns();
        resident_start_sweep(rc, kSweepDenoise,
                             static_cast<uint32_t>(rc->denoise.width) * static_cast<uint32_t>(rc->denoise.height));
        return;
    }
    if (head == rc->relayed) return;
    uint32_t seq = rc->relayed + 1;  // jobs are relayed in order, one at a time
    const ResidentJob& job = p.ring->jobs[seq % kResidentRingSlots];
    if (job.command == kResidentQuit) {
        atomicExch(&p.control->stop, 1);
        rc->relayed = seq;
        return;
    }
    if (p.ring->cancel >= seq) {
        // Cancelled while it waited (a camera move cancels the frames queued behind the running one):
        // it completes without a claim. Opened, its claims would run until the monitor's next look
        // landed the cancel, by then most of a large frame, and the new view would wait for it.
        rc->relayed = seq;
        ResidentJobResult& r = p.status->results[seq % kResidentRingSlots];
        r.start_ns = global_timer_ns();
        p.status->started = seq;
        resident_complete(p, seq, true);
        return;
    }
    *p.job_frame = job.frame;
    unsigned long long paths = job.frame.paths();
    AdaptiveDevice* adaptive = (job.flags & kJobAdaptive) ? job.adaptive : nullptr;
    if (adaptive) {  // a round: as many paths as the last round's scan planned
        __threadfence();
        paths = load_l2(&adaptive->plan.first_path[kAdaptiveClasses]);
        p.job_frame->plan_paths = paths;
    }
    // The job that last used this slot has ended and been read (the host queues at most
    // kResidentRingSlots - 1 jobs). Cleared before the claims open (their fence orders the stores).
    GpuCounters* c = resident_job_counters(p, seq);
    unsigned long long* words = reinterpret_cast<unsigned long long*>(c);
    for (unsigned i = 0; i < offsetof(GpuCounters, timeline_t0) / sizeof(unsigned long long); ++i) words[i] = 0;
    c->timeline_count = 0;
    c->timeline_t0 = 0;
    c->timeline_last_bucket = 0;
    c->timeline_interval_ns = job.timeline_interval_ns;
    rc->job_paths = paths;
    rc->job_flags = job.flags;
    rc->job_snapshot = job.snapshot;
    rc->job_adaptive = adaptive;
    rc->job_pixels = job.frame.pixels();
    rc->job_block = job.block > 1 ? job.block : 1u;
    rc->job_image_width = job.image_width;
    rc->job_image_pixels = static_cast<uint32_t>(job.image_width) * static_cast<uint32_t>(job.image_height);
    rc->flushed = 0;
    rc->relayed = seq;
    ResidentJobResult& r = p.status->results[seq % kResidentRingSlots];
    r.start_ns = global_timer_ns();
    p.status->started = seq;
    // A round's framebuffer has two halves (kernels/adaptive.h).
    if (job.flags & kJobClear)
        resident_start_sweep(rc, kSweepClear, job.frame.pixels() * (adaptive ? 2u : 1u));  // it opens the claims
    else resident_open_claims(rc, seq);
}

// One lane: what follows a job's drain or its adaptive scan: the pack of its image if it asks for one,
// else its completion.
__device__ inline void resident_pack_or_complete(const PersistentParams& p, uint32_t seq, bool cancelled) {
    ResidentControl* rc = p.resident;
    if ((load_volatile(&rc->job_flags) & kJobSnapshot) && !cancelled)
        resident_start_sweep(rc, kSweepPack, load_volatile(&rc->job_image_pixels));
    else resident_complete(p, seq, cancelled);
}

// The whole warp: its share of a clear or a pack sweep (SweepShare).
__device__ inline void resident_sweep_pixels(const PersistentParams& p, uint32_t kind, const SweepShare& share,
                                             float* snapshot) {
    ResidentControl* rc = p.resident;
    snapshot = reinterpret_cast<float*>(__shfl_sync(kFullMask, reinterpret_cast<unsigned long long>(snapshot), 0));
    // A pack reads a preview's pixel for each of its block's (its frame rendered ceil(width / block)
    // pixels a row).
    uint32_t block = kind == kSweepPack ? load_volatile(&rc->job_block) : 1u;
    uint32_t width = block > 1 ? static_cast<uint32_t>(load_volatile(&rc->job_image_width)) : 1u;
    float* features = kind == kSweepPack && (load_volatile(&rc->job_flags) & kJobSnapshotFeatures)
                          ? snapshot + 4 * static_cast<size_t>(load_volatile(&rc->job_image_pixels))
                          : nullptr;
    for (uint32_t i = share.first_pixel(); i < share.pixels; i += share.pixel_stride()) {
        uint32_t src = block > 1 ? (i / width / block) * ((width + block - 1) / block) + (i % width) / block : i;
        float* rad = p.fb.radiance + 3 * static_cast<size_t>(src);
        if (kind == kSweepClear) {
            rad[0] = rad[1] = rad[2] = 0.0f;
            p.fb.samples[i] = 0;
            if (p.fb.features && i < p.fb.pixels) {
                float4* f = reinterpret_cast<float4*>(p.fb.features + kFeatureFloats * static_cast<size_t>(i));
                f[0] = f[1] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            }
        } else {
            reinterpret_cast<float4*>(snapshot)[i] = make_float4(__ldcg(rad), __ldcg(rad + 1), __ldcg(rad + 2),
                                                                 static_cast<float>(__ldcg(p.fb.samples + src)));
            if (features) {
                const float4* from =
                    reinterpret_cast<const float4*>(p.fb.features + kFeatureFloats * static_cast<size_t>(src));
                float4* to = reinterpret_cast<float4*>(features + kFeatureFloats * static_cast<size_t>(i));
                for (int k = 0; k < kFeatureFloats / 4; ++k) to[k] = __ldcg(from + k);
            }
        }
    }
}

// The whole warp: pixels [first, first + count) of a denoise job's step. Not inlined, so that the
// filter's code stays out of the render loop's register allocation (inlined, resident frames of Crytek
// Sponza took 2-3% longer: BENCHMARKS.md, session 21); and one function for every kind of step, the kind
// chosen per pixel: with a function per kind, resident frames of the Cornell box took 5-6% longer
// (BENCHMARKS.md, session 23). Only this kernel's copy: `static`.
static __device__ __noinline__ void resident_denoise_step(const DenoiseJob& job, int step, uint32_t first,
                                                          uint32_t stride, uint32_t pixels) {
    const uint32_t width = static_cast<uint32_t>(job.width);
    for (uint32_t i = first; i < pixels; i += stride)
        if (denoise_step(job.buffers, job.width, job.height, job.params, step, static_cast<int>(i % width),
                         static_cast<int>(i / width)) &&
            job.buffers.view->temporal.reused)
            atomicAdd(job.buffers.view->temporal.reused, 1u);
}

// The whole warp: its share of the side job's running denoise step. The job and the step are read past
// L1, which may hold an earlier job's.
__device__ inline void resident_denoise_pixels(const PersistentParams& p, const SweepShare& share) {
    DenoiseJob job;
    const unsigned* src = reinterpret_cast<const unsigned*>(&p.resident->denoise);
    unsigned* dst = reinterpret_cast<unsigned*>(&job);
    for (unsigned w = 0; w < sizeof(DenoiseJob) / 4; ++w) dst[w] = __ldcg(src + w);
    resident_denoise_step(job, static_cast<int>(__ldcg(&p.resident->denoise_step)), share.first_pixel(),
                          share.pixel_stride(), share.pixels);
}

// One lane, as a denoise step's sweep ends: the next step's, or the side job's completion.
__device__ inline void resident_denoise_next(const PersistentParams& p, uint32_t pixels) {
    ResidentControl* rc = p.resident;
    const int steps = denoise_step_count(load_volatile(&rc->denoise.params.iterations),
                                         load_volatile(&rc->denoise.buffers.temporal) != 0);
    uint32_t next = load_volatile(&rc->denoise_step) + 1;
    if (static_cast<int>(next) < steps) {
        rc->denoise_step = next;  // published by the sweep's start (its fence)
        resident_start_sweep(rc, kSweepDenoise, pixels);
    } else {
        p.status->side_end_ns = global_timer_ns();
        rc->side_running = 0;
        __threadfence_system();
        p.status->side_completed = load_volatile(&rc->side_relayed);
    }
}

// The whole warp, when it has nothing else to do: its share of the running sweep, once. Returns whether
// it made one. The lane that finishes the sweep's last share carries on with what follows it: the job's
// claims after a clear, the fill after an adaptive scan, the pack or the job's completion after a fill,
// the job's completion after a pack, the next step of the side job after one of its steps.
__device__ inline bool resident_sweep(const PersistentParams& p, unsigned long long& swept) {
    ResidentControl* rc = p.resident;
    unsigned long long n = 0;
    uint32_t kind = 0, pixels = 0;
    float* snapshot = nullptr;
    if (lane_id() == 0) {
        n = load_volatile(&rc->sweep);
        if (n != 0 && n != swept) {
            __threadfence();  // the sweep's parameters, and what the steps before it wrote
            kind = load_volatile(&rc->sweep_kind);
            pixels = load_volatile(&rc->sweep_pixels);
            snapshot =
                reinterpret_cast<float*>(load_volatile(reinterpret_cast<const unsigned long long*>(&rc->job_snapshot)));
            // Read between two looks at the sweep's number. A warp with no share of a sweep (a small
            // image) may look while it ends and the next one starts: it looks again next time.
            __threadfence();
            if (load_volatile(&rc->sweep) != n) n = 0;
        } else n = 0;
    }
    n = __shfl_sync(kFullMask, n, 0);
    if (n == 0) return false;
    swept = n;
    const SweepShare share(__shfl_sync(kFullMask, kind, 0), __shfl_sync(kFullMask, pixels, 0));
    const uint32_t mine = share.items();
    if (mine == 0) return false;
    kind = share.kind;
    if (kind >= kSweepScan) {
        AdaptiveDevice* a = reinterpret_cast<AdaptiveDevice*>(
            load_volatile(reinterpret_cast<const unsigned long long*>(&rc->job_adaptive)));
        a = reinterpret_cast<AdaptiveDevice*>(__shfl_sync(kFullMask, reinterpret_cast<unsigned long long>(a), 0));
        for (uint32_t t = share.warp; t < share.pixels; t += share.warps) {
            if (kind == kSweepScan) adaptive_scan_tile(a, t);
            else adaptive_fill_tile(a, t);
        }
    } else if (kind == kSweepDenoise) {
        resident_denoise_pixels(p, share);
    } else {
        resident_sweep_pixels(p, kind, share, snapshot);
    }
    __syncwarp();
    if (lane_id() == 0) {
        __threadfence();
        if (atomicAdd(&rc->sweep_done, static_cast<unsigned long long>(mine)) + mine == share.pixels) {
            store_volatile(&rc->sweep, 0ull);
            __threadfence();
            uint32_t seq = load_volatile(&rc->relayed);
            switch (kind) {
                case kSweepClear: resident_open_claims(rc, seq); break;
                case kSweepScan: resident_start_sweep(rc, kSweepFill, share.pixels); break;
                case kSweepFill: resident_pack_or_complete(p, seq, false); break;
                case kSweepDenoise: resident_denoise_next(p, share.pixels); break;
                default: resident_complete(p, seq, false); break;  // a pack
            }
        }
    }
    __syncwarp();
    return true;
}

// atomicAdd with release semantics: what the lane wrote or counted before it is visible to any thread
// that reads the result (or a later one) and then fences.
__device__ __forceinline__ unsigned long long atomic_add_release(unsigned long long* a, unsigned long long v) {
    unsigned long long old;
    asm volatile("atom.release.gpu.global.add.u64 %0, [%1], %2;" : "=l"(old) : "l"(a), "l"(v) : "memory");
    return old;
}

// Lead lane: claims up to k paths of the running job; returns how many, their first path number and
// the job they belong to. The caller has counted the k paths in flight: the claim is a release, so a
// sweeper that sees it also sees that count (resident_all_claimed, then a fence, then in_flight). A
// claim of `job` (the job of the warp's frame copy, `job_paths` paths) needs nothing more; a claim of
// another job reads that job's end. A cancel moves `next` to the end (resident_monitor).
__device__ __forceinline__ int resident_claim(const PersistentParams& p, int k, uint32_t job,
                                              unsigned long long job_paths, unsigned long long* first, uint32_t* seq) {
    ResidentControl* rc = p.resident;
    unsigned long long claim = atomic_add_release(&rc->next, static_cast<unsigned long long>(k));
    *seq = job_seq(claim);
    *first = claim & kJobIndexMask;
    unsigned long long last = job_paths;
    if (*seq != job) {
        __threadfence();  // the job_end read below sees the job this claim belongs to
        unsigned long long end = load_volatile(&rc->job_end);
        if (job_seq(end) != *seq) return 0;  // a claim from before the job started
        last = end & kJobIndexMask;
    }
    return *first >= last ? 0
                          : static_cast<int>(last - *first < static_cast<unsigned long long>(k) ? last - *first : k);
}

// The whole warp: the running job's frame into the warp's copy. Its claim saw the job published, and
// the frame was written before that; loads bypass L1, which may hold the last job's frame.
__device__ __forceinline__ void resident_load_frame(const PersistentParams& p, FrameRecord& frame) {
    __threadfence();
    const unsigned* src = reinterpret_cast<const unsigned*>(p.frame);
    unsigned* dst = reinterpret_cast<unsigned*>(&frame);
    for (unsigned w = lane_id(); w < sizeof(FrameRecord) / 4; w += 32) dst[w] = __ldcg(src + w);
    __syncwarp();
}

// Lead lane: whether job `seq` has no path left to claim: a later job has begun, or the claims reached
// the job's end. Between the monitor's two stores that start a job, `next` still carries the last job's
// number: nothing of this one is claimed yet. (Read as "all claimed", it let a sweeper see an empty
// job, flush its block's counters and count its block as drained before the job had begun; the counts
// its warps made after their last periodic flush then missed the frame: seen on the H200 as a frame
// reporting one path fewer than it rendered, in 4 runs of 100.)
__device__ __forceinline__ bool resident_all_claimed(const PersistentParams& p, uint32_t seq) {
    unsigned long long end = load_volatile(&p.resident->job_end), next = load_volatile(&p.resident->next);
    if (job_seq(end) != seq) return true;
    return job_seq(next) == seq && (next & kJobIndexMask) >= (end & kJobIndexMask);
}

// The running job's number (new jobs reset a warp's "exhausted").
__device__ __forceinline__ uint32_t resident_job(const PersistentParams& p) {
    return job_seq(load_volatile(&p.resident->job_end));
}

// A block's sweeper, once the running job has drained (all claimed, nothing in flight): this block's
// counters go to the global ones, and the last block to do so publishes the job's completion.
template <class Flush>
__device__ inline void resident_drained(const PersistentParams& p, uint32_t seq, uint32_t* flushed_seq, Flush flush) {
    if (*flushed_seq == seq || load_volatile(&p.resident->relayed) != seq ||
        load_volatile(&p.resident->completed) == seq)
        return;
    *flushed_seq = seq;
    flush();
    __threadfence();
    if (atomicAdd(&p.resident->flushed, 1u) + 1 == gridDim.x) {
        __threadfence();
        ResidentControl* rc = p.resident;
        bool cancelled = p.ring->cancel >= seq;
        const AdaptiveDevice* a = reinterpret_cast<const AdaptiveDevice*>(
            load_volatile(reinterpret_cast<const unsigned long long*>(&rc->job_adaptive)));
        if (a && !cancelled) resident_start_sweep(rc, kSweepScan, tiles_of(*a));  // the next round's plan first
        else resident_pack_or_complete(p, seq, cancelled);
    }
}

}  // namespace pkrt
