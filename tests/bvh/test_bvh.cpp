// BVH correctness on real meshes: closest hit and any hit agree with brute force over every triangle,
// the tree is well formed, and rays aimed exactly at shared edges and vertices of closed meshes never
// slip through (watertight triangle test + conservative box test). The ray tests run once per layout
// (all_bvh_layouts()), so a new layout is held to all of them; its own structure needs a check below.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <glm/glm.hpp>
#include <vector>

#include "kernels/traversal/bvh.h"
#include "kernels/traversal/bvh_cwbvh.h"
#include "kernels/shading/rng.h"
#include "kernels/shading/sampling.h"
#include "render/bvh/bvh_build.h"
#include "render/bvh/bvh_layout.h"
#include "render/bvh/bvh_presplit.h"
#include "render/backend.h"
#include "render/error.h"
#include "render/scene/loaders.h"
#include "render/scene/scene.h"
#include "tests/test_util.h"

using namespace pkrt;
using pkrt_test::have_shared_scene;
using pkrt_test::shared_scene;

namespace {

Hit brute_force(const Scene& s, const Ray& ray, float tmax) {
    Hit best = no_hit();
    best.t = tmax;
    WatertightRay w = make_watertight_ray(ray.d);
    for (size_t i = 0; i < s.tris.size(); ++i) {
        float t, u, v;
        if (intersect_triangle(w, ray.o, s.tris[i].v0, s.tris[i].v1, s.tris[i].v2, 0.0f, t, u, v, best.t)) {
            best.t = t;
            best.u = u;
            best.v = v;
            best.prim = static_cast<int32_t>(i);
        }
    }
    return best;
}

Scene load_obj_scene(const std::string& path) {
    Scene s;
    s.source = path;
    load_obj(s, path, ObjOptions{});
    return s;
}

Scene load_prepared_obj(const std::string& path, BvhLayout layout) {
    Scene s = load_obj_scene(path);
    prepare_scene(s, layout);
    return s;
}

Scene tiny_scene(int n) {
    Scene s;
    Rng rng = make_rng(5, n, 0);
    for (int i = 0; i < n; ++i) {
        TriVerts t{};
        t.v0 = {rng.next_float(), rng.next_float(), rng.next_float()};
        t.v1 = t.v0 + Vec3{0.3f, 0.0f, 0.1f};
        t.v2 = t.v0 + Vec3{0.0f, 0.3f, -0.1f};
        s.tris.push_back(t);
        s.shading.push_back(TriShading{});
    }
    s.materials.push_back(default_material());
    return s;
}

void bounds(const Scene& s, Vec3& lo, Vec3& hi) {
    lo = splat(kInfinity);
    hi = splat(-kInfinity);
    for (const auto& t : s.tris) {
        lo = vmin(lo, vmin(t.v0, vmin(t.v1, t.v2)));
        hi = vmax(hi, vmax(t.v0, vmax(t.v1, t.v2)));
    }
}

// Half the rays start anywhere in (a margin around) the bounding box with random directions; half are
// aimed at a random point of a random triangle, so hits are plentiful and misses are tested too.
void compare_with_brute_force(const Scene& s, int rays) {
    Vec3 lo, hi;
    bounds(s, lo, hi);
    Vec3 ext = hi - lo;
    Rng rng = make_rng(1234, 0, 0);
    int hits = 0, mismatches = 0, occlusion_mismatches = 0;
    for (int i = 0; i < rays; ++i) {
        Vec3 o = lo - ext * 0.1f + ext * 1.2f * Vec3{rng.next_float(), rng.next_float(), rng.next_float()};
        Vec3 d;
        if (i % 2 == 0) {
            d = sample_uniform_sphere(rng.next_float(), rng.next_float());
        } else {
            const TriVerts& t = s.tris[rng.next_u32() % s.tris.size()];
            Vec2 b = sample_uniform_triangle(rng.next_float(), rng.next_float());
            Vec3 target = t.v0 * (1 - b.x - b.y) + t.v1 * b.x + t.v2 * b.y;
            if (length(target - o) == 0.0f) continue;
            d = normalize(target - o);
        }
        Ray ray{o, d};
        Hit a = intersect_closest(s.bvh, s.tris, ray);
        Hit b = brute_force(s, ray, kInfinity);
        bool same = (a.prim < 0) == (b.prim < 0);
        // On a shared edge two triangles can tie; the distance must still agree.
        if (same && a.prim >= 0) same = a.prim == b.prim || std::fabs(a.t - b.t) <= 1e-6f * std::max(1.0f, b.t);
        if (!same) {
            ++mismatches;
            ADD_FAILURE() << "ray " << i << ": bvh prim " << a.prim << " t " << a.t << " vs brute force prim " << b.prim
                          << " t " << b.t;
            if (mismatches > 5) return;
        }
        if (b.prim >= 0) ++hits;
        // Any-hit with a range that ends before the closest hit must report no occluder; past it, one.
        if (b.prim >= 0) {
            if (occluded(s.bvh, s.tris, ray, b.t * 0.999f) != (brute_force(s, ray, b.t * 0.999f).prim >= 0))
                ++occlusion_mismatches;
            if (!occluded(s.bvh, s.tris, ray, b.t * 1.001f)) ++occlusion_mismatches;
        } else if (occluded(s.bvh, s.tris, ray, kInfinity)) {
            ++occlusion_mismatches;
        }
    }
    EXPECT_EQ(occlusion_mismatches, 0);
    EXPECT_GT(hits, rays / 3) << "the test should exercise hits";
    EXPECT_LT(hits, rays) << "the test should exercise misses";
}

// bvh2's structural invariants: every triangle in exactly one leaf, child boxes bound their subtrees.
void check_bvh2_structure(const Scene& s) {
    std::vector<int> seen(s.tris.size(), 0);
    struct Item {
        int32_t ref;
        Vec3 lo, hi;
        int depth;
    };
    std::vector<Item> todo;
    const BvhNode& root = s.bvh.bvh2_nodes[0];
    auto push_children = [&](const BvhNode& n, int depth) {
        todo.push_back({n.left, {n.lmin_x, n.lmin_y, n.lmin_z}, {n.lmax_x, n.lmax_y, n.lmax_z}, depth});
        todo.push_back({n.right, {n.rmin_x, n.rmin_y, n.rmin_z}, {n.rmax_x, n.rmax_y, n.rmax_z}, depth});
    };
    push_children(root, 1);
    int max_depth = 0;
    size_t nodes_visited = 1;
    while (!todo.empty()) {
        Item it = todo.back();
        todo.pop_back();
        max_depth = std::max(max_depth, it.depth);
        if (it.ref >= 0) {
            ASSERT_LT(static_cast<size_t>(it.ref), s.bvh.bvh2_nodes.size());
            ++nodes_visited;
            const BvhNode& n = s.bvh.bvh2_nodes[it.ref];
            // Children's boxes inside the parent's record of this child.
            EXPECT_GE(n.lmin_x, it.lo.x);
            EXPECT_LE(n.lmax_x, it.hi.x);
            EXPECT_GE(n.rmin_y, it.lo.y);
            EXPECT_LE(n.rmax_z, it.hi.z);
            push_children(n, it.depth + 1);
        } else {
            for (int32_t k = 0; k < bvh2_leaf_count(it.ref); ++k) {
                int32_t t = bvh2_leaf_first(it.ref) + k;
                ASSERT_LT(static_cast<size_t>(t), s.tris.size());
                ++seen[t];
                for (Vec3 p : {s.tris[t].v0, s.tris[t].v1, s.tris[t].v2}) {
                    ASSERT_TRUE(p.x >= it.lo.x && p.x <= it.hi.x && p.y >= it.lo.y && p.y <= it.hi.y &&
                                p.z >= it.lo.z && p.z <= it.hi.z)
                        << "triangle " << t << " outside its leaf box";
                }
            }
        }
    }
    EXPECT_EQ(nodes_visited, s.bvh.bvh2_nodes.size()) << "unreachable nodes";
    for (size_t i = 0; i < seen.size(); ++i)
        ASSERT_EQ(seen[i], 1) << "triangle " << i << " referenced " << seen[i] << " times";
    EXPECT_LE(max_depth, kMaxTraversalStack);
}

// cwbvh's structural invariants: every node reached once from the root, every triangle in exactly one
// leaf, leaves of at most three triangles within their node's 24-slot window, and each decoded
// (quantised) child box containing the exact bounds of everything below it.
Aabb check_cwbvh_node(const Scene& s, uint32_t index, int depth, std::vector<int>& node_seen,
                      std::vector<int>& tri_seen, int& max_depth) {
    Aabb all;
    if (index >= s.bvh.cwbvh_nodes.size()) {
        ADD_FAILURE() << "node " << index << " out of range";
        return all;
    }
    ++node_seen[index];
    max_depth = std::max(max_depth, depth);
    const CwbvhNode& n = s.bvh.cwbvh_nodes[index];
    const float origin[3] = {n.origin_x, n.origin_y, n.origin_z};
    const int exps[3] = {n.exp_x, n.exp_y, n.exp_z};
    const uint8_t* lo[3] = {n.lo_x, n.lo_y, n.lo_z};
    const uint8_t* hi[3] = {n.hi_x, n.hi_y, n.hi_z};
    uint32_t inner = 0;
    for (int slot = 0; slot < 8; ++slot) {
        uint8_t meta = n.meta[slot];
        bool is_inner = (n.imask >> slot) & 1;
        if (meta == 0) {
            EXPECT_FALSE(is_inner);
            continue;
        }
        Aabb exact;
        if (is_inner) {
            EXPECT_EQ(meta, (1u << 5) | (24u + slot)) << "inner meta of slot " << slot;
            exact = check_cwbvh_node(s, n.child_base + inner++, depth + 1, node_seen, tri_seen, max_depth);
        } else {
            uint32_t count = 0, offset = meta & 31u;
            for (uint32_t bits = meta >> 5; bits & 1; bits >>= 1) ++count;
            EXPECT_EQ(meta >> 5, (1u << count) - 1u) << "leaf count not unary";
            EXPECT_GE(count, 1u);
            EXPECT_LE(offset + count, 24u);
            for (uint32_t k = 0; k < count; ++k) {
                uint32_t t = n.tri_base + offset + k;
                if (t >= s.tris.size()) {
                    ADD_FAILURE() << "triangle " << t << " out of range";
                    continue;
                }
                ++tri_seen[t];
                for (Vec3 p : {s.tris[t].v0, s.tris[t].v1, s.tris[t].v2}) exact.grow(p);
            }
        }
        for (int a = 0; a < 3; ++a) {
            double scale = std::ldexp(1.0, exps[a]);
            double box_lo = origin[a] + lo[a][slot] * scale, box_hi = origin[a] + hi[a][slot] * scale;
            EXPECT_LE(box_lo, exact.lo[a]) << "quantised box of slot " << slot << " axis " << a << " misses its child";
            EXPECT_GE(box_hi, exact.hi[a]) << "quantised box of slot " << slot << " axis " << a << " misses its child";
        }
        all.grow(exact);
    }
    return all;
}

void check_cwbvh_structure(const Scene& s) {
    ASSERT_FALSE(s.bvh.cwbvh_nodes.empty());
    std::vector<int> node_seen(s.bvh.cwbvh_nodes.size(), 0), tri_seen(s.tris.size(), 0);
    int max_depth = 0;
    check_cwbvh_node(s, 0, 1, node_seen, tri_seen, max_depth);
    for (size_t i = 0; i < node_seen.size(); ++i)
        ASSERT_EQ(node_seen[i], 1) << "node " << i << " reached " << node_seen[i] << " times";
    for (size_t i = 0; i < tri_seen.size(); ++i)
        ASSERT_EQ(tri_seen[i], 1) << "triangle " << i << " referenced " << tri_seen[i] << " times";
    EXPECT_LE(2 * max_depth, kMaxTraversalStack);  // a node group and a postponed triangle group per level
    // Eight-wide: far fewer nodes than triangles (a bvh2 of one-triangle leaves has n - 1).
    if (s.tris.size() >= 1000) {
        EXPECT_LT(s.bvh.cwbvh_nodes.size(), s.tris.size() / 3);
    }
}

// Each layout's own well-formedness check; no default case, so -Wswitch names a layout that lacks one.
void check_structure(const Scene& s) {
    switch (s.bvh.layout) {
        case BvhLayout::kBvh2: return check_bvh2_structure(s);
        case BvhLayout::kCwbvh: return check_cwbvh_structure(s);
    }
    ADD_FAILURE() << "no structural check for layout " << static_cast<int>(s.bvh.layout);
}

bool inside(const Aabb& inner, const Aabb& outer) {
    return inner.lo.x >= outer.lo.x && inner.lo.y >= outer.lo.y && inner.lo.z >= outer.lo.z &&
           inner.hi.x <= outer.hi.x && inner.hi.y <= outer.hi.y && inner.hi.z <= outer.hi.z;
}

// The layout-free tree every conversion starts from: `order` is a permutation, every node is reached
// once, a subtree's triangles are the contiguous run [first, first + count) split between its children,
// leaves partition the slots, and boxes (exact, unpadded) nest and hold their triangles.
void check_binary_structure(const BinaryBvh& b, const std::vector<TriVerts>& tris) {
    ASSERT_FALSE(b.nodes.empty());
    ASSERT_EQ(b.order.size(), tris.size());
    std::vector<int> slot_seen(tris.size(), 0), tri_seen(tris.size(), 0), node_seen(b.nodes.size(), 0);
    for (uint32_t t : b.order) {
        ASSERT_LT(t, tris.size());
        ++tri_seen[t];
    }
    for (size_t i = 0; i < tri_seen.size(); ++i) ASSERT_EQ(tri_seen[i], 1) << "triangle " << i << " in order";
    EXPECT_EQ(b.nodes[0].first, 0u);
    EXPECT_EQ(b.nodes[0].count, tris.size());
    std::vector<std::pair<int32_t, int>> todo{{0, 0}};  // (node, depth)
    int max_depth = 0;
    size_t leaves = 0;
    while (!todo.empty()) {
        auto [i, depth] = todo.back();
        todo.pop_back();
        ASSERT_TRUE(i >= 0 && static_cast<size_t>(i) < b.nodes.size());
        ASSERT_EQ(++node_seen[i], 1) << "node " << i << " reached twice";
        const BinaryBvhNode& n = b.nodes[i];
        ASSERT_GT(n.count, 0u);
        ASSERT_LE(static_cast<size_t>(n.first) + n.count, tris.size());
        if (n.is_leaf()) {
            ++leaves;
            max_depth = std::max(max_depth, depth);
            for (uint32_t k = n.first; k < n.first + n.count; ++k) {
                ++slot_seen[k];
                Aabb tb;
                for (Vec3 p : {tris[b.order[k]].v0, tris[b.order[k]].v1, tris[b.order[k]].v2}) tb.grow(p);
                ASSERT_TRUE(inside(tb, n.box)) << "triangle in slot " << k << " outside its leaf box";
            }
            continue;
        }
        ASSERT_TRUE(n.right >= 0 && static_cast<size_t>(n.left) < b.nodes.size() &&
                    static_cast<size_t>(n.right) < b.nodes.size());
        const BinaryBvhNode& l = b.nodes[n.left];
        const BinaryBvhNode& r = b.nodes[n.right];
        EXPECT_EQ(l.first, n.first);
        EXPECT_EQ(r.first, l.first + l.count);
        EXPECT_EQ(l.count + r.count, n.count);
        EXPECT_TRUE(inside(l.box, n.box) && inside(r.box, n.box)) << "child box outside node " << i;
        todo.push_back({n.left, depth + 1});
        todo.push_back({n.right, depth + 1});
    }
    for (size_t i = 0; i < node_seen.size(); ++i) ASSERT_EQ(node_seen[i], 1) << "node " << i << " unreachable";
    for (size_t i = 0; i < slot_seen.size(); ++i)
        ASSERT_EQ(slot_seen[i], 1) << "slot " << i << " in " << slot_seen[i] << " leaves";
    EXPECT_EQ(b.leaves, leaves);
    EXPECT_EQ(b.depth, max_depth);
    EXPECT_LE(b.depth, kMaxTraversalStack);
}

}  // namespace

