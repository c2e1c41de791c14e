// The ray queries every scheduler calls, over whichever BVH layout the view holds (kernels/bvh.h,
// kernels/bvh_cwbvh.h). On the CPU the layout is a branch. The GPU kernels are built for bvh2 only for
// now: with both traversals in one kernel, bvh2's own kernels grew (wf_shadow 46 -> 54 registers, the
// 48-register persistent build 418 -> 454 bytes of spills), and the fix is one build of each kernel
// per layout, picked at launch. Until then the CUDA backend refuses other layouts
// (render/cuda/device_scene.cpp). A call instead of inlining cost more registers still (54 against 48
// in a bare closest-hit kernel, sm_90).
#pragma once

#include "bvh.h"
#include "bvh_cwbvh.h"

namespace pkrt {

PKRT_HD Hit intersect_closest(const BvhView& bvh, const Ray& ray, float tmax = kInfinity) {
#if !defined(__CUDA_ARCH__)
    if (bvh.layout == BvhViewLayout::kCwbvh) return traverse_cwbvh<false>(bvh.wide_nodes, bvh.tris, bvh.num_nodes, ray, 0.0f, tmax);
#endif
    return traverse_bvh<false>(bvh, ray, 0.0f, tmax);
}

PKRT_HD bool occluded(const BvhView& bvh, const Ray& ray, float tmax) {
#if !defined(__CUDA_ARCH__)
    if (bvh.layout == BvhViewLayout::kCwbvh) return traverse_cwbvh<true>(bvh.wide_nodes, bvh.tris, bvh.num_nodes, ray, 0.0f, tmax).prim >= 0;
#endif
    return traverse_bvh<true>(bvh, ray, 0.0f, tmax).prim >= 0;
}

}  // namespace pkrt
