// The "cwbvh" BVH layout and its traversal: an 8-wide BVH with child boxes compressed to 8 bits per
// plane (Ylitie, Karras & Laine, "Efficient Incoherent Ray Traversal on GPUs Through Compressed Wide
// BVHs", HPG 2017). The host converts the binary build into it (render/bvh/bvh_cwbvh.h).
//
// An 80-byte node (five 16-byte rows) holds all eight child boxes, so one fetch tests eight children
// where bvh2 needs three to four fetches for the same subtree; that, and 80 bytes for up to eight
// children instead of 64 for two, is where the speed and memory come from. Child boxes are stored as
// integers q on a per-node grid, bound = origin + q * 2^exp on each axis, rounded outwards by the
// conversion so the decoded box always contains the (ulp-padded, as bvh2's) exact one.
//
// Leaves are not nodes: a leaf child names up to three triangles at an offset from the node's
// triangle base (each node's leaf triangles are contiguous). Inner children of a node are contiguous
// from its child base, in slot order, so the child in slot s is at child_base + (inner slots below s).
//
// Slots are assigned by the conversion so that a ray whose direction signs form octant o (bit 2: x < 0,
// bit 1: y < 0, bit 0: z < 0) meets the children roughly front to back when it visits slots in the
// order o, o^1, o^2, ... That order is what the hit mask below encodes: a hit inner child in slot s
// sets bit 24 + (s ^ (7 - o)), so taking the highest set bit first walks slots in that order.
#pragma once

#include <cstring>

#include "kernels/traversal/bvh.h"

