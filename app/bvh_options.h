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
        // CLI::Range lets NaN through (every comparison with it is false); no float flag may take it.
        ->check(CLI::Validator(
            [](std::string& v) {
                float x = 0.0f;
                return CLI::detail::lexical_cast(v, x) && x >= 0.0f && x <= 4.0f ? std::string()
                                                                                 : "must be between 0 and 4";
            },
            std::string()))
        ->capture_default_str();
    // Two flags, not CLI11's "--sbvh,!--no-sbvh": its help printed that as "--sbvh,--no-sbvh{false}", which
    // reads as "off by default".
    CLI::Option* on = app->add_flag_callback(
        "--sbvh",
        [f] {
            f->sbvh = true;
            f->sbvh_given = true;
        },
        "Build the BVH with spatial splits (SBVH; the default)");
    app->add_flag_callback(
           "--no-sbvh",
           [f] {
               f->sbvh = false;
               f->sbvh_given = true;
           },
           "Build the BVH without spatial splits (binned SAH: a faster build)")
        ->excludes(on);
}

}  // namespace pkrt
