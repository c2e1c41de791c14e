// Bin keys for bounce rays (ray_order=binned, relaunch and graph): rays of one key start in the same
// region of the scene heading into the same octant, so a warp of them walks more of the same BVH nodes.
// The key is what tests/bvh/coherence_bench found best for its cost (BENCHMARKS.md, issue 30): the
// direction's octant, then the Morton code of the origin's cell in a 16^3 grid over the scene's box.
#pragma once

#include "kernels/traversal/bvh_cwbvh.h"

namespace pkrt {

// The scene's box from the BVH's root (bvh2: the union of its two children; cwbvh: its grid).
__device__ __forceinline__ void bin_scene_box(const BvhView& bvh, Vec3& lo, Vec3& hi) {
    lo = Vec3{0.f, 0.f, 0.f};
    hi = Vec3{1.f, 1.f, 1.f};
    if (bvh.num_nodes <= 0) return;
    if (bvh.layout == BvhViewLayout::kBvh2) {
        const float4* r = reinterpret_cast<const float4*>(bvh.nodes);
        float4 a = __ldg(r), b = __ldg(r + 1), c = __ldg(r + 2);  // x/y of left, x/y of right, z of both
        lo = Vec3{fminf(a.x, b.x), fminf(a.z, b.z), fminf(c.x, c.z)};
        hi = Vec3{fmaxf(a.y, b.y), fmaxf(a.w, b.w), fmaxf(c.y, c.w)};
    } else {
        uint32_t q[4];
        load_cwbvh_row(bvh.wide_nodes, 0, 0, q);
        lo = Vec3{__uint_as_float(q[0]), __uint_as_float(q[1]), __uint_as_float(q[2])};
        hi = Vec3{lo.x + 255.f * cwbvh_scale(q[3]), lo.y + 255.f * cwbvh_scale(q[3] >> 8),
                  lo.z + 255.f * cwbvh_scale(q[3] >> 16)};
    }
}

__device__ __forceinline__ uint32_t bin_cell(float x, float lo, float hi) {
    float f = (x - lo) * (16.f / fmaxf(hi - lo, 1e-30f));
    return static_cast<uint32_t>(fminf(fmaxf(f, 0.f), 15.f));  // NaN -> 0
}

// Four bits to every third bit (0, 3, 6, 9).
__device__ __forceinline__ uint32_t bin_spread(uint32_t v) {
    return (v & 1) | (v & 2) << 2 | (v & 4) << 4 | (v & 8) << 6;
}

// At most 0x7fff; 0xffff marks a slot past the count.
__device__ __forceinline__ uint16_t ray_bin_key(const Vec3& lo, const Vec3& hi, const Vec3& o, const Vec3& d) {
    uint32_t octant = (d.x < 0.f ? 4u : 0u) | (d.y < 0.f ? 2u : 0u) | (d.z < 0.f ? 1u : 0u);
    uint32_t morton = bin_spread(bin_cell(o.x, lo.x, hi.x)) << 2 | bin_spread(bin_cell(o.y, lo.y, hi.y)) << 1 |
                      bin_spread(bin_cell(o.z, lo.z, hi.z));
    return static_cast<uint16_t>(octant << 12 | morton);
}

}  // namespace pkrt
