// `pkrt render --frames N --camera-path orbit|keys.json -o out_%04d.png`: the image sequence's flags
// and its run. Each frame's files are written as the frame completes, all or nothing per frame; the
// --stats file (the whole sequence) is written only once every frame is. So a sequence that fails or
// is cancelled (SIGINT, SIGTERM) leaves the frames that completed, each whole, and no statistics file.
#pragma once

#include <string>
#include <vector>

#include "render/backend.h"
#include "render/denoise/denoiser.h"
#include "render/image/aov.h"
#include "render/scene/camera_path.h"

namespace pkrt {

// Throws Error for: --frames without --camera-path or the reverse, --frames out of 1-100000, and
// -o / --hdr patterns without exactly one frame number.
void check_sequence_flags(int frames, const std::string& camera_path, const std::string& output,
                          const std::string& hdr);

// Throws Error when a frame's -o or --hdr name is one of the inputs (the key file included): before the
// render, for every frame.
void check_frame_outputs(const std::string& image_pattern, const std::string& hdr_pattern, int frames,
                         const std::vector<SceneInput>& inputs);

struct SequenceOutputs {
    std::string image_pattern, hdr_pattern, stats;  // -o (any image type), --hdr, --stats
    Look look;                                      // of the PNGs
    std::vector<SceneInput> inputs;                 // never overwritten
    std::vector<Aov> aovs;                          // --aov: layers of the EXR frames
    Denoiser* denoiser = nullptr;                   // --denoise: every frame denoised (EXRs keep the render too)
};

// Renders and writes the sequence, with progress and a summary (info). Returns the exit code.
int run_sequence(Backend& backend, const Scene& scene, const RenderSettings& settings, const CameraPath& path,
                 int frames, const SequenceOutputs& out);

}  // namespace pkrt
