// The ray queries every scheduler calls, over whichever BVH layout the view holds. The branch is
// uniform across a launch (one scene, one layout), so it costs the GPU a predictable jump per ray;
// each layout's traversal stays its own code (kernels/bvh.h, kernels/bvh_cwbvh.h). Both are inlined:
// making cwbvh's a call (so that it could not touch bvh2's register allocation) cost more registers
// through the call's ABI (54 against 48 in a bare closest-hit kernel, sm_90) than inlining does.
#pragma once

#include "bvh.h"
#include "bvh_cwbvh.h"

namespace pkrt {

PKRT_HD Hit intersect_closest(const BvhView& bvh, const Ray& ray, float tmax = kInfinity) {
    if (bvh.layout == BvhViewLayout::kCwbvh) return traverse_cwbvh<false>(bvh.wide_nodes, bvh.tris, bvh.num_nodes, ray, 0.0f, tmax);
    return traverse_bvh<false>(bvh, ray, 0.0f, tmax);
}

PKRT_HD bool occluded(const BvhView& bvh, const Ray& ray, float tmax) {
    if (bvh.layout == BvhViewLayout::kCwbvh) return traverse_cwbvh<true>(bvh.wide_nodes, bvh.tris, bvh.num_nodes, ray, 0.0f, tmax).prim >= 0;
    return traverse_bvh<true>(bvh, ray, 0.0f, tmax).prim >= 0;
}

}  // namespace pkrt
