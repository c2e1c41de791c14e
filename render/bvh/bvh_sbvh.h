// Spatial split BVH (Stich, Friedrich & Dietrich, "Spatial Splits in Bounding Volume Hierarchies",
// HPG 2009): at every node the builder weighs the binned object split against a spatial split, which
// cuts the node's box by a plane and sends a triangle that straddles it to both children, each with the
// box of its part. Spatial splits are tried only where the object split's children overlap by more than
// `sbvh_alpha` of the root's surface area (so reference growth stays small). Subtrees near the top are
// built on threads of their own and spliced in. Slower to build than the binned builder (several times
// on Crytek Sponza: BENCHMARKS.md, "Numbers from code comments"): an option (BvhBuildOptions::spatial_splits).
#pragma once

#include "render/bvh/bvh_build.h"

namespace pkrt {

BinaryBvh build_sbvh(const std::vector<TriVerts>& tris, const BvhBuildOptions& options);

}  // namespace pkrt