namespace pkrt {

struct alignas(16) CwbvhNode {
    // Row 0: the grid origin, per-axis exponents, and which slots hold inner nodes (bit s: slot s).
    float origin_x, origin_y, origin_z;
    int8_t exp_x, exp_y, exp_z;
    uint8_t imask;
    // Row 1. meta per slot: 0 = empty; inner node: 0b001'11sss (s = slot); leaf: its triangle count in
    // unary in bits 5-7 (0b001, 0b011, 0b111) and its offset from tri_base (0..23) in bits 0-4.
    uint32_t child_base;
    uint32_t tri_base;
    uint8_t meta[8];
    // Rows 2-4: child boxes, per slot.
    uint8_t lo_x[8], lo_y[8], lo_z[8];
    uint8_t hi_x[8], hi_y[8], hi_z[8];
};
static_assert(sizeof(CwbvhNode) == 80, "CwbvhNode must stay five 16-byte rows");

constexpr int kCwbvhMaxLeafSize = 3;  // three unary bits in a child's meta byte

// Row r (0-4) of node i as four words (on the GPU one 16-byte load). The traversal loads rows 0-1
// before rows 2-4, so that only part of the node is live in registers at a time.
PKRT_HD void load_cwbvh_row(const CwbvhNode* nodes, uint32_t i, int r, uint32_t (&q)[4]) {
#if defined(__CUDA_ARCH__)
    uint4 v = __ldg(reinterpret_cast<const uint4*>(nodes + i) + r);
    q[0] = v.x;
    q[1] = v.y;
    q[2] = v.z;
    q[3] = v.w;
#else
    std::memcpy(q, reinterpret_cast<const unsigned char*>(nodes + i) + 16 * r, 16);
#endif
}

PKRT_HD uint32_t cwbvh_highest_bit(uint32_t x) {  // x != 0
#if defined(__CUDA_ARCH__)
    return 31u - static_cast<uint32_t>(__clz(x));
#else
    return 31u - static_cast<uint32_t>(__builtin_clz(x));
#endif
}

PKRT_HD uint32_t cwbvh_lowest_bit(uint32_t x) {  // x != 0
#if defined(__CUDA_ARCH__)
    return static_cast<uint32_t>(__ffs(x)) - 1u;
#else
    return static_cast<uint32_t>(__builtin_ctz(x));
#endif
}

PKRT_HD uint32_t cwbvh_popcount(uint32_t x) {
#if defined(__CUDA_ARCH__)
    return static_cast<uint32_t>(__popc(x));
#else
    return static_cast<uint32_t>(__builtin_popcount(x));
#endif
}

// 2^e for an exponent the conversion keeps within the normal floats.
PKRT_HD float cwbvh_scale(uint32_t exp_byte) {
    int32_t e = static_cast<int8_t>(exp_byte & 0xffu);
    return int_as_float_bits((e + 127) << 23);
}

PKRT_HD float cwbvh_byte(uint32_t word, int k) { return static_cast<float>((word >> (8 * k)) & 0xffu); }

// What a node visit yields: the hit mask (bits 24-31 for inner children, slot order permuted by the
// octant, see above; bits 0-23 for the triangles of hit leaves) and the node's bases and imask.
struct CwbvhVisit {
    uint32_t hits, child_base, tri_base, imask;
};

// Tests node i's eight children. The slab test is bvh2's (kernels/traversal/bvh.h: intersect_box), with the box
// bound written as (origin - o) / d + q * (2^exp / d), and the same 1 + 2*gamma(3) widening of t_far.
// Where bvh2 takes min and max of a slab's two distances, the near and far planes are picked once per
// node by the sign of the direction: rounding is monotonic, so the result is the same for less work.
PKRT_HD CwbvhVisit cwbvh_intersect_children(const CwbvhNode* nodes, uint32_t i, Vec3 ray_o, Vec3 inv_d,
                                            uint32_t oct_inv, float tmin, float tmax) {
    uint32_t r0[4], r1[4];
    load_cwbvh_row(nodes, i, 0, r0);
    load_cwbvh_row(nodes, i, 1, r1);
    Vec3 org{int_as_float_bits(static_cast<int32_t>(r0[0])), int_as_float_bits(static_cast<int32_t>(r0[1])),
             int_as_float_bits(static_cast<int32_t>(r0[2]))};
    Vec3 adj_o = (org - ray_o) * inv_d;
    Vec3 adj_d{cwbvh_scale(r0[3]) * inv_d.x, cwbvh_scale(r0[3] >> 8) * inv_d.y, cwbvh_scale(r0[3] >> 16) * inv_d.z};
    CwbvhVisit out{0u, r1[0], r1[1], r0[3] >> 24};
    uint32_t meta[2] = {r1[2], r1[3]};
    // Rows 2-4: lo_x, lo_y | lo_z, hi_x | hi_y, hi_z, two words (slots 0-3, 4-7) each. Near and far
    // words per axis; oct_inv has a bit set for each positive direction component (x: 4, y: 2, z: 1).
    uint32_t r2[4], r3[4], r4[4];
    load_cwbvh_row(nodes, i, 2, r2);
    load_cwbvh_row(nodes, i, 3, r3);
    load_cwbvh_row(nodes, i, 4, r4);
    bool px = oct_inv & 4u, py = oct_inv & 2u, pz = oct_inv & 1u;
    uint32_t near_x[2] = {px ? r2[0] : r3[2], px ? r2[1] : r3[3]}, far_x[2] = {px ? r3[2] : r2[0], px ? r3[3] : r2[1]};
    uint32_t near_y[2] = {py ? r2[2] : r4[0], py ? r2[3] : r4[1]}, far_y[2] = {py ? r4[0] : r2[2], py ? r4[1] : r2[3]};
    uint32_t near_z[2] = {pz ? r3[0] : r4[2], pz ? r3[1] : r4[3]}, far_z[2] = {pz ? r4[2] : r3[0], pz ? r4[3] : r3[1]};
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int s = 0; s < 8; ++s) {
        int h = s >> 2, k = s & 3;  // word half and byte within the word
        uint32_t m = (meta[h] >> (8 * k)) & 0xffu;
        if (m == 0) continue;  // empty slot
        float t_near =
            max_num(max_num(cwbvh_byte(near_x[h], k) * adj_d.x + adj_o.x, cwbvh_byte(near_y[h], k) * adj_d.y + adj_o.y),
                    max_num(cwbvh_byte(near_z[h], k) * adj_d.z + adj_o.z, tmin));
        float t_far =
            min_num(min_num(cwbvh_byte(far_x[h], k) * adj_d.x + adj_o.x, cwbvh_byte(far_y[h], k) * adj_d.y + adj_o.y),
                    min_num(cwbvh_byte(far_z[h], k) * adj_d.z + adj_o.z, tmax));
        if (t_near <= t_far * 1.0000004f) {
            uint32_t index = m & 31u;
            if (index >= 24u) index ^= oct_inv;  // inner: 24 + slot, permuted within 24..31
            out.hits |= (m >> 5) << index;
        }
    }
    return out;
}

