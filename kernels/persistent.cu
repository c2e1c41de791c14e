// The persistent scheduler: one launch per frame, a grid no larger than what the GPU keeps resident,
// and warps that loop until the frame's work is done:
//
//   1. shadow rays first when a full warp's worth is queued (they are short, and retiring them frees
//      queue space);
//   2. otherwise make sure enough lanes hold a path: lanes without one pop from the path queue when
//      fewer than `fetch_threshold` lanes are busy (Aila & Laine's dynamic fetch), and when the queue
//      runs low the warp generates camera paths from the global (pixel, sample) counter, so queue
//      memory is bounded whatever the resolution and sample count;
//   3. trace and shade; push the shadow ray and the bounce (a lane whose push finds the queue full
//      keeps its bounce, or traces its shadow ray at once: producers always progress);
//   4. a warp with nothing to do backs off with __nanosleep; it leaves once every sample has been
//      generated and nothing is in flight, or when the host raises the stop flag.
#include "gpu_common.cuh"
#include "gpu_launch.h"

namespace pkrt {

namespace {

__device__ __forceinline__ void count_ull(unsigned long long* dst, bool pred_lane) {
    unsigned m = __ballot_sync(kFullMask, pred_lane);
    if (lane_id() == 0 && m) atomicAdd(dst, static_cast<unsigned long long>(__popc(m)));
}

__device__ void trace_shadow_batch(const PersistentParams& p, bool have, const ShadowRecord& s) {
    bool lit = have && !occluded(p.scene.bvh, Ray{s.ray.origin, s.ray.dir}, s.ray.tmax);
    if (lit) add_radiance(p.fb, s.ray.pixel, s.ray.contribution);
    count_shadow_rays(p.counters, __popc(__ballot_sync(kFullMask, have)));
}

}  // namespace

__global__ void __launch_bounds__(kPersistentThreads) persistent_kernel(PersistentParams p) {
    GpuCounters* c = p.counters;
    FrameControl* ctl = p.control;
    const bool monitor = blockIdx.x == 0 && threadIdx.x < 32;  // polls the host's stop flag
    PathRecord rec;
    bool have = false;  // this lane holds a path (fetched, generated or kept)
    int backoff = 0;

    for (;;) {
        // ---- stop flag and timeline ----
        int stop = 0;
        if (lane_id() == 0) {
            if (monitor && p.host_stop && *p.host_stop) atomicExch(&ctl->stop, 1);
            stop = load_volatile(&ctl->stop);
            sample_timeline(c, p.live, queue_occupancy(p.paths), queue_occupancy(p.shadows), load_volatile(&ctl->in_flight));
            atomicAdd(&c->warp_iterations, 1ull);
        }
        if (__shfl_sync(kFullMask, stop, 0)) break;

        // ---- 1. a full batch of shadow rays ----
        unsigned held = __ballot_sync(kFullMask, have);
        int shadow_avail = __shfl_sync(kFullMask, lane_id() == 0 ? queue_available(p.shadows) : 0, 0);
        if (shadow_avail >= 32 || (held == 0 && shadow_avail > 0)) {
            ShadowRecord s;
            bool got;
            int n = warp_pop(p.shadows, kFullMask, s, &got);
            if (n > 0) {
                trace_shadow_batch(p, got, s);
                warp_add_int(&ctl->in_flight, got ? -1 : 0);
                backoff = 0;
                continue;
            }
        }

        // ---- 2. dynamic fetch: refill idle lanes from the queue, then from new samples ----
        if (__popc(held) < p.fetch_threshold) {
            PathRecord r;
            bool got;
            warp_pop(p.paths, ~held, r, &got);
            if (got) {
                rec = r;
                have = true;
            }
            held = __ballot_sync(kFullMask, have);
            int path_avail = __shfl_sync(kFullMask, lane_id() == 0 ? queue_available(p.paths) : 0, 0);
            if (__popc(held) < p.fetch_threshold && path_avail < p.low_water) {
                unsigned need = ~held;
                int k = __popc(need);
                unsigned long long base = 0;
                int n = 0;
                if (lane_id() == 0) {
                    // Count the new paths in flight before claiming them, so that no warp can see
                    // "all samples claimed and nothing in flight" while these are being created.
                    atomicAdd(&ctl->in_flight, k);
                    base = atomicAdd(&ctl->next_sample, static_cast<unsigned long long>(k));
                    unsigned long long end = ctl->end_sample;
                    n = base >= end ? 0 : static_cast<int>(end - base < static_cast<unsigned long long>(k) ? end - base : k);
                    if (n < k) atomicSub(&ctl->in_flight, k - n);
                    if (n > 0) atomicAdd(&c->paths_generated, static_cast<unsigned long long>(n));
                }
                n = __shfl_sync(kFullMask, n, 0);
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

        // ---- nothing to do: finished, or wait for other warps' work ----
        if (held == 0) {
            int done = 0;
            if (lane_id() == 0) {
                bool all_claimed = load_volatile(&ctl->next_sample) >= ctl->end_sample;
                done = all_claimed && load_volatile(&ctl->in_flight) == 0 && queue_available(p.shadows) == 0;
                if (!done) {
                    unsigned ns = 64u << (backoff < 6 ? backoff : 6);
                    atomicAdd(&c->idle_iterations, 1ull);
                    atomicAdd(&c->backoff_sleeps, 1ull);
                    atomicAdd(&c->backoff_ns, static_cast<unsigned long long>(ns));
                    __nanosleep(ns);
                }
            }
            if (__shfl_sync(kFullMask, done, 0)) break;
            ++backoff;
            continue;
        }
        backoff = 0;

        // ---- 3. trace and shade ----
        Hit hit = no_hit();
        if (have) hit = intersect_closest(p.scene.bvh, Ray{rec.path.origin, rec.path.dir});
        int depth = have ? rec.path.depth : 0;
        count_extension_rays(c, have, depth);
        ShadeResult r;
        r.has_shadow = false;
        r.continues = false;
        if (have) {
            uint32_t pixel = rec.path.pixel;
            shade_path(p.scene, p.frame, rec.path, hit, r);
            add_radiance(p.fb, pixel, r.radiance);
        }

        // Shadow ray: into the queue, or traced right here if the queue is full.
        ShadowRecord s;
        bool want_shadow = have && r.has_shadow;
        if (want_shadow) {
            s.ray = r.shadow;
            s.depth = static_cast<uint32_t>(depth);
        }
        warp_add_int(&ctl->in_flight, want_shadow ? 1 : 0);  // before the path's own count can drop
        bool queued = warp_push(p.shadows, want_shadow, s);
        bool inline_shadow = want_shadow && !queued;
        if (__any_sync(kFullMask, inline_shadow)) {
            trace_shadow_batch(p, inline_shadow, s);
            count_ull(&c->inline_shadows, inline_shadow);
            warp_add_int(&ctl->in_flight, inline_shadow ? -1 : 0);
        }

        // The path: finished (count its sample) or continued (queued, or kept if the queue is full).
        bool ended = have && !r.continues;
        if (ended) atomicAdd(&p.fb.samples[rec.path.pixel], 1u);
        count_ull(&c->paths_completed, ended);
        bool cont = have && r.continues;
        bool keep = cont;
        if (p.push_continuations) {
            bool pushed = warp_push(p.paths, cont, rec);
            keep = cont && !pushed;
            count_ull(&c->kept_paths, keep);
        }
        have = keep;
        warp_add_int(&ctl->in_flight, ended ? -1 : 0);
    }
}

int persistent_blocks_per_sm() {
    int blocks = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, persistent_kernel, kPersistentThreads, 0) != cudaSuccess)
        return 0;
    return blocks;
}

cudaError_t launch_persistent(const PersistentParams& p, int blocks, cudaStream_t stream) {
    persistent_kernel<<<blocks, kPersistentThreads, 0, stream>>>(p);
    return cudaGetLastError();
}

namespace {
template <class Record>
__global__ void queue_init_kernel(DeviceQueue<Record> q) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < q.capacity) q.seq[i] = i;
    if (i == 0) *q.counters = QueueCounters{0, 0, 0, 0, 0, 0};
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