class Bvh : public ::testing::TestWithParam<BvhLayout> {};

INSTANTIATE_TEST_SUITE_P(Layouts, Bvh, ::testing::ValuesIn(all_bvh_layouts()),
                         [](const ::testing::TestParamInfo<BvhLayout>& info) { return bvh_layout_name(info.param); });

TEST_P(Bvh, BunnyMatchesBruteForce) {
    REQUIRE_SHARED_SCENE("stanford-bunny/stanford-bunny.obj");
    Scene s = load_prepared_obj(shared_scene("stanford-bunny/stanford-bunny.obj"), GetParam());
    ASSERT_EQ(s.bvh.layout, GetParam());
    EXPECT_GT(s.tris.size(), 69000u);
    check_structure(s);
    compare_with_brute_force(s, 3000);
}

TEST_P(Bvh, DabrovicSponzaMatchesBruteForce) {
    REQUIRE_SHARED_SCENE("dabrovic-sponza/sponza.obj");
    Scene s = load_prepared_obj(shared_scene("dabrovic-sponza/sponza.obj"), GetParam());
    ASSERT_EQ(s.bvh.layout, GetParam());
    EXPECT_GT(s.tris.size(), 66000u);
    check_structure(s);
    compare_with_brute_force(s, 3000);
}

TEST_P(Bvh, SingleTriangleAndTinyScenes) {
    for (int n : {1, 2, 3, 9, 17}) {
        Scene s = tiny_scene(n);
        prepare_scene(s, GetParam());
        check_structure(s);
        compare_with_brute_force(s, 400);
    }
}

