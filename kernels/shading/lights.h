// Light sampling for next-event estimation: emissive triangles chosen in proportion to their power
// (luminance of emission times area), or the environment. Densities are per unit solid angle at the
// shading point and include the selection probability, so MIS can compare them with BSDF densities.
#pragma once

#include "kernels/scene_view.h"

namespace pkrt {

struct LightSample {
    Vec3 wi;        // unit direction towards the light
    float dist;     // distance to the sampled point; kInfinity for the environment
    Vec3 radiance;  // emitted radiance towards the shading point (0 from a light's back face)
    float pdf;      // solid-angle density, selection included; 0 = no sample
};

PKRT_HD int32_t find_cdf_index(const float* cdf, int32_t count, float u) {
    int32_t lo = 0, hi = count - 1;  // first index with cdf[i] > u
    while (lo < hi) {
        int32_t mid = (lo + hi) >> 1;
        if (cdf[mid] > u) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

PKRT_HD Vec3 triangle_geometric_normal(Vec3 p0, Vec3 p1, Vec3 p2, float* area) {
    Vec3 c = cross(p1 - p0, p2 - p0);
    float len = length(c);
    *area = 0.5f * len;
    return len > 0.0f ? c * (1.0f / len) : Vec3{0.0f, 0.0f, 1.0f};
}

// Solid-angle density of reaching emissive triangle `prim` at distance t with cosine cos_light there.
PKRT_HD float triangle_light_pdf(const SceneView& s, int32_t prim, float area, float t, float cos_light) {
    if (cos_light <= 0.0f || area <= 0.0f) return 0.0f;
    return (1.0f - s.lights.env_select) * s.lights.tri_pmf[prim] * (t * t) / (area * cos_light);
}

// Solid-angle density with which light sampling would have produced direction `dir` to the environment.
template <bool kFull = true> PKRT_HD float environment_light_pdf(const SceneView& s, Vec3 dir) {
    return s.lights.env_select > 0.0f ? s.lights.env_select * environment_pdf<kFull>(s.env, dir) : 0.0f;
}

template <bool kFull = true>
PKRT_HD LightSample sample_light(const SceneView& s, Vec3 p, float u_select, float u0, float u1) {
    LightSample ls;
    ls.pdf = 0.0f;
    ls.radiance = splat(0.0f);
    ls.dist = kInfinity;
    ls.wi = Vec3{0.0f, 0.0f, 1.0f};
    float env_p = s.lights.env_select;
    if (u_select < env_p) {
        float pdf;
        ls.wi = environment_sample<kFull>(s.env, u0, u1, &pdf, &ls.radiance);
        ls.pdf = pdf * env_p;
        return ls;
    }
    if (s.lights.count == 0) return ls;
    float u = env_p > 0.0f ? (u_select - env_p) / (1.0f - env_p) : u_select;
    int32_t li = find_cdf_index(s.lights.cdf, s.lights.count, u);
    int32_t prim = s.lights.tris[li];
    Vec3 p0, p1, p2;
    load_tri(s.bvh.tris, prim, p0, p1, p2);
    Vec2 b = sample_uniform_triangle(u0, u1);
    Vec3 q = p0 * (1.0f - b.x - b.y) + p1 * b.x + p2 * b.y;
    float area;
    Vec3 n = triangle_geometric_normal(p0, p1, p2, &area);
    Vec3 to = q - p;
    float d2 = dot(to, to);
    if (d2 <= 0.0f) return ls;
    float d = sqrtf(d2);
    ls.wi = to * (1.0f / d);
    ls.dist = d;
    float cos_light = -dot(ls.wi, n);
    ls.pdf = triangle_light_pdf(s, prim, area, d, cos_light);
    if (ls.pdf > 0.0f) {
        const TriShading& sh = s.shading[prim];
        ls.radiance = surface_emission<kFull>(s, s.materials[sh.material], sh, b.x, b.y);
    }
    return ls;
}

}  // namespace pkrt
