// How a scene's BVH is built and laid out: the flags as given (--bvh, --bvh-splits, --sbvh/--no-sbvh,
// parsed by app/bvh_options.h) and what they resolve to, for the one set-up (render/setup.h).
#pragma once

#include <string>

#include "render/bvh/bvh_layout.h"
#include "render/error.h"

namespace pkrt {

struct BvhFlags {
    std::string layout = "bvh2";
    float splits = 0.0f;  // triangle pre-splitting budget (render/bvh/bvh_presplit.h)
    // Spatial splits (render/bvh/bvh_sbvh.h) by default: faster frames than the binned SAH tree on the large
    // bench scenes in every GPU mode (BENCHMARKS.md, session 6), for a longer build.
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

inline BvhChoice resolve_bvh_flags(const BvhFlags& f) {
    BvhLayout layout = parse_bvh_layout(f.layout, "--bvh");
    if (f.splits > 0.0f && f.sbvh && f.sbvh_given) throw Error("--sbvh and --bvh-splits exclude each other");
    return {layout, f.splits, f.sbvh && !(f.splits > 0.0f)};
}

}  // namespace pkrt