// Rays through the exact edge points and vertices of a closed mesh, from inside and from outside
// along the surface normal: every one must hit. A non-watertight test loses a few in a thousand.
TEST_P(Bvh, RaysAtSharedEdgesAndVerticesNeverMiss) {
    Scene s;
    s.materials.push_back(default_material());
    add_sphere(s, glm::mat4(1.0f), Vec3{0.1f, -0.2f, 0.3f}, 1.7f, 5, false, 0);
    prepare_scene(s, GetParam());
    Vec3 center{0.1f, -0.2f, 0.3f};
    int misses = 0, rays = 0;
    for (const auto& t : s.tris) {
        const Vec3 p[3] = {t.v0, t.v1, t.v2};
        for (int e = 0; e < 3; ++e) {
            for (float f : {0.0f, 0.5f, 0.25f, 1.0f / 3.0f}) {
                Vec3 target = p[e] * (1.0f - f) + p[(e + 1) % 3] * f;
                // From inside, from the centre.
                Ray in{center, normalize(target - center)};
                ++rays;
                if (intersect_closest(s.bvh, s.tris, in).prim < 0) ++misses;
                // From outside, along the outward direction at that point.
                Vec3 out_dir = normalize(target - center);
                Ray out{target + out_dir * 2.0f, -out_dir};
                ++rays;
                if (intersect_closest(s.bvh, s.tris, out).prim < 0) ++misses;
            }
        }
    }
    EXPECT_EQ(misses, 0) << "of " << rays << " rays aimed exactly at edges and vertices";
    EXPECT_GT(rays, 100000);
}

