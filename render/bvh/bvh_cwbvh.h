// Conversion of the binary build into the "cwbvh" layout (kernels/traversal/bvh_cwbvh.h): the SAH-optimal
// collapse of Ylitie, Karras & Laine (HPG 2017), octant-ordered child slots, 8-bit child boxes.
#pragma once

#include <cstdint>
#include <vector>

#include "render/bvh/bvh_build.h"
#include "kernels/traversal/bvh_cwbvh.h"

namespace pkrt {

struct CwbvhCostModel {
    // A node visit costs 1 and a triangle test as much: the paper's 0.3 made larger leaves, and frames
    // 3-4% slower on an H100 (BENCHMARKS.md, session 27). A leaf holds at most kCwbvhMaxLeafSize
    // triangles, so the binary tree's leaves must be no larger (bvh_build_options).
    float node_cost = 1.0f;
    float triangle_cost = 1.0f;
};

struct CwbvhResult {
    std::vector<CwbvhNode> nodes;  // nodes[0] is the root
    // order[i] = original index of the triangle in slot i: the binary tree's order regrouped so that
    // each node's leaf triangles are contiguous.
    std::vector<uint32_t> order;
    int depth = 0;  // deepest node, the root being 1 (the traversal stack needs at most twice this many)
};

// Throws Error if a binary leaf holds more than kCwbvhMaxLeafSize triangles.
CwbvhResult convert_to_cwbvh(const BinaryBvh& bvh, const CwbvhCostModel& cost = {});

}  // namespace pkrt
