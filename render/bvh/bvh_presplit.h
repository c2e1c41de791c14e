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

#include "render/bvh/bvh_build.h"

namespace pkrt {

struct BvhReference {
    uint32_t tri;
    Aabb box;  // within the triangle's own box, holding every point of the triangle the piece covers
};

// A convex piece of a triangle cut by axis-aligned planes, kept in place so that cutting allocates
// nothing: a triangle within a box has at most 3 + 6 corners.
struct ClipPolygon {
    static constexpr int kMaxCorners = 24;
    Vec3 v[kMaxCorners];
    int n = 0;
};

ClipPolygon triangle_polygon(const TriVerts& t);

// Splits `in` by the plane p[axis] = c into the parts below and above it. Corners on the plane go to
// both sides, new corners lie exactly on it. `in` has at most kMaxCorners / 2 corners (a side gains at
// most one corner per edge). Pre-splitting and spatial splits (render/bvh/bvh_sbvh.cpp) both cut with it,
// and only ever by the plane of the split: clipping against a plane the polygon lies in (a flat axis of
// the piece's box) would turn rounding into arbitrary cuts.
void split_polygon(const ClipPolygon& in, int axis, float c, ClipPolygon& below, ClipPolygon& above);

inline void set_axis(Vec3& v, int axis, float value) { (axis == 0 ? v.x : axis == 1 ? v.y : v.z) = value; }

// Up to `budget` x tris.size() extra references (0: one per triangle), given to triangles in
// proportion to their boxes' surface area and cut at the midpoint of the longest axis, recursively.
std::vector<BvhReference> presplit_triangles(const std::vector<TriVerts>& tris, float budget);

}  // namespace pkrt