// Axis-aligned rays through the edges of a cube (the hardest case for a slab test: zero direction
// components and rays lying in box faces).
TEST_P(Bvh, AxisAlignedRaysThroughCubeEdges) {
    Scene s;
    s.materials.push_back(default_material());
    const Vec3 c[8] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
    const int faces[6][4] = {{0, 3, 2, 1}, {4, 5, 6, 7}, {0, 1, 5, 4}, {2, 3, 7, 6}, {0, 4, 7, 3}, {1, 2, 6, 5}};
    for (const auto& f : faces) {
        Vec3 q[4] = {c[f[0]], c[f[1]], c[f[2]], c[f[3]]};
        add_quad(s, glm::mat4(1.0f), q, 0);
    }
    prepare_scene(s, GetParam());
    int misses = 0;
    for (int i = 0; i <= 8; ++i) {
        float a = i / 8.0f;
        // Along z through the x = a, y = {0, 0.5, 1} lines on the cube's faces, including its edges.
        for (float b : {0.0f, 0.5f, 1.0f}) {
            if (intersect_closest(s.bvh, s.tris, Ray{{a, b, -1.0f}, {0, 0, 1}}).prim < 0) ++misses;
            if (intersect_closest(s.bvh, s.tris, Ray{{b, a, 2.0f}, {0, 0, -1}}).prim < 0) ++misses;
            if (intersect_closest(s.bvh, s.tris, Ray{{-1.0f, a, b}, {1, 0, 0}}).prim < 0) ++misses;
            if (intersect_closest(s.bvh, s.tris, Ray{{a, 2.0f, b}, {0, -1, 0}}).prim < 0) ++misses;
        }
        // The quad diagonals are shared edges too.
        if (intersect_closest(s.bvh, s.tris, Ray{{a, a, -1.0f}, {0, 0, 1}}).prim < 0) ++misses;
    }
    EXPECT_EQ(misses, 0);
}

