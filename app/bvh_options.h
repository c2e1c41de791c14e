// The flags that choose how a scene's BVH is built and laid out (--bvh, --bvh-splits, --sbvh/--no-sbvh),
// shared by pkrt render, pkrt bench and pkrt-viewer.
#pragma once

#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

#include "render/bvh/bvh_layout.h"
#include "render/error.h"

namespace pkrt {

struct BvhFlags {
    std::string layout = "bvh2";
    float splits = 0.0f;      // triangle pre-splitting budget (render/bvh/bvh_presplit.h)
    // Spatial splits (render/bvh/bvh_sbvh.h) by default: 10-22% faster frames than the binned SAH tree on
    // the large bench scenes at 1080p in every GPU mode (BENCHMARKS.md), for a longer build.
    bool sbvh = true;
    bool sbvh_given = false;  // --sbvh or --no-sbvh was on the command line
};

// What the flags resolve to: pre-splitting (--bvh-splits F > 0) replaces the default spatial splits;
// asking for both is an error.
struct BvhChoice {
    BvhLayout layout;
    float splits;
    bool sbvh;
};

inline void add_bvh_options(CLI::App* app, BvhFlags* f) {
    app->add_option("--bvh", f->layout, "BVH layout: bvh2 (binary) or cwbvh (8-wide, compressed)")->capture_default_str();
    app->add_option("--bvh-splits", f->splits,
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

inline BvhChoice resolve_bvh_flags(const BvhFlags& f) {
    BvhLayout layout = parse_bvh_layout(f.layout, "--bvh");
    if (f.splits > 0.0f && f.sbvh && f.sbvh_given) throw Error("--sbvh and --bvh-splits exclude each other");
    return {layout, f.splits, f.sbvh && !(f.splits > 0.0f)};
}

}  // namespace pkrt
