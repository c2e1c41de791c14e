// The one set-up of a render: options and a scene path in, a ready render out (loaded scene under its load
// limits and missing-textures policy, BVH of the chosen layout, backend, validated settings and the one-line
// note of which backend and why). `pkrt render`, `pkrt bench` and pkrt-viewer all build through it; the CLI
// parsing stays in app/, which fills these plain structs.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "render/backend.h"
#include "render/bvh/bvh_choice.h"
#include "render/scene/load_limits.h"
#include "render/scene/scene.h"

namespace pkrt {

// The Cornell box of scenes_dir() (render/data_dir.h): the scene of a render given none.
std::string default_scene_path();

struct SetupOptions {
    std::string scene;  // .json, .obj, .ply, .gltf or .glb; empty: default_scene_path()
    LoadLimits limits;  // and the missing-textures policy
    BvhChoice bvh{BvhLayout::kBvh2, 0.0f, true};
    BackendOptions backend;
    std::string mode;    // --mode; empty: the backend's default
    std::string env;     // an environment map in place of the scene's
    std::string camera;  // a camera of the scene file (glTF), by index or name
    std::optional<float> aperture, focus_distance;
    int width = 0, height = 0;              // 0: the scene's resolution; else checked against limits.max_pixels
    std::string resolution_flag = "--res";  // what a pixel-budget error names for width x height
    std::optional<int> spp, max_depth;      // none: the scene's
    uint32_t seed = 0;
    // --exposure (stops or "auto") and --tone-map (clamp, aces, agx); empty: the scene's (render.exposure,
    // render.tone_map), else 0 stops and the default curve.
    std::string exposure, tone_map;
    // Run on the loaded scene before its BVH is built (checks of outputs against the scene's inputs, a
    // camera path from its camera), so that a mistake fails before the longest step.
    std::function<void(const Scene&)> before_build;
};

struct ReadyRender {
    std::unique_ptr<Backend> backend;
    std::string why;  // which backend and why, one line
    std::optional<SchedulerMode> mode;
    Scene scene;
    std::string scene_path;
    RenderSettings settings;
    Look look;                          // of the PNG (-o) and the viewer
    std::vector<std::string> warnings;  // of the load, one line each, for the caller to print with its prefix
};

// The cheap checks (ranges of spp, depth and size, the BVH flags), before anything is loaded.
void check_setup_options(const SetupOptions& o);

// The backend of `o.backend`, and the mode asked for, checked against it (the error names `mode_flag`).
std::unique_ptr<Backend> setup_backend(const SetupOptions& o, std::optional<SchedulerMode>* mode, std::string* why,
                                       const std::string& mode_flag = "--mode");

// The scene at `path` loaded under o.limits, with o's camera, environment and lens, then before_build,
// then its BVH built as o.bvh says. `warnings` (may be null) gets the load's warnings.
Scene setup_scene(const SetupOptions& o, const std::string& path, std::vector<std::string>* warnings);

// The render settings of `o` for `scene`: its resolution, spp and depth unless o overrides them.
RenderSettings setup_settings(const SetupOptions& o, const Scene& scene, std::optional<SchedulerMode> mode);

// How the images of `o` for `scene` look on a display: the scene's look unless o overrides it.
Look setup_look(const SetupOptions& o, const Scene& scene);

// All of the above in order: checks, backend, scene, settings.
ReadyRender setup_render(const SetupOptions& o);

// The load's warnings of `scene` (read from `path`), one line each.
std::vector<std::string> load_warnings(const Scene& scene, const std::string& path);

}  // namespace pkrt
