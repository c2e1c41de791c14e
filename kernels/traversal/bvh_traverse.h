// The ray queries every scheduler calls, over a BVH layout (kernels/traversal/bvh.h, kernels/traversal/bvh_cwbvh.h), among
// the surfaces a coverage policy keeps (kernels/traversal/cutout.h: OpaqueSurfaces, the default, or CutoutSurfaces).
//
// The GPU kernels are built once per layout and pick the build at launch (closest_hit<L>, any_hit<L>):
// with both traversals behind a runtime branch in one kernel, bvh2's own kernels grew (wf_shadow 46 -> 54
// registers, the 48-register persistent build 418 -> 454 bytes of spills), since a kernel is allocated
// registers for the hungrier of the two loops. The host (CPU backend, tests, tools) reads the layout
// from the view at run time: intersect_closest and occluded, which device code never calls.
#pragma once

#include "kernels/traversal/bvh.h"
#include "kernels/traversal/bvh_cwbvh.h"
#include "kernels/traversal/cutout.h"

namespace pkrt {

template <BvhViewLayout L, class Surfaces = OpaqueSurfaces>
PKRT_HD Hit closest_hit(const BvhView& bvh, const Ray& ray, float tmax = kInfinity, const Surfaces& surfaces = {}) {
    if constexpr (L == BvhViewLayout::kCwbvh)
        return traverse_cwbvh<false>(bvh.wide_nodes, bvh.tris, bvh.num_nodes, ray, 0.0f, tmax, surfaces);
    else return traverse_bvh<false>(bvh, ray, 0.0f, tmax, surfaces);
}

template <BvhViewLayout L, class Surfaces = OpaqueSurfaces>
PKRT_HD bool any_hit(const BvhView& bvh, const Ray& ray, float tmax, const Surfaces& surfaces = {}) {
    if constexpr (L == BvhViewLayout::kCwbvh)
        return traverse_cwbvh<true>(bvh.wide_nodes, bvh.tris, bvh.num_nodes, ray, 0.0f, tmax, surfaces).prim >= 0;
    else return traverse_bvh<true>(bvh, ray, 0.0f, tmax, surfaces).prim >= 0;
}

template <class Surfaces = OpaqueSurfaces>
inline Hit intersect_closest(const BvhView& bvh, const Ray& ray, float tmax = kInfinity,
                             const Surfaces& surfaces = {}) {
    return bvh.layout == BvhViewLayout::kCwbvh ? closest_hit<BvhViewLayout::kCwbvh>(bvh, ray, tmax, surfaces)
                                               : closest_hit<BvhViewLayout::kBvh2>(bvh, ray, tmax, surfaces);
}

template <class Surfaces = OpaqueSurfaces>
inline bool occluded(const BvhView& bvh, const Ray& ray, float tmax, const Surfaces& surfaces = {}) {
    return bvh.layout == BvhViewLayout::kCwbvh ? any_hit<BvhViewLayout::kCwbvh>(bvh, ray, tmax, surfaces)
                                               : any_hit<BvhViewLayout::kBvh2>(bvh, ray, tmax, surfaces);
}

}  // namespace pkrt
