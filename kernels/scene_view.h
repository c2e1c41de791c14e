// Everything the per-ray code reads about a scene, as plain pointers and values. The host builds one
// over its std::vectors (CPU backend) or over device allocations (CUDA backend); the code that reads it
// cannot tell the difference.
#pragma once

#include "bvh_traverse.h"
#include "environment.h"
#include "material.h"
#include "texture.h"

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

struct LightsView {
    const int32_t* tris;   // emissive triangles (BVH order indices)
    const float* cdf;      // inclusive cumulative selection probability over `tris`; last entry is 1
    const float* tri_pmf;  // per scene triangle: its probability among triangle lights (0 if not one)
    int32_t count;
    float env_select;      // probability that light sampling picks the environment
};

struct SceneView {
    BvhView bvh;
    const TriShading* shading;
    const TriTangents* tangents;  // nullptr when no material has a normal map
    const Material* materials;
    const TextureView* textures;
    LightsView lights;
    Environment env;
    // Whether the scene uses an environment map, metal-rough materials or textures other than a base
    // colour: the GPU kernels without them are built apart (kernels/environment.h, kFull).
    int32_t full_shading;
};

PKRT_HD Vec2 interpolate_uv(const TriShading& sh, float b1, float b2) {
    float b0 = 1.0f - b1 - b2;
    return {sh.uv0.x * b0 + sh.uv1.x * b1 + sh.uv2.x * b2, sh.uv0.y * b0 + sh.uv1.y * b1 + sh.uv2.y * b2};
}

// Radiance leaving the front face at barycentrics (b1, b2): the factor times its texture, if any. The
// light tables weigh triangles by the factor alone, an upper bound of the textured emission.
template <bool kFull = true>
PKRT_HD Vec3 surface_emission(const SceneView& s, const Material& m, const TriShading& sh, float b1, float b2) {
    if constexpr (kFull) {
        if (m.emission_texture >= 0) {
            Vec2 uv = interpolate_uv(sh, b1, b2);
            return m.emission * texture_sample(s.textures[m.emission_texture], uv.x, uv.y);
        }
    }
    return m.emission;
}

}  // namespace pkrt
