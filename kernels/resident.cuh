// The resident kernel's parts beyond the persistent kernel it is built from (kernels/persistent.cu):
// jobs relayed from the host's mapped ring, path numbers claimed per job, and a job's completion
// published to mapped memory once every sample and shadow ray is done and every block has flushed its
// counters. Jobs run one after another; a claim carries its job's number, so a claim that races with
// the next job's start can never take or lose one of its paths.
#pragma once

#include "gpu_common.cuh"
#include "gpu_launch.h"

namespace pkrt {

__device__ __forceinline__ uint32_t job_seq(unsigned long long packed) { return static_cast<uint32_t>(packed >> kJobSeqShift); }

// One lane (the monitor): relays the next job, or a cancel, from host memory into device memory.
__device__ inline void resident_monitor(const PersistentParams& p) {
    ResidentControl* rc = p.resident;
    uint32_t head = p.ring->head;
    uint32_t completed = load_volatile(&rc->completed);
    if (p.ring->cancel == rc->relayed && completed != rc->relayed) {
        // No more claims for this job: it completes once what is in flight drains.
        store_volatile(&rc->job_end, static_cast<unsigned long long>(rc->relayed) << kJobSeqShift);
    }
    if (head == rc->relayed || completed != rc->relayed) return;
    uint32_t seq = rc->relayed + 1;  // jobs are relayed in order, one at a time
    const ResidentJob& job = p.ring->jobs[seq % kResidentRingSlots];
    if (job.command == kResidentQuit) {
        atomicExch(&p.control->stop, 1);
        rc->relayed = seq;
        return;
    }
    *p.job_frame = job.frame;
    GpuCounters* c = p.counters;
    c->timeline_count = 0;
    c->timeline_t0 = 0;
    c->timeline_last_bucket = 0;
    c->timeline_interval_ns = job.timeline_interval_ns;
    unsigned long long paths = static_cast<unsigned long long>(job.frame.pixels()) * job.frame.samples;
    rc->flushed = 0;
    rc->relayed = seq;
    __threadfence();
    store_volatile(&rc->job_end, (static_cast<unsigned long long>(seq) << kJobSeqShift) | paths);
    __threadfence();
    atomicExch(&rc->next, static_cast<unsigned long long>(seq) << kJobSeqShift);
    p.status->start_ns = global_timer_ns();
    p.status->started = seq;
}

// Lead lane: claims up to k paths of the running job; returns how many, their first path number and
// the job they belong to.
__device__ __forceinline__ int resident_claim(const PersistentParams& p, int k, unsigned long long* first, uint32_t* seq) {
    ResidentControl* rc = p.resident;
    unsigned long long claim = atomicAdd(&rc->next, static_cast<unsigned long long>(k));
    __threadfence();  // the job_end read below sees the job this claim belongs to
    unsigned long long end = load_volatile(&rc->job_end);
    *seq = job_seq(claim);
    *first = claim & kJobIndexMask;
    if (job_seq(end) != *seq) return 0;  // a claim from before the job started
    unsigned long long last = end & kJobIndexMask;
    return *first >= last ? 0 : static_cast<int>(last - *first < static_cast<unsigned long long>(k) ? last - *first : k);
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
__device__ __forceinline__ uint32_t resident_job(const PersistentParams& p) { return job_seq(load_volatile(&p.resident->job_end)); }

// A block's sweeper, once the running job has drained (all claimed, nothing in flight): this block's
// counters go to the global ones, and the last block to do so publishes the job's completion.
template <class Flush>
__device__ inline void resident_drained(const PersistentParams& p, uint32_t seq, uint32_t* flushed_seq, Flush flush) {
    if (*flushed_seq == seq || load_volatile(&p.resident->relayed) != seq || load_volatile(&p.resident->completed) == seq) return;
    *flushed_seq = seq;
    flush();
    __threadfence();
    if (atomicAdd(&p.resident->flushed, 1u) + 1 == gridDim.x) {
        __threadfence();
        p.status->end_ns = global_timer_ns();
        p.resident->completed = seq;
        __threadfence_system();
        p.status->completed = seq;
    }
}

}  // namespace pkrt
