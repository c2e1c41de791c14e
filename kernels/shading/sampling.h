// Warping functions from the unit square to directions and points, with their densities.
#pragma once

#include "kernels/vec3.h"

namespace pkrt {

// Shirley-Chiu concentric map: area-preserving and low-distortion, so stratification survives.
PKRT_HD Vec2 sample_concentric_disk(float u0, float u1) {
    float ox = 2.0f * u0 - 1.0f, oy = 2.0f * u1 - 1.0f;
    if (ox == 0.0f && oy == 0.0f) return {0.0f, 0.0f};
    float r, theta;
    if (fabsf(ox) > fabsf(oy)) {
        r = ox;
        theta = (kPi / 4.0f) * (oy / ox);
    } else {
        r = oy;
        theta = (kPi / 2.0f) - (kPi / 4.0f) * (ox / oy);
    }
    float sn, cs;
    sincos_angle(theta, &sn, &cs);
    return {r * cs, r * sn};
}

// Local frame: z is the normal.
PKRT_HD Vec3 sample_cosine_hemisphere(float u0, float u1) {
    Vec2 d = sample_concentric_disk(u0, u1);
    float z = sqrtf(max_f(0.0f, 1.0f - d.x * d.x - d.y * d.y));
    return {d.x, d.y, z};
}
PKRT_HD float cosine_hemisphere_pdf(float cos_theta) { return max_f(cos_theta, 0.0f) * kInvPi; }

PKRT_HD Vec3 sample_uniform_sphere(float u0, float u1) {
    float z = 1.0f - 2.0f * u0;
    float r = sqrtf(max_f(0.0f, 1.0f - z * z));
    float phi = 2.0f * kPi * u1;
    float sn, cs;
    sincos_angle(phi, &sn, &cs);
    return {r * cs, r * sn, z};
}
PKRT_HD float uniform_sphere_pdf() { return kInv4Pi; }

// Uniform barycentrics on a triangle (Heitz 2019 would be lower-distortion; the classic square-root map
// is exact in density and sufficient for light sampling).
PKRT_HD Vec2 sample_uniform_triangle(float u0, float u1) {
    float su = sqrtf(u0);
    return {1.0f - su, u1 * su};
}

// Power heuristic with beta = 2 (Veach 1997). Written so that an infinite pdf (delta lobe) gives 1.
PKRT_HD float power_heuristic(float pdf_a, float pdf_b) {
    float a2 = pdf_a * pdf_a, b2 = pdf_b * pdf_b;
    if (a2 + b2 == 0.0f) return 0.0f;
    if (!is_finite(a2)) return 1.0f;
    return a2 / (a2 + b2);
}

}  // namespace pkrt