TEST(BvhBuild, BinaryTreeIsWellFormed) {
    std::vector<Scene> scenes;
    for (int n : {1, 2, 3, 9, 17}) scenes.push_back(tiny_scene(n));
    for (const char* rel : {"stanford-bunny/stanford-bunny.obj", "dabrovic-sponza/sponza.obj"}) {
        REQUIRE_SHARED_SCENE(rel);
        scenes.push_back(load_obj_scene(shared_scene(rel)));
    }
    for (const Scene& s : scenes) {
        SCOPED_TRACE(std::to_string(s.tris.size()) + " triangles");
        check_binary_structure(build_bvh(s.tris), s.tris);
    }
}

TEST(BvhLayoutNames, RoundTripAndUnknownNamesListTheValidOnes) {
    ASSERT_FALSE(all_bvh_layouts().empty());
    EXPECT_EQ(bvh_layout_name(BvhLayout::kBvh2), "bvh2");
    EXPECT_EQ(bvh_layout_name(BvhLayout::kCwbvh), "cwbvh");
    for (BvhLayout l : all_bvh_layouts()) EXPECT_EQ(parse_bvh_layout(bvh_layout_name(l)), l);
    try {
        parse_bvh_layout("bvh9");
        ADD_FAILURE() << "an unknown layout name was accepted";
    } catch (const Error& e) {
        for (BvhLayout l : all_bvh_layouts())
            EXPECT_NE(std::string(e.what()).find(bvh_layout_name(l)), std::string::npos) << e.what();
    }
}

