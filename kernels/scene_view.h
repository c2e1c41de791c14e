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
    const Material* materials;
    const TextureView* textures;
    LightsView lights;
    Environment env;
};

}  // namespace pkrt
