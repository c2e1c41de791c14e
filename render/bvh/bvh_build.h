// Binned SAH BVH build on all cores. The result is a plain binary tree that says nothing about how
// the GPU stores it: render/bvh/bvh_layout.h converts it into each traversal layout.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/traversal/triangle.h"

namespace pkrt {

// The bin of centroid coordinate c among `bins` over [lo, lo + extent], extent > 0. Clamped as a float,
// before the conversion: near the float range c - lo or the extent overflows to infinity and the ratio
// is NaN or huge, which converted to int is undefined (the PLY fuzzer found one such mesh).
inline int centroid_bin(float c, float lo, float extent, int bins) {
    float t = static_cast<float>(bins) * ((c - lo) / extent);
    if (!(t > 0.0f)) return 0;
    if (t >= static_cast<float>(bins - 1)) return bins - 1;
    return static_cast<int>(t);
}

struct Aabb {
    Vec3 lo{kInfinity, kInfinity, kInfinity};
    Vec3 hi{-kInfinity, -kInfinity, -kInfinity};
    void grow(Vec3 p) {
        lo = vmin(lo, p);
        hi = vmax(hi, p);
    }
    void grow(const Aabb& b) {
        lo = vmin(lo, b.lo);
        hi = vmax(hi, b.hi);
    }
    bool empty() const { return lo.x > hi.x; }
    float area() const {
        if (empty()) return 0.0f;
        Vec3 e = hi - lo;
        return 2.0f * (e.x * e.y + e.y * e.z + e.z * e.x);
    }
};

struct BvhBuildOptions {
    int bins = 32;
    int max_leaf_size = 8;
    float traversal_cost = 1.0f;  // SAH cost of one node visit, relative to one triangle test
    // Triangle pre-splitting (render/bvh/bvh_presplit.h): up to this many extra references per triangle,
    // on average, for triangles with large boxes. 0: none; every triangle is one reference.
    float split_budget = 0.0f;
    // Spatial splits (render/bvh/bvh_sbvh.h) where the object split's children overlap by more than
    // sbvh_alpha of the root's surface area. Not with split_budget.
    bool spatial_splits = false;
    float sbvh_alpha = 1e-5f;
};

// Exact bounds, unpadded: padding is a property of a layout's box test, so the conversion adds it.
struct BinaryBvhNode {
    Aabb box;
    int32_t left = -1, right = -1;  // child node indices; -1 for a leaf
    // The subtree's triangles: slots [first, first + count) of the order, split between the children
    // as [first, mid) and [mid, first + count), so a layout may collapse any subtree into one leaf.
    uint32_t first = 0, count = 0;
    bool is_leaf() const { return left < 0; }
};

// For builders: numbers the triangle slots depth first from `node` down, each leaf's triangles (what
// `append_leaf(leaf, out)` adds to `out`) taking the next ones, so every subtree's slots are contiguous,
// and rewrites each node's range to its slots.
template <class AppendLeaf>
void assign_leaf_slots(std::vector<BinaryBvhNode>& nodes, int32_t node, std::vector<uint32_t>& out,
                       const AppendLeaf& append_leaf) {
    uint32_t first = static_cast<uint32_t>(out.size());
    if (nodes[node].is_leaf()) {
        append_leaf(node, out);
    } else {
        int32_t left = nodes[node].left, right = nodes[node].right;
        assign_leaf_slots(nodes, left, out, append_leaf);
        assign_leaf_slots(nodes, right, out, append_leaf);
    }
    nodes[node].first = first;
    nodes[node].count = static_cast<uint32_t>(out.size()) - first;
}

// nodes[0] is the root. Apart from that the node order is unspecified (parallel subtrees allocate
// nodes as they go), so a layout must walk the tree rather than copy the array.
struct BinaryBvh {
    std::vector<BinaryBvhNode> nodes;
    // order[i] = original index of the triangle that goes to slot i. A permutation, except with
    // split_budget > 0: a split triangle then fills a slot per reference (its pieces' leaves).
    std::vector<uint32_t> order;
    int depth = 0;  // deepest leaf, the root being depth 0
    size_t leaves = 0;
};

// Throws Error on zero triangles, more than kMaxTriangles, or a leaf size the layouts cannot hold
// (kMaxLeafSize: bvh2 packs a leaf's count into four bits of a stack entry).
BinaryBvh build_bvh(const std::vector<TriVerts>& tris, const BvhBuildOptions& options = {});

// The tree's SAH cost: node visits (traversal_cost each) and triangle tests, weighted by the
// probability that a ray through the root's box passes through each node's box (area ratio).
double bvh_sah_cost(const BinaryBvh& bvh, float traversal_cost = 1.0f);

}  // namespace pkrt
