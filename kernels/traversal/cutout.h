// Cut-outs: surfaces whose coverage comes from a texture's alpha (OBJ map_d, glTF alphaMode MASK and
// BLEND), tested during traversal, so that a masked-out texel neither stops a ray nor casts a shadow.
//
// A triangle's coverage rule lives in the spare words of its vertex rows (TriVerts::pad0-2), which
// traversal loads anyway: an opaque triangle costs one compare of a word already in a register, and the
// coverage texture is read only for triangles that have one. prepare_scene writes them (set_cutout).
//   pad0  0: opaque; 1: coverage = factor; k >= 2: coverage = factor * alpha of texture view k - 2
//   pad1  cutoff: coverage >= cutoff is solid (MASK); 0: blended, solid with probability = coverage
//   pad2  factor (glTF baseColorFactor's alpha; 1 for OBJ)
// Blended coverage is stochastic transparency (Enderton et al. 2010): whether a ray passes is a hash of
// the triangle and the ray, so a query decides once per triangle, the CPU and the GPU decide alike, and
// the expected image is the alpha-blended one.
//
// Traversal takes the test as a policy: OpaqueSurfaces compiles to nothing (the kernels built for
// scenes without the full per-ray code, kernels/shading/environment.h's kFull), CutoutSurfaces reads the rule.
#pragma once

#include "kernels/shading/rng.h"
#include "kernels/shading/surface.h"
#include "kernels/shading/texture.h"
#include "kernels/traversal/triangle.h"

namespace pkrt {

struct TriCutout {
    int32_t rule;
    float cutoff;
    float factor;
};

PKRT_HD void set_cutout(TriVerts& t, const TriCutout& c) {
    t.pad0 = int_as_float_bits(c.rule);
    t.pad1 = c.cutoff;
    t.pad2 = c.factor;
}

PKRT_HD TriCutout tri_cutout(const TriVerts& t) { return {float_as_int_bits(t.pad0), t.pad1, t.pad2}; }

struct OpaqueSurfaces {
    PKRT_HD bool covers(int32_t, int32_t, float, float, float, float, const Ray&) const { return true; }
};

// In [0, 1): the same for the same triangle and ray on every backend.
PKRT_HD float stochastic_coverage_sample(int32_t prim, const Ray& ray) {
    const float k[6] = {ray.o.x, ray.o.y, ray.o.z, ray.d.x, ray.d.y, ray.d.z};
    uint32_t h = hash_u32(static_cast<uint32_t>(prim));
    for (float x : k) h = hash_u32(h ^ static_cast<uint32_t>(float_as_int_bits(x)));
    return static_cast<float>(h >> 8) * 0x1p-24f;
}

struct CutoutSurfaces {
    const TriShading* shading;
    const TextureView* textures;

    // Whether the hit at barycentrics (u, v) of triangle `prim`, whose rows hold (rule, cutoff, factor),
    // stops the ray.
    PKRT_HD bool covers(int32_t prim, int32_t rule, float cutoff, float factor, float u, float v,
                        const Ray& ray) const {
        if (rule == 0) return true;
        float coverage = factor;
        if (rule >= 2) {
            Vec2 uv = interpolate_uv(shading[prim], u, v);
            coverage *= texture_alpha(textures[rule - 2], uv.x, uv.y);
        }
        if (cutoff > 0.0f) return coverage >= cutoff;
        return stochastic_coverage_sample(prim, ray) < coverage;
    }
};

}  // namespace pkrt
