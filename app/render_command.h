// `pkrt render`: its flags, the checks that run before anything loads, and the render itself (one image,
// or a sequence through app/sequence_cli.h), its outputs written all or nothing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "app/bvh_options.h"
#include "app/run_options.h"
#include "render/adaptive.h"
#include "render/distributed/distributed.h"
#include "render/scene/load_limits.h"

namespace pkrt {

struct RenderArgs {
    std::string scene;
    std::string output = "pkrt.png";  // by its extension: .png (tone-mapped sRGB), .exr, .pfm or .hdr (linear)
    std::string hdr;                  // a second, linear output
    std::string aov;                  // --aov: feature layers of the EXR outputs (render/image/aov.h)
    bool denoise = false;             // --denoise: the outputs denoised (render/denoise/denoiser.h)
    std::string denoiser;             // --denoiser: atrous or unet (render/denoise/denoiser_choice.h)
    std::string denoiser_weights;     // --denoiser-weights: the U-Net's weight file
    std::string stats;
    std::string env;  // --env: an environment map in place of the scene's environment
    int frames = 0;   // > 0: an image sequence (app/sequence_cli.h)
    std::string camera_path;
    std::string camera;  // a camera of the file (glTF), by index or name
    std::string res;
    std::string backend = "auto";
    std::string mode;
    BvhFlags bvh;
    std::vector<std::string> set;
    std::string devices;  // --devices
    int spp = 0;          // meaningful only when spp_set
    int max_depth = 0;    // meaningful only when max_depth_set
    bool spp_set = false, max_depth_set = false;
    uint32_t seed = 0;
    std::string exposure, tone_map;                // empty: the scene's (render/image/look.h)
    float aperture = 0.0f, focus_distance = 0.0f;  // meaningful only when *_set
    bool aperture_set = false, focus_distance_set = false;
    RunOptions run;
    AdaptiveSettings adaptive;  // meaningful only when target_error_set
    bool target_error_set = false, min_spp_set = false, max_spp_set = false, time_limit_set = false,
         adaptive_rule_set = false;
    std::string resume;         // --resume: an EXR of this render with fewer samples
    double checkpoint_s = 0.0;  // --checkpoint: write the outputs this often (0: never)
    std::string spp_map;
    std::string reference;  // --reference: a linear EXR to measure the image's relMSE against
    LoadLimits limits;
};

// Adds the `render` subcommand to `app`, its flags filling `args` (the *_set fields once parsed).
CLI::App* add_render_command(CLI::App& app, RenderArgs* args);

// Renders as `args` say; throws pkrt::Error for anything wrong. Under MPI every rank calls it.
int run_render(const RenderArgs& args, Ranks& ranks);

}  // namespace pkrt
