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

// CUDA's __byte_perm (PRMT) in its default mode: byte n of the result is byte (s >> 4n) & 7 of y:x.
PKRT_HD uint32_t cwbvh_byte_perm(uint32_t x, uint32_t y, uint32_t s) {
#if defined(__CUDA_ARCH__)
    return __byte_perm(x, y, s);
#else
    uint64_t v = (static_cast<uint64_t>(y) << 32) | x;
    uint32_t r = 0;
    for (int n = 0; n < 4; ++n) r |= static_cast<uint32_t>((v >> (8 * ((s >> (4 * n)) & 7u))) & 0xffu) << (8 * n);
    return r;
#endif
}

// Byte k of a word, zero-extended: one PRMT.
PKRT_HD uint32_t cwbvh_byte_of(uint32_t word, int k) { return cwbvh_byte_perm(word, 0u, 0x4440u | k); }

// Byte k of a word as the float 2^15 + byte, exactly: PRMT puts it in bits 8-15 of the float 2^15, whose
// unit in the last place there is 1. One full-rate instruction where an integer conversion runs at an
// eighth of the rate of an FFMA on sm_90. (A bias of 2^23, the byte in bits 0-7, would make the product
// below 256 times larger and its rounding a whole quantum.)
PKRT_HD float cwbvh_biased_byte(uint32_t word, int k) {
    return int_as_float_bits(static_cast<int32_t>(cwbvh_byte_perm(word, 0x47000000u, 0x7504u | (k << 4))));
}
constexpr float kCwbvhByteBias = 32768.0f;  // 2^15

// What a node visit yields: the hit mask (bits 24-31 for inner children, slot order permuted by the
// octant, see above; bits 0-23 for the triangles of hit leaves) and the node's bases and imask.
struct CwbvhVisit {
    uint32_t hits, child_base, tri_base, imask;
};

// Tests node i's eight children. The slab test is bvh2's (kernels/traversal/bvh.h: intersect_box), with the box
// bound written as (origin - o) / d + q * (2^exp / d), and the same 1 + 2*gamma(3) widening of t_far.
// Where bvh2 takes min and max of a slab's two distances, the near and far planes are picked once per
// node by the sign of the direction: rounding is monotonic, so the result is the same for less work.
// The meta bytes are decoded four slots to a word (the paper's section 4.2): which slots are inner
// nodes, their hit bit (24 + slot, permuted by the octant) and a leaf's triangle bits, with no branch
// per slot; an empty slot (meta 0) sets no bit whatever its box.
PKRT_HD CwbvhVisit cwbvh_intersect_children(const CwbvhNode* nodes, uint32_t i, Vec3 ray_o, Vec3 inv_d,
                                            uint32_t oct_inv, float tmin, float tmax) {
    uint32_t r0[4], r1[4];
    load_cwbvh_row(nodes, i, 0, r0);
    load_cwbvh_row(nodes, i, 1, r1);
    Vec3 org{int_as_float_bits(static_cast<int32_t>(r0[0])), int_as_float_bits(static_cast<int32_t>(r0[1])),
             int_as_float_bits(static_cast<int32_t>(r0[2]))};
    Vec3 adj_o = (org - ray_o) * inv_d;
    Vec3 adj_d{cwbvh_scale(r0[3]) * inv_d.x, cwbvh_scale(r0[3] >> 8) * inv_d.y, cwbvh_scale(r0[3] >> 16) * inv_d.z};
    // A plane at q is at t = (2^15 + q) * adj_d + (adj_o - 2^15 * adj_d): one FFMA on the biased byte. The
    // bias adds rounding of at most 2^-9 of a quantum (|adj_d|) to each of the constant, the product (on
    // the CPU, which does not fuse) and the sum, so near planes are taken 1/16 of a quantum nearer and far
    // planes 1/16 farther. The rest of the rounding is the unbiased test's, covered as bvh2's.
    Vec3 base = adj_o - adj_d * kCwbvhByteBias, margin = vabs(adj_d) * 0.0625f;
    Vec3 near_o = base - margin, far_o = base + margin;
    CwbvhVisit out{0u, r1[0], r1[1], r0[3] >> 24};
    // Rows 2-4: lo_x, lo_y | lo_z, hi_x | hi_y, hi_z, two words (slots 0-3, 4-7) each. Near and far
    // words per axis; oct_inv has a bit set for each positive direction component (x: 4, y: 2, z: 1).
    uint32_t r2[4], r3[4], r4[4];
    load_cwbvh_row(nodes, i, 2, r2);
    load_cwbvh_row(nodes, i, 3, r3);
    load_cwbvh_row(nodes, i, 4, r4);
    bool px = oct_inv & 4u, py = oct_inv & 2u, pz = oct_inv & 1u;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int h = 0; h < 2; ++h) {  // slots 4h .. 4h + 3
        uint32_t near_x = px ? r2[h] : r3[2 + h], far_x = px ? r3[2 + h] : r2[h];
        uint32_t near_y = py ? r2[2 + h] : r4[h], far_y = py ? r4[h] : r2[2 + h];
        uint32_t near_z = pz ? r3[h] : r4[2 + h], far_z = pz ? r4[2 + h] : r3[h];
        uint32_t meta = r1[2 + h];
        // An inner slot's meta is 0b001'11sss: bits 3 and 4 both set, which no leaf's offset (< 24) has.
        uint32_t inner = ((meta & (meta << 1)) >> 4) & 0x01010101u;  // 1 in each inner slot's byte
        uint32_t bit_index = (meta ^ (inner * oct_inv)) & 0x1f1f1f1fu;
        uint32_t child_bits = (meta >> 5) & 0x07070707u;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
        for (int k = 0; k < 4; ++k) {
            float t_near = max_num(max_num(cwbvh_biased_byte(near_x, k) * adj_d.x + near_o.x,
                                           cwbvh_biased_byte(near_y, k) * adj_d.y + near_o.y),
                                   max_num(cwbvh_biased_byte(near_z, k) * adj_d.z + near_o.z, tmin));
            float t_far = min_num(min_num(cwbvh_biased_byte(far_x, k) * adj_d.x + far_o.x,
                                          cwbvh_biased_byte(far_y, k) * adj_d.y + far_o.y),
                                  min_num(cwbvh_biased_byte(far_z, k) * adj_d.z + far_o.z, tmax));
            if (t_near <= t_far * 1.0000004f) out.hits |= cwbvh_byte_of(child_bits, k) << cwbvh_byte_of(bit_index, k);
        }
    }
    return out;
}