// ---- Triangle pre-splitting (render/bvh/bvh_presplit.h) ----

// Every point of a triangle lies in one of its references' boxes, every box lies within the
// triangle's own, and a sliver's pieces enclose far less space than its box did.
TEST(Presplit, ReferencesCoverTheirTriangleWithTighterBoxes) {
    Rng rng = make_rng(9, 0, 0);
    std::vector<TriVerts> tris;
    for (int i = 0; i < 200; ++i) {
        Vec3 a{rng.next_float(), rng.next_float(), rng.next_float()};
        Vec3 d{rng.next_float() - 0.5f, rng.next_float() - 0.5f, rng.next_float() - 0.5f};
        Vec3 w{0.02f * rng.next_float(), 0.02f * rng.next_float(), 0.02f * rng.next_float()};
        TriVerts t{};  // a long diagonal sliver
        t.v0 = a;
        t.v1 = a + d * 10.0f;
        t.v2 = a + d * 10.0f + w;
        tris.push_back(t);
    }
    std::vector<BvhReference> refs = presplit_triangles(tris, 2.0f);
    EXPECT_GT(refs.size(), 500u);
    EXPECT_LE(refs.size(), 3 * tris.size());
    std::vector<std::vector<Aabb>> of(tris.size());
    for (const auto& r : refs) of[r.tri].push_back(r.box);
    double whole = 0.0, pieces = 0.0;
    for (size_t t = 0; t < tris.size(); ++t) {
        ASSERT_FALSE(of[t].empty()) << "triangle " << t << " lost";
        Aabb tb;
        for (Vec3 v : {tris[t].v0, tris[t].v1, tris[t].v2}) tb.grow(v);
        whole += tb.area();
        for (const Aabb& b : of[t]) {
            pieces += b.area();
            EXPECT_TRUE(b.lo.x >= tb.lo.x && b.lo.y >= tb.lo.y && b.lo.z >= tb.lo.z && b.hi.x <= tb.hi.x &&
                        b.hi.y <= tb.hi.y && b.hi.z <= tb.hi.z);
        }
        for (int k = 0; k < 50; ++k) {
            Vec2 u = sample_uniform_triangle(rng.next_float(), rng.next_float());
            Vec3 p = tris[t].v0 * (1 - u.x - u.y) + tris[t].v1 * u.x + tris[t].v2 * u.y;
            bool inside_one = false;
            for (const Aabb& b : of[t]) {
                const float e = 1e-5f;
                inside_one = inside_one || (p.x >= b.lo.x - e && p.y >= b.lo.y - e && p.z >= b.lo.z - e &&
                                            p.x <= b.hi.x + e && p.y <= b.hi.y + e && p.z <= b.hi.z + e);
            }
            ASSERT_TRUE(inside_one) << "a point of triangle " << t << " is in none of its pieces";
        }
    }
    EXPECT_LT(pieces, 0.5 * whole) << "the pieces' boxes are tighter";
    // Without a budget every triangle is one reference with its own box.
    EXPECT_EQ(presplit_triangles(tris, 0.0f).size(), tris.size());
}

