// The flags that choose what of a scene is rendered, and from where (--camera, --env, --seed), shared
// by pkrt render and pkrt-viewer, which take them alike.
#pragma once

#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

namespace pkrt {

inline void add_view_options(CLI::App* app, std::string* camera, std::string* env, uint32_t* seed) {
    app->add_option("--camera", *camera, "A camera of the scene file (glTF) by index or name; default: its first");
    app->add_option("--env", *env,
                    "Light the scene with this environment map (.hdr or .exr) instead of its own environment");
    app->add_option("--seed", *seed, "Random seed")->capture_default_str();
}

}  // namespace pkrt
