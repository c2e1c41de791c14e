// Fixed-size records that carry path work through GPU queues and buffers, and the plain structs that
// describe the queues, counters and framebuffer to the kernels. Host code includes this header too (to
// size and clear the buffers), so it has no CUDA types.
#pragma once

#include "path.h"

namespace pkrt {

// Queue records are compact aligned structures (AoS), not structure-of-arrays: a slot is one record,
// so a slot is published by one sequence number after one writer wrote it, and a lane moves its record
// with four (paths) or three (shadow rays) 16-byte vector accesses instead of 14 scalar ones. A warp's
// 32 records are contiguous (2 KB for paths), so every byte of every sector fetched is used.
struct alignas(16) PathRecord {
    PathState path;  // 56 bytes
    uint32_t sample; // sample index, for debugging and statistics
    uint32_t pad;
};
static_assert(sizeof(PathRecord) == 64, "PathRecord is four 16-byte rows");

struct alignas(16) ShadowRecord {
    ShadowRay ray;   // 44 bytes
    uint32_t depth;  // bounce depth of the vertex that cast it
};
static_assert(sizeof(ShadowRecord) == 48, "ShadowRecord is three 16-byte rows");

// Counters of one bounded MPMC ring. Tickets are 64-bit so they never wrap within any frame.
struct QueueCounters {
    unsigned long long head;  // next ticket to dequeue (= total dequeued)
    unsigned long long tail;  // next ticket to enqueue (= total enqueued)
    int reserved;             // slots taken by producers and not yet released by their consumers
    int available;            // records published and not yet claimed by a consumer
    int peak;                 // highest `reserved` seen
    int pad;
};

template <class Record>
struct DeviceQueue {
    QueueCounters* counters;
    unsigned long long* seq;  // per slot: == ticket t when free for t, == t + 1 once t is published
    Record* slots;
    uint32_t capacity;        // power of two
};

constexpr int kStatsMaxDepth = 64;     // rays by depth beyond this are counted in the last bin
constexpr int kStatsMaxSms = 256;
constexpr int kTimelinePoints = 4096;

struct TimelinePoint {
    unsigned int t_ns;     // since the frame's first sample
    int path_queue;        // records in the path queue (or live paths of the wavefront)
    int shadow_queue;      // records in the shadow queue
    int in_flight;         // paths and shadow rays alive anywhere
};

// Device-side counters of one frame. Incremented once per warp (leader lanes), never per ray.
struct GpuCounters {
    unsigned long long extension_rays;
    unsigned long long shadow_rays;
    unsigned long long rays_by_depth[kStatsMaxDepth];
    unsigned long long paths_generated;
    unsigned long long paths_completed;
    unsigned long long nonfinite;
    unsigned long long idle_iterations;    // warp iterations that found no work
    unsigned long long backoff_sleeps;     // __nanosleep calls
    unsigned long long backoff_ns;         // nanoseconds asked of __nanosleep
    unsigned long long kept_paths;         // continuations kept in a lane because the queue was full
    unsigned long long inline_shadows;     // shadow rays traced at once because the queue was full
    unsigned long long warp_iterations;
    unsigned long long rays_per_sm[kStatsMaxSms];
    // Timeline: a point every `timeline_interval_ns`, claimed by whichever warp crosses the boundary.
    unsigned long long timeline_t0;
    unsigned long long timeline_last_bucket;
    unsigned int timeline_interval_ns;
    int timeline_count;
    TimelinePoint timeline[kTimelinePoints];
};

// Live values the host may read while a kernel runs (host-mapped memory, written by the timeline
// sampler, at most once per timeline interval).
struct LiveStats {
    volatile unsigned long long rays;
    volatile unsigned long long samples_done;
    volatile int path_queue;
    volatile int shadow_queue;
    volatile int in_flight;
    volatile int running;
};

struct DeviceFramebuffer {
    float* radiance;     // 3 floats per pixel: sums of radiance
    uint32_t* samples;   // completed samples per pixel
};

// Where the persistent kernel takes its work from and how it ends.
struct FrameControl {
    unsigned long long next_sample;  // next (pixel, sample) index to generate
    unsigned long long end_sample;   // pixels * samples of this frame
    int in_flight;                   // paths + shadow rays alive
    int stop;                        // device copy of the host's stop flag
};

}  // namespace pkrt
