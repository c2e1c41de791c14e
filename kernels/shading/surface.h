// Per-triangle shading attributes, in BVH order like the vertices: what shading and the cut-out test
// read about the triangle a ray hit.
#pragma once

#include "kernels/vec3.h"

namespace pkrt {

// Shading attributes per triangle, in BVH order like the vertices (64 bytes).
struct TriShading {
    Vec3 n0, n1, n2;  // vertex normals; all zero when the mesh has none (flat shading)
    Vec2 uv0, uv1, uv2;
    int32_t material;
};
static_assert(sizeof(TriShading) == 64, "TriShading is sized for aligned device loads");

// Vertex tangents for normal mapping, per triangle in BVH order like TriShading but in their own array,
// which exists only when some material has a normal map (so other scenes pay nothing, and TriShading
// keeps its 64 bytes). Bitangent = w * cross(normal, tangent), glTF's convention. All zero: no tangents.
struct TriTangents {
    Vec3 t0;
    float w0;
    Vec3 t1;
    float w1;
    Vec3 t2;
    float w2;
};
static_assert(sizeof(TriTangents) == 48, "TriTangents is sized for aligned device loads");

PKRT_HD Vec2 interpolate_uv(const TriShading& sh, float b1, float b2) {
    float b0 = 1.0f - b1 - b2;
    return {sh.uv0.x * b0 + sh.uv1.x * b1 + sh.uv2.x * b2, sh.uv0.y * b0 + sh.uv1.y * b1 + sh.uv2.y * b2};
}

}  // namespace pkrt