// A BVH over split triangles finds the same closest hits as brute force (a triangle's copies all
// hold the whole triangle), in every layout, and its SAH cost is no worse on an architectural scene.
TEST_P(Bvh, SplitTrianglesMatchBruteForce) {
    REQUIRE_SHARED_SCENE("dabrovic-sponza/sponza.obj");
    Scene base = load_obj_scene(shared_scene("dabrovic-sponza/sponza.obj"));
    Scene plain = base, split = base;
    prepare_scene(plain, GetParam());
    prepare_scene(split, GetParam(), 0.5f);
    EXPECT_GT(split.tris.size(), plain.tris.size()) << "some triangles were split";
    EXPECT_EQ(split.source_triangles, plain.tris.size());
    EXPECT_LE(split.bvh_sah_cost, plain.bvh_sah_cost * 1.02);
    compare_with_brute_force(split, 3000);
    for (int n : {1, 2, 9}) {
        Scene s = tiny_scene(n);
        prepare_scene(s, GetParam(), 1.0f);
        compare_with_brute_force(s, 400);
    }
}

// A spatial split BVH: straddling triangles go to both children with the boxes of their parts. It
// finds the brute-force closest hits in every layout, and its SAH cost is below the binned builder's
// on an architectural scene (that is what the spatial splits are for).
TEST_P(Bvh, SpatialSplitsMatchBruteForceAtALowerSahCost) {
    REQUIRE_SHARED_SCENE("dabrovic-sponza/sponza.obj");
    Scene base = load_obj_scene(shared_scene("dabrovic-sponza/sponza.obj"));
    Scene plain = base, sbvh = base;
    prepare_scene(plain, GetParam());
    prepare_scene(sbvh, GetParam(), 0.0f, true);
    EXPECT_GT(sbvh.tris.size(), plain.tris.size()) << "some triangles went to both sides of a spatial split";
    EXPECT_LT(sbvh.tris.size(), 2 * plain.tris.size()) << "reference growth is bounded";
    EXPECT_LT(sbvh.bvh_sah_cost, plain.bvh_sah_cost);
    compare_with_brute_force(sbvh, 3000);
    for (int n : {1, 2, 9, 17}) {
        Scene s = tiny_scene(n);
        prepare_scene(s, GetParam(), 0.0f, true);
        compare_with_brute_force(s, 400);
    }
    Scene both = base;
    EXPECT_THROW(prepare_scene(both, GetParam(), 0.5f, true), Error);
}

// A split light is still one light: light sampling picks it once, and a BSDF ray that hits any of its
// copies weighs the hit by its pmf. The render equals the unsplit one, sample for sample.
TEST(Presplit, SplitLightsRenderTheSame) {
    Scene base = load_scene(std::string(PKRT_SCENES_DIR) + "/cornell.json");
    int light = -1;
    for (size_t m = 0; m < base.materials.size(); ++m)
        if (is_emissive(base.materials[m])) light = static_cast<int>(m);
    ASSERT_GE(light, 0);
    // A long slanted emitter across the room: its box is mostly empty, so it is split.
    TriVerts slanted{};
    slanted.v0 = Vec3{100.0f, 400.0f, 100.0f};
    slanted.v1 = Vec3{450.0f, 300.0f, 450.0f};
    slanted.v2 = Vec3{440.0f, 310.0f, 470.0f};
    base.tris.push_back(slanted);
    TriShading sh{};
    sh.material = light;
    base.shading.push_back(sh);
    if (!base.tangents.empty()) base.tangents.push_back(TriTangents{});
    Scene plain = base;
    prepare_scene(plain, BvhLayout::kBvh2);
    auto cpu = make_cpu_backend();
    RenderSettings rs;
    rs.width = rs.height = 48;
    rs.spp = 8;
    rs.max_depth = 6;
    Image a = render_image(*cpu, plain, rs, nullptr).image;
    RenderSettings other = rs;
    other.seed = 1000;
    Image noise = render_image(*cpu, plain, other, nullptr).image;
    for (bool spatial : {false, true}) {
        Scene split = base;
        prepare_scene(split, BvhLayout::kBvh2, spatial ? 0.0f : 2.0f, spatial);
        const char* what = spatial ? "spatial splits" : "pre-splitting";
        size_t light_slots = 0;
        for (float p : split.tri_light_pmf) light_slots += p > 0.0f ? 1 : 0;
        // Pre-splitting cuts the sliver for sure; a spatial split only where the SAH takes one.
        if (!spatial) {
            EXPECT_GT(light_slots, split.light_tris.size())
                << what << ": the slanted light was split into several slots";
        }
        EXPECT_EQ(split.light_tris.size(), plain.light_tris.size()) << what;
        Image b = render_image(*cpu, split, rs, nullptr).image;
        double diff = 0.0, seed_diff = 0.0;
        for (size_t i = 0; i < a.pixels.size(); ++i)
            for (int c = 0; c < 3; ++c) {
                diff += std::pow(a.pixels[i][c] - b.pixels[i][c], 2.0);
                seed_diff += std::pow(a.pixels[i][c] - noise.pixels[i][c], 2.0);
            }
        EXPECT_LT(diff, 0.01 * seed_diff) << what << ": split and unsplit renders differ beyond ties";
    }
}

