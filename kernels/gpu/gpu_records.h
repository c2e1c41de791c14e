// Fixed-size records that carry path work through GPU queues and buffers, and the plain structs that
// describe the queues, counters and framebuffer to the kernels. Host code includes this header too (to
// size and clear the buffers), so it has no CUDA types.
#pragma once

#include "kernels/adaptive.h"
#include "kernels/denoise_steps.h"
#include "kernels/frame.h"
#include "kernels/path.h"

namespace pkrt {

// Queue records are compact aligned structures (AoS), not structure-of-arrays: a slot is one record,
// so a slot is published by one sequence number after one writer wrote it, and a lane moves its record
// with four (paths) or three (shadow rays) 16-byte vector accesses instead of 14 scalar ones. A warp's
// 32 records are contiguous (2 KB for paths), so every byte of every sector fetched is used.
struct alignas(16) PathRecord {
    PathState path;   // 56 bytes
    uint32_t sample;  // sample index, for debugging and statistics
    uint32_t pad;
};
static_assert(sizeof(PathRecord) == 64, "PathRecord is four 16-byte rows");

struct alignas(16) ShadowRecord {
    ShadowRay ray;   // 44 bytes
    uint32_t depth;  // bounce depth of the vertex that cast it
};
static_assert(sizeof(ShadowRecord) == 48, "ShadowRecord is three 16-byte rows");

// Counters of one bounded MPMC ring. Tickets are 64-bit so they never wrap within any frame. Each hot
// counter has a 128-byte line of its own: thousands of warps update them, and counters sharing a line
// would serialise each other's atomics in L2.
struct QueueCounters {
    alignas(128) unsigned long long tail;  // next ticket to enqueue (= total enqueued)
    int peak;                              // highest `reserved` seen
    alignas(128) unsigned long long head;  // next ticket to dequeue (= total dequeued)
    alignas(128) int reserved;             // slots taken by producers and not yet released by consumers
    alignas(128) int available;            // records published and not yet claimed by a consumer
};

template <class Record> struct DeviceQueue {
    QueueCounters* counters;
    unsigned long long* seq;  // per slot: == ticket t when free for t, == t + 1 once t is published
    Record* slots;
    uint32_t capacity;  // power of two
};

constexpr int kStatsMaxDepth = 64;  // rays by depth beyond this are counted in the last bin
constexpr int kStatsMaxSms = 256;
constexpr int kTimelinePoints = 4096;

// Where persistent warps spend their time (SM clock cycles summed over warps).
enum PersistentPhase : int {
    kPhaseControl = 0,  // stop flag, timeline, counters
    kPhaseShadowBatch,  // popping and tracing a batch of queued shadow rays
    kPhaseFetch,        // popping paths and generating camera paths
    kPhaseIdle,         // nothing to do: backoff sleeps
    kPhaseTrace,        // closest-hit traversal
    kPhaseShade,        // shading (BSDF, light sampling)
    kPhaseShadowOut,    // pushing shadow rays, or tracing them at once when the queue is full
    kPhasePathOut,      // pushing or keeping continuations, counting finished samples
    kPhaseCount
};

struct TimelinePoint {
    unsigned int t_ns;  // since the frame's first sample
    int path_queue;     // records in the path queue (or live paths of the wavefront)
    int shadow_queue;   // records in the shadow queue
    int in_flight;      // paths and shadow rays alive anywhere
};

// What every scheduler counts about rays and samples, in one layout: the frame's global counters hold
// one, and the persistent kernel's blocks keep a shared-memory copy that they flush into it.
struct RayCounts {
    unsigned long long extension_rays;
    unsigned long long shadow_rays;
    unsigned long long paths_generated;
    unsigned long long paths_completed;
    unsigned long long nonfinite;
    unsigned long long rays_by_depth[kStatsMaxDepth];
};

// Device-side counters of one frame. Incremented once per warp (leader lanes), never per ray.
struct GpuCounters {
    RayCounts rays;
    unsigned long long idle_iterations;  // warp iterations that found no work
    unsigned long long backoff_sleeps;   // __nanosleep calls
    unsigned long long backoff_ns;       // nanoseconds asked of __nanosleep
    unsigned long long kept_paths;       // continuations kept in a lane because the queue was full
    unsigned long long inline_shadows;   // shadow rays traced at once because the queue was full
    unsigned long long warp_iterations;
    unsigned long long rays_per_sm[kStatsMaxSms];
    unsigned long long phase_cycles[kPhaseCount];
    // Timeline: a point every `timeline_interval_ns`, claimed by whichever warp crosses the boundary.
    // Read by every warp every iteration, written once per point: a line of its own.
    alignas(128) unsigned long long timeline_t0;
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
    float* radiance;    // 3 floats per pixel: sums of radiance
    uint32_t* samples;  // completed samples per pixel
    // Null, or the feature sums (kernels/features.h), kFeatureFloats per pixel of the image: an adaptive
    // render's second half (pixels + p) writes its features to pixel p.
    float* features;
    uint32_t pixels;
};

// A GPU adaptive render's state in device memory (kernels/gpu/adaptive_scan.cuh): the plan of the round
// being rendered; the scan's counters for the next, which the finalize step turns into its plan and a
// log entry, and then clears; and the buffers the scan reads and writes. The framebuffer has two
// halves during the rounds: even-numbered samples at pixel p, odd ones at p + width * height.
struct AdaptiveDevice {
    AdaptivePlan plan;
    AdaptiveRule rule;
    int32_t width, height;
    WorkPixel* work;       // width * height entries
    int* tile_class;       // per tile: its class in the next round, -1 for none
    DeviceFramebuffer fb;  // both halves
    unsigned round;        // rounds scanned so far
    unsigned converged_pixels, tiles;
    unsigned class_pixels[kAdaptiveClasses];
    unsigned class_fill[kAdaptiveClasses];
    unsigned tiles_filled;  // the fill's tiles done: the last one's warp finalizes
    AdaptiveRoundLog log[kAdaptiveLogRounds];
};

// Where the persistent kernel takes its work from and how it ends (hot counters on separate lines).
struct FrameControl {
    alignas(128) unsigned long long next_sample;  // next (pixel, sample) index to generate
    alignas(128) int in_flight;                   // paths + shadow rays alive
    alignas(128) unsigned long long end_sample;   // pixels * samples of this frame; shared: lowered when
                                                  // the frame's chunks run out
    int stop;                                     // device copy of the host's stop flag
};

// A frame shared by several persistent grids (one per GPU, or several on one: render/cuda/multi_gpu_backend.cpp).
// Each grid numbers the paths it claims locally (FrameControl::next_sample); local chunk c, numbers
// [c * chunk_paths, (c + 1) * chunk_paths), stands for the frame's chunk that grid took from the shared
// counter when it first needed c. The counter (`next_chunk`, in one GPU's memory, reached by the others
// over peer access) only grows: this frame's chunks are its values from chunk_base on, and a value at
// or past chunk_base + chunks means none was left. So a faster grid takes more chunks, and the union of
// what all grids render is the frame, each path once.
constexpr uint32_t kChunkNone = 0xffffffffu;  // chunk_map: no chunk was left for this local chunk

struct SharedFrame {
    unsigned long long* next_chunk = nullptr;  // null: the grid has its frame to itself
    uint32_t* chunk_map = nullptr;             // this grid's local chunk -> frame chunk + 1 (0: not yet known)
    unsigned long long chunk_base = 0;
    uint32_t chunks = 0, chunk_paths = 0;
};

// ---- Resident mode: one kernel for many frames, fed by the host through mapped memory ----

constexpr int kResidentRingSlots = 4;
constexpr int kJobSeqShift = 40;  // packed (job seq << 40 | path number): 2^40 paths a job
constexpr unsigned long long kJobIndexMask = (1ull << kJobSeqShift) - 1;

enum ResidentCommand : uint32_t { kResidentRender = 1, kResidentQuit = 2 };

// The ring's side job: the denoiser's steps over buffers in device memory, made by the grid's warps as
// sweeps (no other kernel can run beside the grid). It renders nothing, has no number among the frames'
// jobs and no counters, and runs as soon as the job before it completes, ahead of frames queued.
struct DenoiseJob {
    DenoiseBuffers buffers;
    DenoiseParams params;
    int32_t width, height;
};

// What a job does besides its samples: clear the framebuffer before them (a new image: only this job's
// samples end up in it, never a late path of the last one), and pack the framebuffer into `snapshot`
// after them (the display's image, consistent per pixel, while the next job renders).
// kJobQueueShadows: the job's shadow rays go through the shadow queue (else traced where cast); per
// job, so the host can time both on the kernel's first jobs of a configuration.
// kJobAdaptive: the job is an adaptive round (its frame's plan); once it drains, the kernel scans the
// image and writes the next round's plan before it completes.
// kJobSnapshotFeatures: the snapshot carries the feature sums too (kFeatureFloats a pixel, after the
// image's RGBA), for a denoiser: the live buffers hold the next job's samples by the time the host reads.
enum ResidentJobFlags : uint32_t {
    kJobClear = 1,
    kJobSnapshot = 2,
    kJobQueueShadows = 4,
    kJobAdaptive = 8,
    kJobSnapshotFeatures = 16
};

struct ResidentJob {
    FrameRecord frame;
    float* snapshot;                // kJobSnapshot: RGBA32F per pixel (rgb = radiance sum, a = samples)
    AdaptiveDevice* adaptive;       // kJobAdaptive: the render's state
    uint32_t seq;                   // 1, 2, 3, ...: the job's number (and the head that announces it)
    uint32_t command;               // ResidentCommand
    uint32_t timeline_interval_ns;  // for this job's queue-depth timeline
    uint32_t flags;                 // ResidentJobFlags
    // The image the snapshot packs: image_width x image_height; block > 1, a preview, whose frame is
    // the smaller image rendered (RenderSettings::preview), each of its pixels packed as a block.
    uint32_t block;
    int32_t image_width, image_height;
};

// Host -> GPU, in pinned host memory mapped into the device: the host writes job `seq` into slot
// seq % kResidentRingSlots, then head = seq. One warp polls head and relays jobs into device memory.
// The host keeps fewer than kResidentRingSlots jobs outstanding.
struct ResidentRing {
    volatile uint32_t head;
    volatile uint32_t cancel;  // every job up to this seq stops claiming samples (completes early)
    ResidentJob jobs[kResidentRingSlots];
    volatile uint32_t side;  // the side job's number: 1, 2, ... (one at a time: the host waits for each)
    DenoiseJob side_job;
};

// One job's outcome, in the status slot seq % kResidentRingSlots (device clock).
struct ResidentJobResult {
    volatile uint32_t seq;
    volatile uint32_t cancelled;  // it was cancelled before it completed (no snapshot was packed)
    volatile unsigned long long start_ns, end_ns;
};

// GPU -> host, mapped: which job runs, which finished (every sample and shadow ray done, every
// block's counters flushed, the snapshot packed), and when.
struct ResidentStatus {
    volatile uint32_t started;
    volatile uint32_t completed;
    volatile uint32_t exited;
    ResidentJobResult results[kResidentRingSlots];
    volatile uint32_t side_completed;
    volatile unsigned long long side_start_ns, side_end_ns;
};

// A sweep's units are pixels (clear, pack, a denoise step) or adaptive tiles (scan, fill).
enum ResidentSweep : uint32_t { kSweepClear = 1, kSweepPack = 2, kSweepDenoise = 3, kSweepScan = 4, kSweepFill = 5 };

// Device-side state of the current job (hot words on lines of their own).
struct ResidentControl {
    alignas(128) unsigned long long next;     // (seq << kJobSeqShift) | next path number of job seq
    alignas(128) unsigned long long job_end;  // (seq << kJobSeqShift) | paths of job seq: one word, read whole
    alignas(128) unsigned int flushed;        // blocks that flushed their counters since the job drained
    unsigned int relayed;                     // the job the monitor relayed last
    unsigned int completed;                   // the last job completed
    unsigned int job_flags;                   // the relayed job's flags, pixels, paths and snapshot
    unsigned int job_pixels;
    unsigned int job_block;  // ... and the image its snapshot packs (ResidentJob)
    int job_image_width;
    unsigned int job_image_pixels;
    unsigned long long job_paths;
    float* job_snapshot;
    AdaptiveDevice* job_adaptive;
    // A sweep: every pixel of the framebuffer once (the clear before a job, the pack after it, a step
    // of the side job), each warp its share (kernels/gpu/resident.cuh, SweepShare).
    alignas(128) unsigned long long sweep_done;  // pixels finished
    alignas(128) unsigned long long sweep;       // the running sweep's number; 0 when none runs
    unsigned long long sweeps;                   // sweeps started so far
    unsigned int sweep_kind;                     // ResidentSweep
    unsigned int sweep_pixels;
    DenoiseJob denoise;         // the side job relayed last
    unsigned int side_relayed;  // its number
    unsigned int side_running;  // until it completes, no job is relayed
    unsigned int denoise_step;  // the step its running sweep makes
};

}  // namespace pkrt
