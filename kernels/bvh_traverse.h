// The ray queries every scheduler calls, over a BVH layout (kernels/bvh.h, kernels/bvh_cwbvh.h).
//
// The GPU kernels are built once per layout and pick the build at launch (closest_hit<L>, any_hit<L>):
// with both traversals behind a runtime branch in one kernel, bvh2's own kernels grew (wf_shadow 46 -> 54
// registers, the 48-register persistent build 418 -> 454 bytes of spills), since a kernel is allocated
// registers for the hungrier of the two loops. The host (CPU backend, tests, tools) reads the layout
// from the view at run time: intersect_closest and occluded, which device code never calls.
#pragma once

#include "bvh.h"
#include "bvh_cwbvh.h"

namespace pkrt {

template <BvhViewLayout L>
PKRT_HD Hit closest_hit(const BvhView& bvh, const Ray& ray, float tmax = kInfinity) {
    if constexpr (L == BvhViewLayout::kCwbvh) return traverse_cwbvh<false>(bvh.wide_nodes, bvh.tris, bvh.num_nodes, ray, 0.0f, tmax);
    else return traverse_bvh<false>(bvh, ray, 0.0f, tmax);
}

template <BvhViewLayout L>
PKRT_HD bool any_hit(const BvhView& bvh, const Ray& ray, float tmax) {
    if constexpr (L == BvhViewLayout::kCwbvh) return traverse_cwbvh<true>(bvh.wide_nodes, bvh.tris, bvh.num_nodes, ray, 0.0f, tmax).prim >= 0;
    else return traverse_bvh<true>(bvh, ray, 0.0f, tmax).prim >= 0;
}

inline Hit intersect_closest(const BvhView& bvh, const Ray& ray, float tmax = kInfinity) {
    return bvh.layout == BvhViewLayout::kCwbvh ? closest_hit<BvhViewLayout::kCwbvh>(bvh, ray, tmax)
                                               : closest_hit<BvhViewLayout::kBvh2>(bvh, ray, tmax);
}

inline bool occluded(const BvhView& bvh, const Ray& ray, float tmax) {
    return bvh.layout == BvhViewLayout::kCwbvh ? any_hit<BvhViewLayout::kCwbvh>(bvh, ray, tmax)
                                               : any_hit<BvhViewLayout::kBvh2>(bvh, ray, tmax);
}

}  // namespace pkrt
