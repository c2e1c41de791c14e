// Materials as the per-ray code sees them: a flat 48-byte record, identical on host and device.
#pragma once

#include "vec3.h"

namespace pkrt {

enum MaterialType : int32_t {
    kDiffuse = 0,     // Lambertian, reflectance `albedo`
    kConductor = 1,   // GGX microfacet metal, Schlick Fresnel with F0 = `albedo`
    kDielectric = 2,  // glass: smooth when alpha == 0, else rough (Walter et al. 2007); `albedo` tints transmission
};

struct Material {
    Vec3 albedo;
    int32_t albedo_texture;  // index into the scene's textures, or -1
    Vec3 emission;           // radiance leaving the front face (the side the winding's normal points to)
    int32_t type;            // MaterialType
    float alpha;             // GGX roughness parameter (perceptual roughness squared); 0 = smooth
    float ior;               // dielectric index of refraction (inside over outside)
    int32_t pad[2];
};

// Below this alpha a microfacet lobe is treated as a perfect mirror / smooth interface: the GGX terms
// lose all float precision there, and a delta lobe is what such a surface is.
constexpr float kSmoothAlpha = 1e-3f;

PKRT_HD bool is_emissive(const Material& m) { return !is_black(m.emission); }

}  // namespace pkrt
