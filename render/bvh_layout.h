// The layouts a BinaryBvh (render/bvh_build.h) can be converted into for traversal, and the host-side
// queries that dispatch on whichever one a scene holds. A layout is chosen at prepare_scene() time; the
// GPU kernels and the CPU backend read it through SceneView.
//
// Adding a layout: a BvhLayout value and its name, its storage in SceneBvh, a case in every switch of
// bvh_layout.cpp (the compiler's -Wswitch lists them), its traversal in kernels/, and a structural check
// in tests/test_bvh.cpp; the layout-independent tests there then run on it unchanged.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "bvh_build.h"
#include "kernels/bvh.h"

namespace pkrt {

enum class BvhLayout {
    kBvh2,  // "bvh2": kernels/bvh.h, two-wide nodes holding both child boxes (Aila & Laine)
};

std::string bvh_layout_name(BvhLayout layout);
// Throws Error naming the valid layouts when `name` is none of them.
BvhLayout parse_bvh_layout(const std::string& name);
const std::vector<BvhLayout>& all_bvh_layouts();

// A scene's BVH in the one layout it was converted to; only that layout's storage is filled.
struct SceneBvh {
    BvhLayout layout = BvhLayout::kBvh2;
    std::vector<BvhNode> bvh2_nodes;
    int depth = 0;      // deepest leaf of the binary tree it came from
    size_t leaves = 0;  // leaves of that tree

    size_t node_count() const;
    size_t memory_bytes() const;
};

// Triangles keep the slots of bvh.order: the caller permutes its triangle arrays by it.
SceneBvh convert_bvh(const BinaryBvh& bvh, BvhLayout layout);

// The traversal of scene.bvh.layout over triangles in BVH order, on the host (tests, host-side
// queries). Same semantics as kernels/bvh.h: closest hit in (0, tmax); any occluder in (0, tmax).
Hit intersect_closest(const SceneBvh& bvh, const std::vector<TriVerts>& tris, const Ray& ray,
                      float tmax = kInfinity);
bool occluded(const SceneBvh& bvh, const std::vector<TriVerts>& tris, const Ray& ray, float tmax);

// The bvh2 view the kernels traverse. Throws Error if `bvh` holds another layout.
BvhView bvh2_view(const SceneBvh& bvh, const std::vector<TriVerts>& tris);

}  // namespace pkrt
