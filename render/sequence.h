// Image sequences (`pkrt render --frames N --camera-path ...`): frame i renders the camera path's
// frame i with seed + i, so every frame equals a single render of that camera and seed. Output names
// come from a printf-style pattern with one frame number (out_%04d.png).
#pragma once

#include <functional>
#include <string>

#include "render/backend.h"
#include "render/scene/camera_path.h"

namespace pkrt {

// Checks that `pattern` holds exactly one frame number (%d or %0Nd, N 1-9; %% is a literal %).
// Throws Error("FLAG PATTERN: ...").
void check_frame_pattern(const std::string& pattern, const std::string& flag);
std::string frame_path(const std::string& pattern, int frame);

struct SequenceFrame {
    int index = 0;
    CameraSpec camera;
    uint32_t seed = 0;
};

// The frames of a sequence, in order: `frames` cameras of `path`, seeds from settings.seed.
SequenceFrame sequence_frame(const CameraPath& path, int frames, uint32_t seed, int index);

// Where the render loop's time went: which side sets a sequence's pace (the GPU, the host's own work
// per frame, or `done`, which blocks while the frame writers are all busy).
struct SequenceTiming {
    double render = 0.0;  // s in the backend's frame calls: queueing frames, waiting for them, their counters
    double host = 0.0;    // s of the loop's own work per frame: set-up, taking each frame's image or accumulation
    double done = 0.0;    // s in `done`
};

// Renders every frame and hands each to `done` as it completes, with its statistics. Frame by frame,
// except where the backend queues frames ahead (resident mode): there the next frame renders while
// `done` handles the last, and a frame's `seconds` is the time since the one before it ended.
// `done` may take the frame's image (nothing reads it after); resolve = false hands it the frame's
// accumulation instead (RenderOutput::accumulation), to divide on a thread of its own; `spare` (may be
// null) gives it one whose memory to reuse. `progress` (may be null) counts samples
// over the whole sequence.
RenderStats render_sequence(Backend& backend, const Scene& scene, const RenderSettings& settings,
                            const CameraPath& path, int frames, Progress* progress,
                            const std::function<void(const SequenceFrame&, RenderOutput&)>& done,
                            SequenceTiming* timing = nullptr, bool resolve = true,
                            const std::function<Accumulation()>& spare = nullptr);

}  // namespace pkrt