// The warp's lanes here (on the CPU, one).
PKRT_HD int cwbvh_traversing_lanes() {
#if defined(__CUDA_ARCH__)
    return __popc(__activemask());
#else
    return 1;
#endif
}

// Whether the lanes that reached a leaf's triangles are too few of those still traversing to test
// them now (the paper's section 4.3): such a lane puts its triangle group on the stack and goes on with
// nodes, so that the warp tests triangles together later. `traversing` is the count taken before the
// triangle loop; a triangle test is then issued for at least a fifth of the warp's traversing lanes.
// The CPU has no warp: it never postpones.
PKRT_HD bool cwbvh_postpone_triangles(int traversing) { return cwbvh_traversing_lanes() * 5 < traversing; }

// Closest hit in (tmin, tmax), or any hit when kAnyHit; same contract as traverse_bvh (kernels/traversal/bvh.h).
// The stack holds groups: a node group (a node's child base, and in one word the hit bits of its inner
// children not yet visited, 24-31, beside its imask, 0-7) or a triangle group (a triangle base and the
// bits, 0-23, of triangles not yet tested). A node visit pushes at most one node group and one
// triangle group, so the stack stays within twice the tree's depth (the conversion keeps that within
// kMaxTraversalStack). A node's triangles are tested before its inner children, shortening t early,
// unless too few lanes of the warp have triangles to test (cwbvh_postpone_triangles).
template <bool kAnyHit, class Surfaces, class Steps = NoTraversalSteps>
PKRT_HD Hit traverse_cwbvh(const CwbvhNode* nodes, const TriVerts* tris, int32_t num_nodes, const Ray& ray, float tmin,
                           float tmax, const Surfaces& surfaces, const Steps& steps = Steps{}) {
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
        uint32_t tri_base, tri_hits;
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
            steps.node();
            CwbvhVisit v = cwbvh_intersect_children(nodes, child, ray.o, inv_d, oct_inv, tmin, hit.t);
            group_base = v.child_base;
            group_mask = (v.hits & 0xff000000u) | v.imask;
            tri_base = v.tri_base;
            tri_hits = v.hits & 0x00ffffffu;
        } else {  // a triangle group from the stack
            tri_base = group_base;
            tri_hits = group_mask;
            group_mask = 0;
        }
        if (tri_hits) steps.leaf(static_cast<int32_t>(cwbvh_popcount(tri_hits)));
        int traversing = cwbvh_traversing_lanes();
        while (tri_hits) {
            if (cwbvh_postpone_triangles(traversing)) {
                stack_base[sp] = tri_base;
                stack_mask[sp] = tri_hits;
                ++sp;
                break;
            }
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
