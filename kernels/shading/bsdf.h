// BSDFs in the local shading frame (normal = +z). eval returns f (no cosine), pdf the solid-angle
// density of sample(), and sample() the direction with its throughput weight f·|cos|/pdf.
//
// Diffuse and conductor are one-sided here: the caller flips the frame so that wo.z > 0 (two-sided
// surfaces). The dielectric keeps the frame's outward orientation: wo.z < 0 means the ray is inside.
// Transmission is scaled by 1/eta'^2 because the path carries radiance (pbrt's TransportMode::Radiance).
#pragma once

#include "kernels/shading/material.h"
#include "kernels/shading/sampling.h"

namespace pkrt {

struct BsdfParams {
    int32_t type;
    Vec3 albedo;  // after texture lookup
    float alpha;
    float eta;              // dielectric: inside IOR over outside IOR
    float metallic = 0.0f;  // kMetalRough: 0 = dielectric base, 1 = metal (after texture lookup)
};

struct BsdfSample {
    Vec3 wi;
    Vec3 weight;  // f * |cos(wi)| / pdf
    float pdf;    // for a delta lobe: the discrete probability of the lobe that was chosen
    bool delta;
};

PKRT_HD bool bsdf_is_delta(const BsdfParams& p) {
    if (p.type == kDiffuse || p.type == kMetalRough) return false;  // metal-rough: see metal_rough_alpha
    return p.alpha < kSmoothAlpha || (p.type == kDielectric && p.eta == 1.0f);
}

// ---- GGX microfacet distribution (isotropic), height-correlated Smith masking ----

PKRT_HD float ggx_d(Vec3 m, float alpha) {
    // cos^2 (a^2 - 1) + 1 written as sin^2 + a^2 cos^2: near the peak of a sharp lobe the textbook form
    // cancels to ~a^2 and float rounding of cos^2 destroys it (an 80% error at alpha = 1e-3).
    float a2 = alpha * alpha;
    float t = (m.x * m.x + m.y * m.y) + a2 * (m.z * m.z);
    return a2 / (kPi * t * t);
}

PKRT_HD float ggx_lambda(Vec3 w, float alpha) {
    float c2 = w.z * w.z;
    if (c2 <= 0.0f) return 0.0f;
    float tan2 = max_f(0.0f, 1.0f - c2) / c2;
    return 0.5f * (sqrtf(1.0f + alpha * alpha * tan2) - 1.0f);
}

PKRT_HD float ggx_g1(Vec3 w, float alpha) { return 1.0f / (1.0f + ggx_lambda(w, alpha)); }
PKRT_HD float ggx_g2(Vec3 wo, Vec3 wi, float alpha) {
    return 1.0f / (1.0f + ggx_lambda(wo, alpha) + ggx_lambda(wi, alpha));
}

// Density of visible normals seen from w (either hemisphere).
PKRT_HD float ggx_d_visible(Vec3 w, Vec3 m, float alpha) {
    float cw = fabsf(w.z);
    if (cw == 0.0f) return 0.0f;
    return ggx_g1(w, alpha) / cw * ggx_d(m, alpha) * fabsf(dot(w, m));
}

// Heitz 2018, "Sampling the GGX Distribution of Visible Normals". Returns m with m.z >= 0.
PKRT_HD Vec3 ggx_sample_visible(Vec3 w, float alpha, float u0, float u1) {
    Vec3 vh = normalize(Vec3{alpha * w.x, alpha * w.y, w.z});
    if (vh.z < 0.0f) vh = -vh;
    float lensq = vh.x * vh.x + vh.y * vh.y;
    Vec3 t1 = lensq > 1e-12f ? Vec3{-vh.y, vh.x, 0.0f} * (1.0f / sqrtf(lensq)) : Vec3{1.0f, 0.0f, 0.0f};
    Vec3 t2 = cross(vh, t1);
    float r = sqrtf(u0);
    float phi = 2.0f * kPi * u1;
    float sn, cs;
    sincos_angle(phi, &sn, &cs);
    float p1 = r * cs, p2 = r * sn;
    float s = 0.5f * (1.0f + vh.z);
    p2 = (1.0f - s) * sqrtf(max_f(0.0f, 1.0f - p1 * p1)) + s * p2;
    Vec3 nh = t1 * p1 + t2 * p2 + vh * sqrtf(max_f(0.0f, 1.0f - p1 * p1 - p2 * p2));
    return normalize(Vec3{alpha * nh.x, alpha * nh.y, max_f(1e-6f, nh.z)});
}

// ---- Fresnel ----

PKRT_HD Vec3 fresnel_schlick(Vec3 f0, float cos_theta) {
    float m = clamp_f(1.0f - cos_theta, 0.0f, 1.0f);
    float m5 = (m * m) * (m * m) * m;
    return f0 + (splat(1.0f) - f0) * m5;
}

// Unpolarised Fresnel reflectance of a dielectric interface; cos_i < 0 means from inside.
PKRT_HD float fresnel_dielectric(float cos_i, float eta) {
    cos_i = clamp_f(cos_i, -1.0f, 1.0f);
    if (cos_i < 0.0f) {
        eta = 1.0f / eta;
        cos_i = -cos_i;
    }
    float sin2_t = (1.0f - cos_i * cos_i) / (eta * eta);
    if (sin2_t >= 1.0f) return 1.0f;  // total internal reflection
    float cos_t = sqrtf(max_f(0.0f, 1.0f - sin2_t));
    float r_parl = (eta * cos_i - cos_t) / (eta * cos_i + cos_t);
    float r_perp = (cos_i - eta * cos_t) / (cos_i + eta * cos_t);
    return 0.5f * (r_parl * r_parl + r_perp * r_perp);
}

PKRT_HD Vec3 reflect(Vec3 wo, Vec3 n) { return -wo + n * (2.0f * dot(wo, n)); }

// Refracts wi through a surface with normal n (either side). eta = inside/outside IOR. Returns false on
// total internal reflection. *etap receives the relative IOR actually crossed.
PKRT_HD bool refract(Vec3 wi, Vec3 n, float eta, float* etap, Vec3* wt) {
    float cos_i = dot(n, wi);
    if (cos_i < 0.0f) {
        eta = 1.0f / eta;
        cos_i = -cos_i;
        n = -n;
    }
    float sin2_i = max_f(0.0f, 1.0f - cos_i * cos_i);
    float sin2_t = sin2_i / (eta * eta);
    if (sin2_t >= 1.0f) return false;
    float cos_t = sqrtf(1.0f - sin2_t);
    *wt = -wi / eta + n * (cos_i / eta - cos_t);
    *etap = eta;
    return true;
}

// ---- Diffuse ----

PKRT_HD Vec3 diffuse_eval(const BsdfParams& p, Vec3 wo, Vec3 wi) {
    if (wo.z <= 0.0f || wi.z <= 0.0f) return splat(0.0f);
    return p.albedo * kInvPi;
}

// ---- Dielectric (smooth and rough) ----

// The half vector of a reflection or refraction pair, oriented to +z; false where none exists.
PKRT_HD bool dielectric_half_vector(float eta, Vec3 wo, Vec3 wi, Vec3* wm, float* etap, bool* reflect_pair) {
    float cos_o = wo.z, cos_i = wi.z;
    if (cos_o == 0.0f || cos_i == 0.0f) return false;
    *reflect_pair = cos_o * cos_i > 0.0f;
    *etap = 1.0f;
    if (!*reflect_pair) *etap = cos_o > 0.0f ? eta : 1.0f / eta;
    Vec3 m = wi * *etap + wo;
    if (dot(m, m) == 0.0f) return false;
    m = normalize(m);
    if (m.z < 0.0f) m = -m;
    // Discard back-facing microfacets.
    if (dot(m, wi) * cos_i < 0.0f || dot(m, wo) * cos_o < 0.0f) return false;
    *wm = m;
    return true;
}

PKRT_HD_OUTLINE Vec3 dielectric_eval_pdf(const BsdfParams& p, Vec3 wo, Vec3 wi, float* pdf) {
    *pdf = 0.0f;
    if (p.alpha < kSmoothAlpha || p.eta == 1.0f) return splat(0.0f);
    Vec3 m;
    float etap;
    bool refl;
    if (!dielectric_half_vector(p.eta, wo, wi, &m, &etap, &refl)) return splat(0.0f);
    float f = fresnel_dielectric(dot(wo, m), p.eta);
    float d = ggx_d(m, p.alpha);
    float dv = ggx_d_visible(wo, m, p.alpha);
    if (refl) {
        *pdf = dv / (4.0f * fabsf(dot(wo, m))) * f;
        return splat(d * ggx_g2(wo, wi, p.alpha) * f / fabsf(4.0f * wi.z * wo.z));
    }
    float denom = dot(wi, m) + dot(wo, m) / etap;
    float denom2 = denom * denom;
    *pdf = dv * (fabsf(dot(wi, m)) / denom2) * (1.0f - f);
    float ft = d * (1.0f - f) * ggx_g2(wo, wi, p.alpha) * fabsf(dot(wi, m) * dot(wo, m) / (denom2 * wi.z * wo.z));
    return p.albedo * (ft / (etap * etap));
}

PKRT_HD Vec3 dielectric_eval(const BsdfParams& p, Vec3 wo, Vec3 wi) {
    float pdf;
    return dielectric_eval_pdf(p, wo, wi, &pdf);
}

PKRT_HD float dielectric_pdf(const BsdfParams& p, Vec3 wo, Vec3 wi) {
    float pdf;
    dielectric_eval_pdf(p, wo, wi, &pdf);
    return pdf;
}

PKRT_HD_OUTLINE bool dielectric_sample(const BsdfParams& p, Vec3 wo, float u0, float u1, float u2, BsdfSample& s) {
    if (wo.z == 0.0f) return false;
    if (p.alpha < kSmoothAlpha || p.eta == 1.0f) {
        float r = fresnel_dielectric(wo.z, p.eta);
        if (u0 < r) {
            s.wi = Vec3{-wo.x, -wo.y, wo.z};
            s.weight = splat(1.0f);
            s.pdf = r;
        } else {
            float etap;
            Vec3 wi;
            if (!refract(wo, Vec3{0.0f, 0.0f, 1.0f}, p.eta, &etap, &wi)) return false;
            s.wi = wi;
            s.weight = p.albedo * (1.0f / (etap * etap));
            s.pdf = 1.0f - r;
        }
        s.delta = true;
        return true;
    }
    Vec3 m = ggx_sample_visible(wo, p.alpha, u1, u2);
    float r = fresnel_dielectric(dot(wo, m), p.eta);
    Vec3 wi;
    if (u0 < r) {
        wi = reflect(wo, m);
        if (wi.z * wo.z <= 0.0f) return false;
    } else {
        float etap;
        if (!refract(wo, m, p.eta, &etap, &wi)) return false;
        if (wi.z * wo.z >= 0.0f || wi.z == 0.0f) return false;
    }
    float pdf;
    Vec3 f = dielectric_eval_pdf(p, wo, wi, &pdf);
    if (!(pdf > 0.0f)) return false;
    s.wi = wi;
    s.pdf = pdf;
    s.delta = false;
    s.weight = f * (fabsf(wi.z) / pdf);
    return true;
}

// ---- Opaque GGX reflection: the conductor and glTF 2.0's metal-roughness ----
//
// glTF 2.0 specification, Appendix B ("BRDF Implementation"), B.3 "Complete model":
//   metal_brdf      = specular_brdf(alpha) * (baseColor + (1 - baseColor) (1 - |V.H|)^5)   (conductor_fresnel)
//   dielectric_brdf = fresnel_mix(ior 1.5, base = diffuse_brdf(baseColor), layer = specular_brdf(alpha))
//   material        = mix(dielectric_brdf, metal_brdf, metallic)
// with specular_brdf = D G2 / (4 |N.L| |N.V|) (GGX, height-correlated Smith), diffuse_brdf = baseColor / pi
// and the dielectric's F0 = ((1 - 1.5) / (1 + 1.5))^2 = 0.04. Both specular terms are Schlick in the same
// |V.H| and share D G2, so their mix is one specular lobe with F0 = mix(0.04, baseColor, metallic): the
// spec's own simplification, exact for the specular part.
//
// One departure, for the diffuse base only. fresnel_mix weights it by 1 - F(|V.H|), about 0.96 for most
// light directions even when wo is grazing, while the specular layer then reflects F(N.V) -> 1: a smooth
// white dielectric seen at 85 degrees would reflect 0.94 (base) + 0.65 (specular) = 1.59 times the energy
// that arrives. Here the base is weighted by what the smooth interface lets through on both ways,
// (1 - F(N.V)) (1 - F(N.L)) with F the dielectric's Schlick term (the coupled diffuse of Shirley et al.
// 1997, "A practitioners' assessment of light reflection models"): reciprocal, and the sum stays at most
// 1 (tests/kernels/test_bsdf.cpp sweeps metallic x roughness x angle). The price: a white base at normal
// incidence reflects 0.88 diffusely instead of the spec's 0.96.

// GGX below kSmoothAlpha would be a delta lobe, and a mixture of a delta and a diffuse lobe would need a
// per-sample delta flag in NEE and MIS that no other material needs; the GGX terms are accurate down to
// kSmoothAlpha (the conductor's tests hold it there), so a smoother surface is rendered at that alpha,
// whose highlight is narrower than a pixel of any view pkrt renders.
PKRT_HD float metal_rough_alpha(const BsdfParams& p) { return max_f(p.alpha, kSmoothAlpha); }

PKRT_HD float schlick_dielectric(float cos_theta) {
    float m = clamp_f(1.0f - cos_theta, 0.0f, 1.0f);
    return 0.04f + 0.96f * ((m * m) * (m * m) * m);
}

// Probability of sampling the GGX lobe rather than the cosine lobe, from wo alone (so the mixture pdf is
// exact): the lobes' weights at the macro normal, in luminance (linear, so the Schlick term of the
// base colour's luminance is the luminance of its Schlick term). Kept within [0.1, 0.9] while both
// lobes exist, so neither is starved where the estimate is off (rough lobes, coloured bases); 1 where
// the base is black.
PKRT_HD float metal_rough_specular_probability(const BsdfParams& p, float cos_o) {
    float metallic = clamp_f(p.metallic, 0.0f, 1.0f);
    float base = luminance(p.albedo);
    float m = clamp_f(1.0f - cos_o, 0.0f, 1.0f);
    float m5 = (m * m) * (m * m) * m;
    float f0 = 0.04f * (1.0f - metallic) + base * metallic;
    float spec = f0 + (1.0f - f0) * m5;
    float diffuse = (1.0f - metallic) * (0.96f - 0.96f * m5) * base;
    if (!(diffuse > 0.0f)) return 1.0f;
    return clamp_f(spec / (spec + diffuse), 0.1f, 0.9f);
}

// The conductor is glTF's metal (metallic = 1) without the alpha floor: below kSmoothAlpha it is a
// mirror. One outlined pair serves both models. Measured on sm_90 (wavefront shade kernel, 89 registers
// with the conductor alone): the metal-rough model as a pair of its own took it to 95, this pair with
// the GGX lobe evaluated before the base to 91.
// f and the pdf of sample() together: they share the half vector.
PKRT_HD_OUTLINE Vec3 reflection_eval_pdf(const BsdfParams& p, Vec3 wo, Vec3 wi, float* pdf) {
    *pdf = 0.0f;
    bool metal_rough = p.type == kMetalRough;
    if (wo.z <= 0.0f || wi.z <= 0.0f || (!metal_rough && p.alpha < kSmoothAlpha)) return splat(0.0f);
    float alpha = metal_rough ? metal_rough_alpha(p) : p.alpha;
    float metallic = metal_rough ? clamp_f(p.metallic, 0.0f, 1.0f) : 1.0f;
    // The GGX lobe first, then the base: fewer values live at once (the kernels' register count).
    Vec3 f = splat(0.0f);
    float pdf_ggx = 0.0f;
    Vec3 m = wo + wi;
    float wom = 0.0f;
    if (dot(m, m) > 0.0f) {
        m = normalize(m);
        wom = dot(wo, m);
    }
    if (wom > 0.0f) {
        pdf_ggx = ggx_d_visible(wo, m, alpha) / (4.0f * wom);
        Vec3 f0 = splat(0.04f * (1.0f - metallic)) + p.albedo * metallic;
        f = fresnel_schlick(f0, wom) * (ggx_d(m, alpha) * ggx_g2(wo, wi, alpha) / (4.0f * wo.z * wi.z));
    }
    if (!metal_rough) {
        *pdf = pdf_ggx;
        return f;
    }
    float p_spec = metal_rough_specular_probability(p, wo.z);
    *pdf = p_spec * pdf_ggx + (1.0f - p_spec) * cosine_hemisphere_pdf(wi.z);
    float diffuse_weight = (1.0f - metallic) * (1.0f - schlick_dielectric(wo.z)) * (1.0f - schlick_dielectric(wi.z));
    return f + p.albedo * (diffuse_weight * kInvPi);
}

// Metal-rough: u0 picks the lobe, (u1, u2) the direction in it. The conductor has the GGX lobe alone.
PKRT_HD_OUTLINE bool reflection_sample(const BsdfParams& p, Vec3 wo, float u0, float u1, float u2, BsdfSample& s) {
    if (wo.z <= 0.0f) return false;
    bool metal_rough = p.type == kMetalRough;
    if (!metal_rough && p.alpha < kSmoothAlpha) {
        s.wi = Vec3{-wo.x, -wo.y, wo.z};
        s.weight = fresnel_schlick(p.albedo, wo.z);
        s.pdf = 1.0f;
        s.delta = true;
        return true;
    }
    Vec3 wi;
    if (!metal_rough || u0 < metal_rough_specular_probability(p, wo.z)) {
        wi = reflect(wo, ggx_sample_visible(wo, metal_rough ? metal_rough_alpha(p) : p.alpha, u1, u2));
    } else {
        wi = sample_cosine_hemisphere(u1, u2);
    }
    if (wi.z <= 0.0f) return false;
    float pdf;
    Vec3 f = reflection_eval_pdf(p, wo, wi, &pdf);
    if (!(pdf > 0.0f)) return false;
    s.wi = wi;
    s.pdf = pdf;
    s.delta = false;
    s.weight = f * (wi.z / pdf);
    return true;
}

// ---- Dispatch ----

// f (no cosine) and the solid-angle pdf of sampling wi, in one pass. kFull: as in kernels/shading/environment.h
// (without it, a kernel has no metal-rough case).
template <bool kFull = true> PKRT_HD Vec3 bsdf_eval_pdf(const BsdfParams& p, Vec3 wo, Vec3 wi, float* pdf) {
    switch (p.type) {
        case kDiffuse: *pdf = wo.z > 0.0f ? cosine_hemisphere_pdf(wi.z) : 0.0f; return diffuse_eval(p, wo, wi);
        case kConductor: return reflection_eval_pdf(p, wo, wi, pdf);
        case kMetalRough:
            if constexpr (kFull) return reflection_eval_pdf(p, wo, wi, pdf);
            else return dielectric_eval_pdf(p, wo, wi, pdf);  // never reached: the host picks the full build
        default: return dielectric_eval_pdf(p, wo, wi, pdf);
    }
}

PKRT_HD Vec3 bsdf_eval(const BsdfParams& p, Vec3 wo, Vec3 wi) {
    float pdf;
    return bsdf_eval_pdf(p, wo, wi, &pdf);
}

PKRT_HD float bsdf_pdf(const BsdfParams& p, Vec3 wo, Vec3 wi) {
    float pdf;
    bsdf_eval_pdf(p, wo, wi, &pdf);
    return pdf;
}

// Draws three uniform numbers in every case so that each bounce consumes the same count of random
// numbers whatever the material: keeps sample streams aligned across backends and easy to reason about.
template <bool kFull = true>
PKRT_HD bool bsdf_sample(const BsdfParams& p, Vec3 wo, float u0, float u1, float u2, BsdfSample& s) {
    switch (p.type) {
        case kDiffuse: {
            if (wo.z <= 0.0f) return false;
            Vec3 wi = sample_cosine_hemisphere(u1, u2);
            if (wi.z <= 0.0f) return false;
            s.wi = wi;
            s.pdf = cosine_hemisphere_pdf(wi.z);
            s.weight = p.albedo;
            s.delta = false;
            return true;
        }
        case kConductor: return reflection_sample(p, wo, u0, u1, u2, s);
        case kMetalRough:
            if constexpr (kFull) return reflection_sample(p, wo, u0, u1, u2, s);
            else return dielectric_sample(p, wo, u0, u1, u2, s);  // never reached, as above
        default: return dielectric_sample(p, wo, u0, u1, u2, s);
    }
}

}  // namespace pkrt
