// Everything the per-ray code reads about a scene, as plain pointers and values. The host builds one
// over its std::vectors (CPU backend) or over device allocations (CUDA backend); the code that reads it
// cannot tell the difference.
#pragma once

#include "kernels/traversal/bvh_traverse.h"
#include "kernels/shading/environment.h"
#include "kernels/shading/material.h"
#include "kernels/shading/texture.h"

namespace pkrt {

struct LightsView {
    const int32_t* tris;   // emissive triangles (BVH order indices)
    const float* cdf;      // inclusive cumulative selection probability over `tris`; last entry is 1
    const float* tri_pmf;  // per scene triangle: its probability among triangle lights (0 if not one)
    int32_t count;
    float env_select;  // probability that light sampling picks the environment
};

struct SceneView {
    BvhView bvh;
    const TriShading* shading;
    const TriTangents* tangents;  // nullptr when no material has a normal map
    const Material* materials;
    const TextureView* textures;
    LightsView lights;
    Environment env;
    // Whether the scene uses an environment map, metal-rough materials, textures other than a base
    // colour or cut-outs: the GPU kernels without them are built apart (kernels/shading/environment.h, kFull).
    int32_t full_shading;
    // Whether some triangle is a cut-out (kernels/traversal/cutout.h); such a scene is also a full one. Kernels
    // whose traversal is out of line or built apart test cut-outs only then, so that a full scene
    // without them traverses as fast as before.
    int32_t cutouts;
};

// The coverage test traversal runs: the scene's cut-outs, or none (the builds without the test).
template <bool kCutouts> struct SurfacesOf {
    using Type = OpaqueSurfaces;
    static PKRT_HD Type of(const SceneView&) { return {}; }
};
template <> struct SurfacesOf<true> {
    using Type = CutoutSurfaces;
    static PKRT_HD Type of(const SceneView& s) { return {s.shading, s.textures}; }
};

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
