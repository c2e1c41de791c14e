// Tangents for normal-mapped meshes that carry none (OBJ, PLY): Lengyel's per-vertex accumulation of
// dP/du and dP/dv, as the glTF loader generates them, orthogonalised against each corner's normal.
#pragma once

#include <cstddef>

#include "render/scene/scene.h"

namespace pkrt {

// Fills scene.tangents for triangles [first, scene.tris.size()) whose material has a normal map. Corners
// are one vertex where position, normal and texture coordinates are all equal (so a UV seam or a
// mirrored half keeps its own tangents).
void generate_tangents(Scene& scene, size_t first);

}  // namespace pkrt
