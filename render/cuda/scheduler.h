// A GPU scheduler runs a frame's paths through the per-ray stages (kernels/path_stages.h) its own way.
// The CUDA backend (cuda_backend.cpp) owns what every scheduler shares (device scene, framebuffer, the
// frame record, counters, streams, events) and hands a scheduler one GpuFrame per frame:
//
//   begin(frame)             enqueue the frame's work on frame.stream (a scheduler that runs in waves
//                            may wait for earlier waves here)
//   enqueue_readback(stream) enqueue copies of its own counters into pinned host memory, after the
//                            frame's timed work
//   wait(done)               block until the event recorded after the frame's work has passed
//   end(ms, cancelled, st)   add what only this scheduler knows about the frame to the statistics
//
// Poll a frame without blocking through the backend's done event (cudaEventQuery). A new scheduler is
// a class here, a factory below, and one case in the backend's mode switch.
#pragma once

#include <memory>
#include <string>

#include "kernels/gpu/gpu_launch.h"
#include "render/devices.h"
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
    // Resident mode: clear the framebuffer before the frame's samples (kJobClear), pack it into
    // `snapshot` after them (kJobSnapshot).
    uint32_t job_flags = 0;
    float* snapshot = nullptr;
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

class GpuScheduler {
public:
    virtual ~GpuScheduler() = default;
    virtual void begin(const GpuFrame& frame) = 0;
    virtual void enqueue_readback(cudaStream_t stream) { (void)stream; }
    virtual void wait(cudaEvent_t done);
    virtual void end(float gpu_ms, bool cancelled, RenderStats& stats) = 0;
    // The scene or the buffers changed under it (a captured graph baked them in).
    virtual void invalidate() {}

    // A scheduler whose kernel outlives frames (resident) takes no events or clears on the frame's
    // stream: it times its frames on the device clock, and its counters keep running across frames.
    virtual bool resident() const { return false; }
    virtual bool running() const { return false; }  // its kernel is on the GPU now
    // A resident scheduler keeps up to this many frames outstanding (begun, not ended); they end in
    // order, and wait/frame_ms/end are about the oldest.
    virtual int max_outstanding() const { return 1; }
    // The oldest outstanding frame is done (no blocking).
    virtual bool ready() const { return true; }
    // Cancels every outstanding frame at once (resident: they stop claiming samples and complete early).
    virtual void cancel_outstanding() {}
    // The oldest outstanding frame was cancelled before it completed.
    virtual bool cancelled() const { return false; }
    virtual float frame_ms() const { return 0.0f; }
    // Ends a kernel that outlives frames (another mode, a new size, quitting); false if none runs.
    virtual bool quit() { return false; }
};

std::unique_ptr<GpuScheduler> make_persistent_scheduler(const GpuDevice& device, const SchedulerOptions& options);
// Relaunch: the stages launched one by one; graph: the same launches captured once and replayed.
std::unique_ptr<GpuScheduler> make_wavefront_scheduler(bool graph, const SchedulerOptions& options);
std::unique_ptr<GpuScheduler> make_megakernel_scheduler(const SchedulerOptions& options);
std::unique_ptr<GpuScheduler> make_resident_scheduler(const GpuDevice& device, const SchedulerOptions& options);
// quit_resident_kernels() (device_memory.h): another kernel, or a free, would wait for a resident grid
// to leave the GPU, forever.

}  // namespace pkrt::cuda
