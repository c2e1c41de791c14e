// The flags that choose how a scene's BVH is built and laid out (--bvh, --bvh-splits, --sbvh/--no-sbvh),
// shared by pkrt render, pkrt bench and pkrt-viewer. What they resolve to: render/bvh/bvh_choice.h.
#pragma once

#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

#include "render/bvh/bvh_choice.h"

namespace pkrt {

inline void add_bvh_options(CLI::App* app, BvhFlags* f) {
    app->add_option("--bvh", f->layout, "BVH layout: bvh2 (binary) or cwbvh (8-wide, compressed)")
        ->capture_default_str();
    app->add_option(
           "--bvh-splits", f->splits,
           "Split large triangles into up to this many extra BVH references per triangle on average (0-4), in place of spatial splits")
        ->check(CLI::Range(0.0f, 4.0f))
        ->capture_default_str();
    app->add_flag_function(
        "--sbvh,!--no-sbvh",
        [f](std::int64_t n) {
            f->sbvh = n > 0;
            f->sbvh_given = true;
        },
        "Build the BVH with spatial splits (SBVH, the default) or without (binned SAH: a faster build)");
}

}  // namespace pkrt
