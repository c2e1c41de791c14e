// Triangle pre-splitting (after Karras & Aila, "Fast Parallel Construction of High-Quality Bounding
// Volume Hierarchies", HPG 2013): before the binned SAH build, large triangles whose boxes hold mostly
// empty space (the long diagonal slivers of architectural scenes) are cut into several references,
// each with the tight box of its piece of the triangle. The build then sorts the pieces like any other
// primitive, so a leaf's box no longer spans the whole sliver. A triangle's references share its index
// (the traversal tests the whole triangle in every leaf that holds one), so the BVH's triangle order
// repeats it. A cheap form of spatial splits (SBVH): it never looks at the tree it feeds.
#pragma once

#include <cstdint>
#include <vector>

#include "bvh_build.h"

namespace pkrt {

struct BvhReference {
    uint32_t tri;
    Aabb box;  // within the triangle's own box, holding every point of the triangle the piece covers
};

// Up to `budget` x tris.size() extra references (0: one per triangle), given to triangles in
// proportion to their boxes' surface area and cut at the midpoint of the longest axis, recursively.
std::vector<BvhReference> presplit_triangles(const std::vector<TriVerts>& tris, float budget);

}  // namespace pkrt
