// Binned SAH BVH build on all cores, producing the two-children-per-node layout of kernels/bvh.h.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/bvh.h"

namespace pkrt {

struct BvhBuildOptions {
    int bins = 32;
    int max_leaf_size = 8;
    float traversal_cost = 1.0f;     // SAH cost of one node visit, relative to one triangle test
};

struct BvhBuildResult {
    std::vector<BvhNode> nodes;
    std::vector<uint32_t> order;  // order[i] = original index of the triangle that goes to slot i
    int depth = 0;                // deepest leaf; traversal's stack must hold this many entries
    size_t leaves = 0;
};

BvhBuildResult build_bvh(const std::vector<TriVerts>& tris, const BvhBuildOptions& options = {});

}  // namespace pkrt
