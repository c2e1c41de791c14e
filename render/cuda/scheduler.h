// A GPU scheduler runs a frame's paths through the per-ray stages (kernels/path_stages.h) its own way.
// The CUDA backend (cuda_backend.cpp) owns what every scheduler shares (device scene, framebuffer, the
// frame record, streams) and hands a scheduler one GpuFrame per frame. Every scheduler is a queue of
// frames, the frame protocol (render/backend.h) at the scheduler's level:
//
//   submit(frame)        queue the frame (at most max_outstanding() are submitted and not finished)
//   oldest_done()        the oldest queued frame is done (no blocking)
//   finish()             block until it is; its counters, device time, and packed image if any
//   end(ms, cancelled)   add what only this scheduler knows about that frame to its statistics
//   cancel_outstanding() the queued frames stop claiming samples (false: no channel of its own, the
//                        backend's stop flag does it)
//
// A frame of the stream schedulers (persistent, relaunch, graph, megakernel: StreamScheduler) is work on
// the backend's stream between two events, one frame at a time; the resident scheduler's kernel stays
// on the GPU and takes frames from a ring in mapped memory, several queued. While it holds the device
// no other kernel can run (a launch, memset or pinned free would wait for it forever): release() ends it.
// A new scheduler is a class here and a case in make_scheduler.
#pragma once

#include <memory>
#include <string>

#include "kernels/gpu/gpu_launch.h"
#include "render/cuda/device_memory.h"
#include "render/devices.h"
#include "render/mode.h"
#include "render/scheduler_options.h"
#include "render/stats.h"

namespace pkrt::cuda {

struct GpuFrame {
    cudaStream_t stream = nullptr;
    SceneView scene{};
    const FrameRecord* frame = nullptr;  // device memory
    FrameRecord record{};                // the same record, on the host
    DeviceFramebuffer fb{};
    GpuCounters* counters = nullptr;            // device memory, cleared for this frame
    const volatile int* stop_device = nullptr;  // the host's stop flag (mapped) as the device sees it
    const volatile int* stop_host = nullptr;
    unsigned long long scene_id = 0;  // changes with every scene upload
    unsigned timeline_interval_ns = 1000;
    // Clear the framebuffer before the frame's samples (kJobClear: a reset the frame makes, on the
    // GPU, behind frames still queued); kJobAdaptive: a round of an adaptive render.
    uint32_t job_flags = 0;
    // Queued frames: pack the finished image into host memory (FrameOutcome::image) where the scheduler
    // can (resident: its kernel packs it; no other kernel can run to read the framebuffer).
    bool want_image = false;
    AdaptiveDevice* adaptive = nullptr;  // an adaptive round's state (kJobAdaptive)
    // Persistent mode: the frame's paths are shared with other grids (multi_gpu_backend.cpp); the
    // scheduler supplies chunk_map.
    SharedFrame shared{};
    // A preview (RenderSettings::preview): `record` is the smaller image rendered, the pack shows its
    // pixels as block x block squares of the image_width x image_height snapshot.
    uint32_t block = 1;
    int image_width = 0, image_height = 0;

    unsigned long long paths() const { return record.paths(); }
    // The configuration whose frames share policy timings (render/policy_tuner.h): frames of other
    // sample counts share them (times are per path).
    std::string tuning_key() const {
        return std::to_string(scene_id) + " " + std::to_string(record.width) + "x" + std::to_string(record.height) +
               " d" + std::to_string(record.max_depth);
    }
};

// An ended frame, as finish() reports it (valid until the next submit or finish).
struct FrameOutcome {
    const GpuCounters* counters = nullptr;  // host memory: the frame's counts
    float gpu_ms = 0.0f;
    bool cancelled = false;        // stopped through cancel_outstanding() before it completed
    const float* image = nullptr;  // its packed image (RGBA32F, 4 floats a pixel) in host memory, or null
    // With `image`, where the frame keeps features: their sums as the frame ended (kFeatureFloats a pixel).
    const float* features = nullptr;
    // With `image`, both of them in device memory, intact until the next frame ends and another is
    // submitted: what a denoise on the device reads without a trip over PCIe.
    const float* device_image = nullptr;
    const float* device_features = nullptr;
};

class GpuScheduler {
public:
    virtual ~GpuScheduler() = default;
    virtual int max_outstanding() const { return 1; }
    virtual void submit(const GpuFrame& frame) = 0;
    virtual bool oldest_done() const = 0;
    virtual FrameOutcome finish() = 0;
    virtual void end(float gpu_ms, bool cancelled, RenderStats& stats) = 0;
    virtual bool cancel_outstanding() { return false; }
    // The scene or the buffers changed under it (a captured graph baked them in).
    virtual void invalidate() {}
    virtual bool holds_device() const { return false; }
    virtual void release() {}
    // Its kernel scans an adaptive render's rounds and plans the next itself (resident): the backend
    // queues rounds ahead, blind, instead of one at a time behind a scan of its own.
    virtual bool plans_rounds() const { return false; }
};

// A frame on the backend's stream: its record and cleared counters copied in, a start event, the
// scheduler's work (begin), a done event (the frame's GPU time), the scheduler's own read-back
// (enqueue_readback) and the counters' copy into pinned memory, a read-back event. wait(done) blocks
// until the work is done (the persistent scheduler watches its kernel's progress meanwhile).
class StreamScheduler : public GpuScheduler {
public:
    StreamScheduler();
    ~StreamScheduler() override;
    void submit(const GpuFrame& frame) final;
    bool oldest_done() const final;
    FrameOutcome finish() final;

protected:
    virtual void begin(const GpuFrame& frame) = 0;
    virtual void enqueue_readback(cudaStream_t stream) { (void)stream; }
    virtual void wait(cudaEvent_t done);

private:
    cudaStream_t stream_ = nullptr;
    cudaEvent_t start_ = nullptr, done_ = nullptr, read_back_ = nullptr;
    PinnedHost<FrameRecord> record_;
    PinnedHost<GpuCounters> counters_;
    PinnedHost<unsigned> interval_;
    bool queued_ = false;
};

// What a scheduler of `mode` is, known before one is made: the frames it keeps queued
// (max_outstanding()), whether it holds the device between frames while it runs (holds_device()), and
// whether its kernel plans adaptive rounds (plans_rounds()).
int max_outstanding(SchedulerMode mode);
bool holds_device_between_frames(SchedulerMode mode);
bool plans_rounds(SchedulerMode mode);
std::unique_ptr<GpuScheduler> make_scheduler(SchedulerMode mode, const GpuDevice& device,
                                             const SchedulerOptions& options);

std::unique_ptr<GpuScheduler> make_persistent_scheduler(const GpuDevice& device, const SchedulerOptions& options);
// Relaunch: the stages launched one by one; graph: the same launches captured once and replayed.
std::unique_ptr<GpuScheduler> make_wavefront_scheduler(bool graph, const SchedulerOptions& options);
std::unique_ptr<GpuScheduler> make_megakernel_scheduler(const SchedulerOptions& options);
std::unique_ptr<GpuScheduler> make_resident_scheduler(const GpuDevice& device, const SchedulerOptions& options);
// quit_resident_kernels() (device_memory.h): another kernel, or a free, would wait for a resident grid
// to leave the GPU, forever.
// Where a resident kernel holds `device`, the denoiser's steps as a side job of its grid, between two
// frames, once the work on `inputs` (their upload) is done (blocking; their GPU time in *gpu_ms); false
// where none does, and the caller launches them.
bool denoise_in_resident_kernel(int device, const DenoiseJob& job, cudaStream_t inputs, float* gpu_ms);

}  // namespace pkrt::cuda
