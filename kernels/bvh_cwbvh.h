// The "cwbvh" BVH layout and its traversal: an 8-wide BVH with child boxes compressed to 8 bits per
// plane (Ylitie, Karras & Laine, "Efficient Incoherent Ray Traversal on GPUs Through Compressed Wide
// BVHs", HPG 2017). The host converts the binary build into it (render/bvh_cwbvh.h).
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

#include "bvh.h"

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

// The node as 20 words, as the traversal reads it (registers on the GPU: five 16-byte loads).
PKRT_HD void load_cwbvh_node(const CwbvhNode* nodes, uint32_t i, uint32_t (&w)[20]) {
#if defined(__CUDA_ARCH__)
    const uint4* p = reinterpret_cast<const uint4*>(nodes + i);
#pragma unroll
    for (int r = 0; r < 5; ++r) {
        uint4 q = __ldg(p + r);
        w[4 * r] = q.x;
        w[4 * r + 1] = q.y;
        w[4 * r + 2] = q.z;
        w[4 * r + 3] = q.w;
    }
#else
    std::memcpy(w, nodes + i, sizeof(CwbvhNode));
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

// Tests the node's eight children; returns the hit mask: bits 24-31 for inner children (slot order
// permuted by the octant, see above), bits 0-23 for the triangles of hit leaves.
// The slab test is bvh2's (kernels/bvh.h: intersect_box), with the box bound written as
// (origin - o) / d + q * (2^exp / d), and the same 1 + 2*gamma(3) widening of t_far. Where bvh2 takes
// min and max of a slab's two distances, the near and far planes are picked once per node by the sign
// of the direction: rounding is monotonic, so the result is the same and the per-child work is less.
PKRT_HD uint32_t cwbvh_intersect_children(const uint32_t (&w)[20], Vec3 ray_o, Vec3 inv_d, uint32_t oct_inv,
                                          float tmin, float tmax) {
    Vec3 org{int_as_float_bits(static_cast<int32_t>(w[0])), int_as_float_bits(static_cast<int32_t>(w[1])),
             int_as_float_bits(static_cast<int32_t>(w[2]))};
    Vec3 adj_o = (org - ray_o) * inv_d;
    Vec3 adj_d{cwbvh_scale(w[3]) * inv_d.x, cwbvh_scale(w[3] >> 8) * inv_d.y, cwbvh_scale(w[3] >> 16) * inv_d.z};
    // Words of the near and far planes per axis, two words (slots 0-3, 4-7) each. oct_inv has a bit
    // set for each positive direction component (x: 4, y: 2, z: 1).
    bool px = oct_inv & 4u, py = oct_inv & 2u, pz = oct_inv & 1u;
    uint32_t near_x[2] = {px ? w[8] : w[14], px ? w[9] : w[15]}, far_x[2] = {px ? w[14] : w[8], px ? w[15] : w[9]};
    uint32_t near_y[2] = {py ? w[10] : w[16], py ? w[11] : w[17]}, far_y[2] = {py ? w[16] : w[10], py ? w[17] : w[11]};
    uint32_t near_z[2] = {pz ? w[12] : w[18], pz ? w[13] : w[19]}, far_z[2] = {pz ? w[18] : w[12], pz ? w[19] : w[13]};
    uint32_t hits = 0;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int s = 0; s < 8; ++s) {
        int h = s >> 2, k = s & 3;  // word half and byte within the word
        uint32_t meta = (w[6 + h] >> (8 * k)) & 0xffu;
        if (meta == 0) continue;  // empty slot
        float t_near = max_f(max_f(cwbvh_byte(near_x[h], k) * adj_d.x + adj_o.x, cwbvh_byte(near_y[h], k) * adj_d.y + adj_o.y),
                             max_f(cwbvh_byte(near_z[h], k) * adj_d.z + adj_o.z, tmin));
        float t_far = min_f(min_f(cwbvh_byte(far_x[h], k) * adj_d.x + adj_o.x, cwbvh_byte(far_y[h], k) * adj_d.y + adj_o.y),
                            min_f(cwbvh_byte(far_z[h], k) * adj_d.z + adj_o.z, tmax));
        if (t_near <= t_far * 1.0000004f) {
            uint32_t index = meta & 31u;
            if (index >= 24u) index ^= oct_inv;  // inner: 24 + slot, permuted within 24..31
            hits |= (meta >> 5) << index;
        }
    }
    return hits;
}

// Closest hit in (tmin, tmax), or any hit when kAnyHit; same contract as traverse_bvh (kernels/bvh.h).
// The stack holds node groups: a node's child base, and in one word the hit bits of its inner children
// not yet visited (24-31) beside its imask (0-7). A node visit pushes at most one group, so the stack
// never outgrows the tree's depth (the conversion keeps that within kMaxTraversalStack). Triangle
// groups are tested as soon as they are found, before the node's inner children, shortening t early.
template <bool kAnyHit>
PKRT_HD Hit traverse_cwbvh(const CwbvhNode* nodes, const TriVerts* tris, int32_t num_nodes, const Ray& ray,
                           float tmin, float tmax) {
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
            uint32_t w[20];
            load_cwbvh_node(nodes, child, w);
            uint32_t hits = cwbvh_intersect_children(w, ray.o, inv_d, oct_inv, tmin, hit.t);
            group_base = w[4];
            group_mask = (hits & 0xff000000u) | (w[3] >> 24);
            tri_base = w[5];
            tri_hits = hits & 0x00ffffffu;
        }
        while (tri_hits) {
            uint32_t i = tri_base + cwbvh_lowest_bit(tri_hits);
            tri_hits &= tri_hits - 1u;
            Vec3 p0, p1, p2;
            load_tri(tris, static_cast<int32_t>(i), p0, p1, p2);
            float t, u, v;
            if (intersect_triangle(wr, ray.o, p0, p1, p2, tmin, t, u, v, hit.t)) {
                hit.t = t;
                hit.u = u;
                hit.v = v;
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
    return hit;
}

}  // namespace pkrt
