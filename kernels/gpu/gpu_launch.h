// Host-callable entry points of the GPU kernels. Everything a kernel needs arrives in one of these
// parameter blocks (passed by value) or in device memory they point to, so the host side never
// touches device code. The frame itself (camera, samples, seed, depth) is a FrameRecord in device
// memory (kernels/frame.h), never a kernel parameter.
#pragma once

#include <cuda_runtime.h>

#include "kernels/frame.h"
#include "kernels/adaptive.h"
#include "kernels/gpu/gpu_records.h"
#include "kernels/scene_view.h"

namespace pkrt {

// ---- Persistent scheduler (kernels/gpu/persistent.cu) ----

struct PersistentParams {
    SceneView scene;
    const FrameRecord* frame;
    DeviceFramebuffer fb;
    DeviceQueue<PathRecord> paths;
    DeviceQueue<ShadowRecord> shadows;
    FrameControl* control;
    GpuCounters* counters;          // resident: kResidentRingSlots of them, a job's at its slot
    LiveStats* live;                // host-mapped; may be null
    const volatile int* host_stop;  // host-mapped stop flag (poison pill); may be null
    int fetch_threshold;            // refill a warp when fewer lanes than this hold a path
    int low_water;                  // generate camera paths when the path queue holds fewer than this
    int queue_shadows;              // 1: shadow rays go through the shadow queue; 0: traced at once
    int sort_stragglers;            // 1: warps with few live lanes push them to the queue, and only empty
                                    // warps take new camera paths
    int timeline;                   // 1: sample the queue-depth timeline
    int backoff_max_shift;          // an idle warp sleeps at most 64 << this nanoseconds
    SharedFrame shared;             // persistent: the frame's paths shared with other grids (kernels/gpu/gpu_records.h)
    // Resident mode only (kernels/gpu/resident.cuh); null otherwise.
    ResidentRing* ring;      // host-mapped jobs
    ResidentStatus* status;  // host-mapped progress
    ResidentControl* resident;
    FrameRecord* job_frame;  // where the monitor puts the running job's frame (== frame)
};

constexpr int kPersistentThreads = 128;
// Compiled register caps of the persistent kernel, as resident blocks per SM (128, 80, 64, 48 registers).
constexpr int kPersistentBlocksPerSm[] = {4, 6, 8, 10};

int persistent_occupancy(int blocks_per_sm);  // blocks of that build that fit on one SM
cudaError_t launch_persistent(const PersistentParams& p, int blocks, int blocks_per_sm, cudaStream_t stream);
// The same loop as a kernel that lives across frames, taking jobs from p.ring until a quit job
// (built for kResidentBlocksPerSm resident blocks per SM).
constexpr int kResidentBlocksPerSm = 10;
int resident_occupancy();
cudaError_t launch_resident(const PersistentParams& p, int blocks, cudaStream_t stream);

// Sets every slot's sequence number to "free for ticket = slot" and clears the counters (kernels/gpu/queue_init.cu).
template <class Record> cudaError_t launch_queue_init(const DeviceQueue<Record>& q, cudaStream_t stream);

// ---- Wavefront stages (relaunch / graph, kernels/gpu/wavefront_stages.cu) and megakernel ----

struct WaveParams {
    unsigned long long first_index;  // path number (kernels/path_stages.h) of the wave's first path
    uint32_t count;                  // paths in this wave
};

struct WavefrontParams {
    SceneView scene;
    const FrameRecord* frame;
    DeviceFramebuffer fb;
    GpuCounters* counters;
    const WaveParams* wave;  // device memory: changes between waves without re-capturing a graph
    PathRecord* paths[2];    // ping-pong by bounce parity
    Hit* hits;
    ShadowRecord* shadows;
    int* path_counts;    // [max_depth + 2]: live paths entering each bounce
    int* shadow_counts;  // [max_depth + 1]: shadow rays cast at each bounce
    uint32_t capacity;   // paths per wave buffer
    // ray_order=binned (kernels/gpu/ray_bins.cu): the shade stage writes each continuing path's bin key
    // (bin_keys[0], 0xffff past the count), a radix sort orders the slots by it (bin_order[1], from the
    // identity bin_order[0]) and the extend stage traces bounce rays in that order. Null: as shaded.
    uint16_t* bin_keys[2];
    uint32_t* bin_order[2];
    void* bin_temp;
    size_t bin_temp_bytes;
};

constexpr int kWavefrontThreads = 256;

// One launch each; grids are sized for `capacity` and threads past the device-side count exit.
cudaError_t launch_wf_generate(const WavefrontParams& p, cudaStream_t stream);
cudaError_t launch_wf_extend(const WavefrontParams& p, int bounce, cudaStream_t stream);
cudaError_t launch_wf_shade(const WavefrontParams& p, int bounce, cudaStream_t stream);
cudaError_t launch_wf_shadow(const WavefrontParams& p, int bounce, cudaStream_t stream);
// ray_order=binned: the scratch the sort needs for `capacity` keys, and the sort of one bounce's keys
// (after its shade stage, before the next extend stage).
size_t wf_bin_temp_bytes(uint32_t capacity);
cudaError_t launch_wf_bin_sort(const WavefrontParams& p, cudaStream_t stream);

// One thread per path, start to end (kernels/gpu/megakernel.cu).
cudaError_t launch_megakernel(const WavefrontParams& p, cudaStream_t stream);

// ---- Adaptive sampling between rounds (kernels/gpu/adaptive_scan.cu) ----

// Behind a round's frame: the scan and the fill (kernels/gpu/adaptive_scan.cuh), which leave the next
// round's plan and a log entry in *a.
cudaError_t launch_adaptive_scan(AdaptiveDevice* a, int width, int height, cudaStream_t stream);
// After the rounds: the odd half of the framebuffer added to the even one, which then holds every
// sample's sums and counts.
cudaError_t launch_adaptive_combine(const DeviceFramebuffer& fb, int width, int height, cudaStream_t stream);

// ---- Display (kernels/gpu/display_pack.cu) ----

// Radiance sums and sample counts of a width x height image packed as RGBA32F into `dst` (a device
// pointer); block > 1: a preview's pixels shown as blocks (RenderSettings::preview); half > 0: between
// adaptive rounds, the framebuffer's second half (that many pixels on) adds to the first.
cudaError_t launch_pack_accumulation(const DeviceFramebuffer& fb, int width, int height, int block, size_t half,
                                     float4* dst, cudaStream_t stream);
// The same into a width x height RGBA32F CUDA array behind `surface` (a GL texture mapped into CUDA).
cudaError_t launch_pack_accumulation_surface(const DeviceFramebuffer& fb, int width, int height, int block, size_t half,
                                             cudaSurfaceObject_t surface, cudaStream_t stream);
// An image of width x height colours (a denoised view) as RGBA32F with a = 1 (the display divides by
// a), into `dst` (a device pointer) or the CUDA array behind `surface`.
cudaError_t launch_pack_rgb(const Vec3* rgb, int width, int height, float4* dst, cudaStream_t stream);
cudaError_t launch_pack_rgb_surface(const Vec3* rgb, int width, int height, cudaSurfaceObject_t surface,
                                    cudaStream_t stream);

}  // namespace pkrt
