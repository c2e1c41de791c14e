// Materials as the per-ray code sees them: a flat 64-byte record, identical on host and device.
#pragma once

#include "kernels/vec3.h"

namespace pkrt {

enum MaterialType : int32_t {
    kDiffuse = 0,     // Lambertian, reflectance `albedo`
    kConductor = 1,   // GGX microfacet metal, Schlick Fresnel with F0 = `albedo`
    kDielectric = 2,  // glass: smooth when alpha == 0, else rough (Walter et al. 2007); `albedo` tints transmission
    kMetalRough = 3,  // glTF 2.0 metallic-roughness: Lambert base and GGX specular (Schlick), blended by `metallic`
};

// Texture indices point into the scene's textures, -1 for none. A texture multiplies its factor.
struct Material {
    Vec3 albedo;                  // base colour
    int32_t albedo_texture;       // sRGB colour
    Vec3 emission;                // radiance leaving the front face (the side the winding's normal points to)
    int32_t type;                 // MaterialType
    float alpha;                  // GGX roughness parameter (perceptual roughness squared); 0 = smooth
    float ior;                    // dielectric index of refraction (inside over outside)
    float metallic;               // kMetalRough: 0 = dielectric base, 1 = metal
    int32_t emission_texture;     // sRGB colour, multiplies `emission`
    int32_t metal_rough_texture;  // linear, glTF's packing: G = perceptual roughness, B = metallic
    int32_t normal_texture;       // linear tangent-space normal map
    float normal_scale;           // glTF normalTexture.scale
    int32_t pad;
};
static_assert(sizeof(Material) == 64, "Material is sized for aligned device loads");

// Below this alpha a microfacet lobe is treated as a perfect mirror / smooth interface: the GGX terms
// lose all float precision there, and a delta lobe is what such a surface is.
constexpr float kSmoothAlpha = 1e-3f;

PKRT_HD bool is_emissive(const Material& m) { return !is_black(m.emission); }

}  // namespace pkrt