// Closest hit in (tmin, tmax), or any hit when kAnyHit; same contract as traverse_bvh (kernels/traversal/bvh.h).
// The stack holds node groups: a node's child base, and in one word the hit bits of its inner children
// not yet visited (24-31) beside its imask (0-7). A node visit pushes at most one group, so the stack
// never outgrows the tree's depth (the conversion keeps that within kMaxTraversalStack). Triangle
// groups are tested as soon as they are found, before the node's inner children, shortening t early.
template <bool kAnyHit, class Surfaces>
PKRT_HD Hit traverse_cwbvh(const CwbvhNode* nodes, const TriVerts* tris, int32_t num_nodes, const Ray& ray, float tmin,
                           float tmax, const Surfaces& surfaces) {
    Hit hit = no_hit();
    hit.t = tmax;
    if (num_nodes == 0) return hit;
    WatertightRay wr = make_watertight_ray(ray.d);
    Vec3 inv_d = safe_inverse(ray.d);
    // The octant from inv_d's signs, not d's: a -0 component has a negative inverse, and the slab
    // test picks near and far planes by these bits.
    uint32_t oct_inv = 7u - ((inv_d.x < 0.0f ? 4u : 0u) | (inv_d.y < 0.0f ? 2u : 0u) | (inv_d.z < 0.0f ? 1u : 0u));
    uint32_t stack_base[kMaxTraversalStack], stack_mask[kMaxTraversalStack];
    int sp = 0;
    // The root as a group of one: its only hit bit is the first one visited, imask 0 so it is child 0.
    uint32_t group_base = 0, group_mask = 1u << 31;
    for (;;) {
        uint32_t tri_base = 0, tri_hits = 0;
        if (group_mask & 0xff000000u) {
            uint32_t bit = cwbvh_highest_bit(group_mask & 0xff000000u);
            group_mask &= ~(1u << bit);
            uint32_t slot = (bit - 24u) ^ oct_inv;
            uint32_t child = group_base + cwbvh_popcount(group_mask & ((1u << slot) - 1u) & 0xffu);
            if (group_mask & 0xff000000u) {
                stack_base[sp] = group_base;
                stack_mask[sp] = group_mask;
                ++sp;
            }
            CwbvhVisit v = cwbvh_intersect_children(nodes, child, ray.o, inv_d, oct_inv, tmin, hit.t);
            group_base = v.child_base;
            group_mask = (v.hits & 0xff000000u) | v.imask;
            tri_base = v.tri_base;
            tri_hits = v.hits & 0x00ffffffu;
        }
        while (tri_hits) {
            uint32_t i = tri_base + cwbvh_lowest_bit(tri_hits);
            tri_hits &= tri_hits - 1u;
            Vec3 p0, p1, p2;
            int32_t rule;
            float cutoff, factor;
            load_tri(tris, static_cast<int32_t>(i), p0, p1, p2, rule, cutoff, factor);
            float t, u, v;
            if (intersect_triangle(wr, ray.o, p0, p1, p2, tmin, t, u, v, hit.t) &&
                surfaces.covers(static_cast<int32_t>(i), rule, cutoff, factor, u, v, ray)) {
                hit.t = t;
                hit.prim = static_cast<int32_t>(i);
                if (kAnyHit) return hit;
            }
        }
        if (!(group_mask & 0xff000000u)) {
            if (sp == 0) break;
            --sp;
            group_base = stack_base[sp];
            group_mask = stack_mask[sp];
        }
    }
    // Barycentrics are not carried through the loop (two registers fewer while boxes are tested): the
    // test is deterministic, so redoing it on the closest triangle gives the same t, u and v.
    if (hit.prim >= 0) {
        Vec3 p0, p1, p2;
        load_tri(tris, hit.prim, p0, p1, p2);
        float t;
        intersect_triangle(wr, ray.o, p0, p1, p2, tmin, t, hit.u, hit.v, kInfinity);
    }
    return hit;
}

}  // namespace pkrt
