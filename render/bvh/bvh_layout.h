// The layouts a BinaryBvh (render/bvh/bvh_build.h) can be converted into for traversal, and the host-side
// queries that dispatch on whichever one a scene holds. A layout is chosen at prepare_scene() time; the
// GPU kernels and the CPU backend read it through SceneView.
//
// Adding a layout: a BvhLayout value and its name, its storage in SceneBvh, a case in every switch of
// bvh_layout.cpp (the compiler's -Wswitch lists them), its traversal in kernels/, and a structural check
// in tests/bvh/test_bvh.cpp; the layout-independent tests there then run on it unchanged.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "render/bvh/bvh_build.h"
#include "kernels/traversal/bvh_traverse.h"

namespace pkrt {

enum class BvhLayout {
    kBvh2,   // "bvh2": kernels/traversal/bvh.h, two-wide nodes holding both child boxes (Aila & Laine)
    kCwbvh,  // "cwbvh": kernels/traversal/bvh_cwbvh.h, eight-wide nodes with 8-bit child boxes (Ylitie et al.)
};

std::string bvh_layout_name(BvhLayout layout);
// Throws Error naming the valid layouts when `name` is none of them; a non-empty `what` (the flag,
// e.g. "--bvh") starts the message as "--bvh NAME: ".
BvhLayout parse_bvh_layout(const std::string& name, const std::string& what = "");
const std::vector<BvhLayout>& all_bvh_layouts();

// A scene's BVH in the one layout it was converted to; only that layout's storage is filled.
struct SceneBvh {
    BvhLayout layout = BvhLayout::kBvh2;
    std::vector<BvhNode> bvh2_nodes;
    std::vector<CwbvhNode> cwbvh_nodes;
    int depth = 0;      // deepest leaf of the binary tree it came from
    size_t leaves = 0;  // leaves of that tree

    size_t node_count() const;
    size_t memory_bytes() const;
};

// What the binary build must deliver for `layout` (cwbvh leaves hold at most three triangles).
BvhBuildOptions bvh_build_options(BvhLayout layout);

// `order` receives the layout's triangle order (order[i] = original index of the triangle in slot i):
// bvh.order for bvh2, regrouped per node for cwbvh. The caller permutes its triangle arrays by it.
SceneBvh convert_bvh(const BinaryBvh& bvh, BvhLayout layout, std::vector<uint32_t>& order);

// The traversal of scene.bvh.layout over triangles in BVH order, on the host (tests, host-side
// queries). Same semantics as kernels/traversal/bvh.h: closest hit in (0, tmax); any occluder in (0, tmax).
Hit intersect_closest(const SceneBvh& bvh, const std::vector<TriVerts>& tris, const Ray& ray, float tmax = kInfinity);
bool occluded(const SceneBvh& bvh, const std::vector<TriVerts>& tris, const Ray& ray, float tmax);

// The view the kernels traverse (kernels/traversal/bvh_traverse.h), over host memory.
BvhView bvh_view(const SceneBvh& bvh, const std::vector<TriVerts>& tris);

}  // namespace pkrt
