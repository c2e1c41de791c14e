// pkrt-viewer's command line, parsed and checked before anything is loaded or a window is opened.
#pragma once

#include <string>
#include <vector>

#include "render/denoise/denoiser_choice.h"
#include "app/bvh_options.h"
#include "app/run_options.h"
#include "render/scene/load_limits.h"
#include "render/setup.h"

namespace pkrt::viewer {

struct ViewerOptions {
    std::string scene;               // .json, .obj, .ply, .gltf or .glb; empty: the Cornell box
    std::string backend = "auto";    // auto | cpu | cuda
    std::string mode;                // scheduler mode; empty: the backend's default
    BvhFlags bvh;                    // layout and build of every scene's BVH (app/bvh_options.h)
    int width = 0, height = 0;       // window size; 0: the scene's resolution
    int spp_per_frame = 0;           // 0: 1 on the CPU, 4 on the GPU
    int spp_target = 0;              // stop accumulating at this many samples per pixel; 0: never
    float target_error = 0.0f;       // > 0: stop when converged at this relative error (adaptive rounds)
    bool spp_map = false;            // the samples-per-pixel map over the image
    bool denoise = false;            // show the accumulation denoised (app/viewer/denoised_view.h)
    std::string denoiser;            // --denoiser: atrous or unet (render/denoise/denoiser_choice.h)
    std::string denoiser_weights;    // --denoiser-weights: the U-Net's weight file
    DenoiserChoice denoiser_choice;  // the two read by check_options
    bool spp_per_frame_set = false;
    int max_depth = -1;              // -1: the scene's
    float scale = 0.0f;              // render resolution / window; 0: 0.5 on the CPU, 1 on the GPU
    std::string exposure, tone_map;  // stops or "auto"; clamp | aces | agx; empty: the scene's (render/image/look.h)
    int frames = 0;                  // > 0: render this many frames, save --screenshot, exit
    int preview = 0;  // pixel block of the preview after a camera move; not given: 4, or 1 (none) in batch runs
    bool preview_set = false;
    bool frames_set = false;
    bool max_depth_set = false, scale_set = false;  // given on the command line (-1 and 0 are "not given")
    std::string screenshot;                         // batch output; interactive screenshots' name
    std::string shaders;                            // directory holding display.vert and display.frag
    std::string script;                             // scripted input (tests)
    std::string interop = "texture";  // CUDA-GL interop: texture (written through a surface) | buffer (pixel buffer)
    LoadLimits limits;                // resource limits of every scene opened
    RunOptions run;                   // -q, -v, --log-level, -j
    std::vector<std::string> set;     // --set KEY=VALUE scheduler settings, as for pkrt render
    std::string devices;              // --devices: CUDA devices, as for pkrt render
    std::string camera;               // --camera: a camera of the scene file (glTF), as for pkrt render
    std::string env;                  // --env: an environment map in place of the scene's
    uint32_t seed = 0;                // --seed, as for pkrt render
    std::string bookmarks = "pkrt-bookmarks.json";  // camera bookmarks (app/viewer/bookmarks.h)
};

// Parses argv. Returns -1 to go on, or an exit code (0 after --help, 2 for a syntax error, which it has
// already reported as one line on stderr).
int parse_options(int argc, char** argv, ViewerOptions* out);

// Checks values (ranges, the screenshot path, --set); throws pkrt::Error.
void check_options(ViewerOptions& o);

// The one set-up's options (render/setup.h) of the viewer's scenes and backend; the window size and the
// progressive settings stay the viewer's.
SetupOptions setup_options(const ViewerOptions& o);

}  // namespace pkrt::viewer
