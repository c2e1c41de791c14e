// The "bvh2" BVH layout and its traversal, shared by the CPU backend and the CUDA kernels. The host
// converts its layout-free build into this (render/bvh/bvh_layout.h); kernels/ depends on nothing there.
//
// Layout: "BVH2 with child boxes in the parent" (Aila & Laine 2009). A node holds the bounds of both
// of its children and their references, 64 bytes = four 16-byte rows, so one node fetch (four
// coalescable vector loads on the GPU) is enough to test both children and order them; the children
// themselves are fetched only if entered. Leaves are not nodes: a child reference < 0 names a run of
// triangles stored contiguously (triangles are permuted into BVH order at build time), so a leaf costs
// no extra fetch before its triangles. References are stored as the traversal stack holds them
// (bvh2_leaf_ref), so a node visit spends no instruction decoding them; an empty child is a leaf of
// no triangles.
#pragma once

#include "kernels/traversal/triangle.h"

namespace pkrt {

struct alignas(16) BvhNode {
    // Row 0 and 1: x/y extents of the left and right child; row 2: z extents of both.
    float lmin_x, lmax_x, lmin_y, lmax_y;
    float rmin_x, rmax_x, rmin_y, rmax_y;
    float lmin_z, lmax_z, rmin_z, rmax_z;
    // Row 3: child references (>= 0: inner node index, < 0: a leaf, bvh2_leaf_ref) and two unused words.
    int32_t left, right;
    int32_t unused[2];
};
static_assert(sizeof(BvhNode) == 64, "BvhNode must stay four 16-byte rows");

struct CwbvhNode;  // kernels/traversal/bvh_cwbvh.h

// Which node array a BvhView's traversal reads (kernels/traversal/bvh_traverse.h dispatches on it).
enum class BvhViewLayout : int32_t { kBvh2 = 0, kCwbvh = 1 };

// 24 bytes whatever the layout: the view is a by-value argument of the out-of-line traversal calls
// (kernels/gpu/persistent.cu), and every byte more there is a register more at each call site.
struct BvhView {
    union {
        const BvhNode* nodes;         // kBvh2
        const CwbvhNode* wide_nodes;  // kCwbvh
    };
    const TriVerts* tris;
    int32_t num_nodes;     // nodes of whichever layout the view holds
    BvhViewLayout layout;  // which member of the union is set
};

// Slab test against a box given as extents; returns the entry distance or +inf on a miss.
// tmax is widened by 1 + 2*gamma(3) (Ize 2013) so that float rounding never shrinks a box past a ray
// that the watertight triangle test would hit.
PKRT_HD float intersect_box(Vec3 o_scaled, Vec3 inv_d, float bx0, float bx1, float by0, float by1, float bz0, float bz1,
                            float tmin, float tmax) {
    float tx0 = bx0 * inv_d.x - o_scaled.x, tx1 = bx1 * inv_d.x - o_scaled.x;
    float ty0 = by0 * inv_d.y - o_scaled.y, ty1 = by1 * inv_d.y - o_scaled.y;
    float tz0 = bz0 * inv_d.z - o_scaled.z, tz1 = bz1 * inv_d.z - o_scaled.z;
    float t_near = max_num(max_num(min_num(tx0, tx1), min_num(ty0, ty1)), max_num(min_num(tz0, tz1), tmin));
    float t_far = min_num(min_num(max_num(tx0, tx1), max_num(ty0, ty1)), min_num(max_num(tz0, tz1), tmax));
    return t_near <= t_far * 1.0000004f ? t_near : kInfinity;
}

PKRT_HD Vec3 safe_inverse(Vec3 d) {
    // A zero component would give inf * 0 = NaN at a slab through the origin; a huge finite value
    // keeps the slab test exact enough and NaN-free.
    const float big = 1e30f;
    return {fabsf(d.x) > 1e-30f ? 1.0f / d.x : copysignf(big, d.x),
            fabsf(d.y) > 1e-30f ? 1.0f / d.y : copysignf(big, d.y),
            fabsf(d.z) > 1e-30f ? 1.0f / d.z : copysignf(big, d.z)};
}

PKRT_HD void load_node(const BvhNode* nodes, int32_t i, BvhNode& n) {
#if defined(__CUDA_ARCH__)
    const float4* p = reinterpret_cast<const float4*>(nodes + i);
    float4 r0 = __ldg(p), r1 = __ldg(p + 1), r2 = __ldg(p + 2);
    int4 r3 = __ldg(reinterpret_cast<const int4*>(p + 3));
    n = BvhNode{r0.x, r0.y, r0.z, r0.w, r1.x, r1.y, r1.z, r1.w, r2.x, r2.y, r2.z, r2.w, r3.x, r3.y, r3.z, r3.w};
#else
    n = nodes[i];
#endif
}

// A triangle's three vertex rows, with the spare words that hold its coverage rule (kernels/traversal/cutout.h).
PKRT_HD void load_tri(const TriVerts* tris, int32_t i, Vec3& p0, Vec3& p1, Vec3& p2, int32_t& rule, float& cutoff,
                      float& factor) {
#if defined(__CUDA_ARCH__)
    const float4* p = reinterpret_cast<const float4*>(tris + i);
    float4 a = __ldg(p), b = __ldg(p + 1), c = __ldg(p + 2);
    p0 = {a.x, a.y, a.z};
    p1 = {b.x, b.y, b.z};
    p2 = {c.x, c.y, c.z};
    rule = __float_as_int(a.w);
    cutoff = b.w;
    factor = c.w;
#else
    p0 = tris[i].v0;
    p1 = tris[i].v1;
    p2 = tris[i].v2;
    rule = float_as_int_bits(tris[i].pad0);
    cutoff = tris[i].pad1;
    factor = tris[i].pad2;
#endif
}

// The vertices alone: the same three loads, the rule's words left unused (compiled away).
PKRT_HD void load_tri(const TriVerts* tris, int32_t i, Vec3& p0, Vec3& p1, Vec3& p2) {
    int32_t rule;
    float cutoff, factor;
    load_tri(tris, i, p0, p1, p2, rule, cutoff, factor);
}

// A leaf as a child reference and a traversal stack entry: ~(first << 4 | count), so one 32-bit stack
// serves inner nodes and leaves (leaves hold at most kMaxLeafSize triangles; at most 2^27 triangles).
constexpr int kMaxLeafSize = 15;
constexpr int32_t kMaxTriangles = 1 << 27;

PKRT_HD int32_t bvh2_leaf_ref(int32_t first, int32_t count) { return ~((first << 4) | count); }
PKRT_HD int32_t bvh2_leaf_first(int32_t ref) { return (~ref) >> 4; }
PKRT_HD int32_t bvh2_leaf_count(int32_t ref) { return (~ref) & 15; }

// What a traversal does, pass by pass, for tools that study it (tests/bvh/coherence_bench.cpp): a node
// visited, or a leaf of `triangles` tested. The default records nothing and compiles to nothing.
struct NoTraversalSteps {
    PKRT_HD void node() const {}
    PKRT_HD void leaf(int32_t triangles) const { (void)triangles; }
};

// Closest hit in (tmin, tmax), or any hit when kAnyHit (shadow rays: stop at the first occluder), among
// the hits that `surfaces` says cover (kernels/traversal/cutout.h). For any-hit queries only hit.prim >= 0 matters.
//
// One node or one leaf per pass ("if-if"). Aila & Laine's speculative while-while (inner nodes in a
// loop of their own, leaves postponed until every lane of the warp holds one) measured 4-18% slower on
// the H200 in every mode (BENCHMARKS.md, session 6).
template <bool kAnyHit, class Surfaces, class Steps = NoTraversalSteps>
PKRT_HD Hit traverse_bvh(const BvhView& bvh, const Ray& ray, float tmin, float tmax, const Surfaces& surfaces,
                         const Steps& steps = Steps{}) {
    Hit hit = no_hit();
    hit.t = tmax;
    if (bvh.num_nodes == 0) return hit;
    WatertightRay w = make_watertight_ray(ray.d);
    Vec3 inv_d = safe_inverse(ray.d);
    Vec3 o_scaled = ray.o * inv_d;
    int32_t stack[kMaxTraversalStack];
    int sp = 0;
    int32_t entry = 0;  // the root is an inner node
    for (;;) {
        if (entry >= 0) {
            steps.node();
            BvhNode n;
            load_node(bvh.nodes, entry, n);
            float tl =
                intersect_box(o_scaled, inv_d, n.lmin_x, n.lmax_x, n.lmin_y, n.lmax_y, n.lmin_z, n.lmax_z, tmin, hit.t);
            float tr =
                intersect_box(o_scaled, inv_d, n.rmin_x, n.rmax_x, n.rmin_y, n.rmax_y, n.rmin_z, n.rmax_z, tmin, hit.t);
            bool hl = tl < kInfinity, hr = tr < kInfinity;
            if (hl && hr) {
                bool right_first = tr < tl;  // nearer child first
                entry = right_first ? n.right : n.left;
                stack[sp++] = right_first ? n.left : n.right;
                continue;
            }
            if (hl || hr) {
                entry = hl ? n.left : n.right;
                continue;
            }
        } else {
            int32_t first = bvh2_leaf_first(entry), end = first + bvh2_leaf_count(entry);
            steps.leaf(end - first);
            for (int32_t i = first; i < end; ++i) {
                Vec3 p0, p1, p2;
                int32_t rule;
                float cutoff, factor;
                load_tri(bvh.tris, i, p0, p1, p2, rule, cutoff, factor);
                float t, u, v;
                if (intersect_triangle(w, ray.o, p0, p1, p2, tmin, t, u, v, hit.t) &&
                    surfaces.covers(i, rule, cutoff, factor, u, v, ray)) {
                    hit.t = t;
                    hit.u = u;
                    hit.v = v;
                    hit.prim = i;
                    if (kAnyHit) return hit;
                }
            }
        }
        if (sp == 0) break;
        entry = stack[--sp];
    }
    return hit;
}

}  // namespace pkrt
