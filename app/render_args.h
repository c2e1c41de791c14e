// `pkrt render`'s flags checked together, before anything loads: each alone (ranges, file types of the
// outputs, the adaptive settings, a sequence's patterns) and against each other (what goes with what, on
// how many MPI ranks). What a later step needs from them comes back typed.
#pragma once

#include <string>
#include <vector>

#include "app/render_command.h"
#include "render/denoise/denoiser_choice.h"
#include "render/image/aov.h"

namespace pkrt {

struct CheckedRender {
    bool sequence = false;      // --frames or --camera-path
    std::string output, hdr;    // -o and --hdr (a sequence's: its first frame's names)
    std::vector<Aov> aovs;      // the feature layers of the EXR outputs
    int width = 0, height = 0;  // --res (0: the scene's)
    DenoiserChoice denoiser;    // with --denoise: which, its weights read
};

// Throws pkrt::Error naming the first flag that is wrong.
CheckedRender check_render_args(const RenderArgs& a, const Ranks& ranks);

}  // namespace pkrt