// Centroids near the float range: c - lo and the extent overflow to infinity, and the bin's ratio is
// NaN or infinite. It must land in a bin (converted to int first, it was undefined behaviour: the PLY
// fuzzer's reproducer tests/fuzz/crashes/ply/bvh-bin-of-overflowing-centroid.ply).
TEST(BvhBins, OverflowingCentroidsLandInABin) {
    const float big = 3.0e38f, inf = std::numeric_limits<float>::infinity();
    EXPECT_EQ(centroid_bin(0.5f, 0.0f, 1.0f, 32), 16);
    EXPECT_EQ(centroid_bin(1.0f, 0.0f, 1.0f, 32), 31);
    EXPECT_EQ(centroid_bin(-1.0f, 0.0f, 1.0f, 32), 0);
    EXPECT_EQ(centroid_bin(big, -big, inf, 32), 0);    // inf / inf
    EXPECT_EQ(centroid_bin(big, -big, 1.0f, 32), 31);  // inf
    EXPECT_EQ(centroid_bin(std::nanf(""), 0.0f, 1.0f, 32), 0);
    // A mesh spanning the float range builds both ways, every triangle in exactly one leaf.
    std::vector<TriVerts> tris;
    for (int i = 0; i < 40; ++i) {
        float x = (i % 2 ? big : -big) * (1.0f - 0.01f * static_cast<float>(i));
        TriVerts t{};
        t.v0 = {x, 0.0f, 0.0f};
        t.v1 = {x, 1.0f, 0.0f};
        t.v2 = {x, 0.0f, 1.0f};
        tris.push_back(t);
    }
    for (bool spatial : {false, true}) {
        BvhBuildOptions o;
        o.spatial_splits = spatial;
        BinaryBvh b = build_bvh(tris, o);
        std::vector<int> seen(tris.size(), 0);
        for (const BinaryBvhNode& n : b.nodes)
            if (n.is_leaf())
                for (uint32_t k = n.first; k < n.first + n.count; ++k) ++seen[b.order[k]];
        for (size_t i = 0; i < tris.size(); ++i) EXPECT_EQ(seen[i], 1) << "triangle " << i << ", spatial " << spatial;
    }
}

// cwbvh's child boxes are read with byte permutes (CUDA's __byte_perm, emulated on the host): every byte
// of every word position decodes to 2^15 + byte exactly, whatever the word's other bytes hold, and the
// plain extraction gives the byte.
TEST(CwbvhBytes, PermutedBytesDecodeExactly) {
    EXPECT_EQ(cwbvh_byte_perm(0x44332211u, 0x88776655u, 0x3210u), 0x44332211u);
    EXPECT_EQ(cwbvh_byte_perm(0x44332211u, 0x88776655u, 0x7654u), 0x88776655u);
    EXPECT_EQ(cwbvh_byte_perm(0x44332211u, 0x88776655u, 0x0246u), 0x11335577u);
    for (int k = 0; k < 4; ++k)
        for (uint32_t b = 0; b < 256; ++b) {
            const uint32_t word = (b << (8 * k)) | (0xa5u << (8 * ((k + 1) & 3))) | (0xffu << (8 * ((k + 2) & 3)));
            EXPECT_EQ(cwbvh_biased_byte(word, k), kCwbvhByteBias + static_cast<float>(b)) << "byte " << k;
            EXPECT_EQ(cwbvh_byte_of(word, k), b) << "byte " << k;
        }
}
