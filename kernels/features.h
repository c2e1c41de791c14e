// Feature buffers (AOVs): what a denoiser and a compositor read beside the image, as Cycles writes its
// denoising passes. Albedo and normal come from a sample's first non-specular vertex, the surface whose
// texture and shape the pixel shows (through a mirror or glass: the surface seen in it):
//   albedo  the surface's reflectance (texture included), times the throughput of the specular bounces
//           before it (1 for a surface the camera sees directly)
//   normal  the shading normal in world space, faced towards the viewer (bump and normal maps applied)
// Depth comes from the camera ray's hit: its distance along the camera's view axis (Cycles' and
// Blender's Z). A sample that escapes writes zeros, so a pixel's features cover it as its radiance does
// (an edge against the sky averages towards zero in all of them). Every sample writes a depth, so its
// mean divides by the pixel's sample count; a sample that ends inside a chain of specular bounces writes
// no albedo or normal, hence their own weight: how many samples wrote them.
#pragma once

#include <type_traits>

#include "kernels/vec3.h"

namespace pkrt {

struct FeatureSample {
    Vec3 albedo;
    Vec3 normal;
    float depth;   // 0 where this write is not the camera ray's
    float weight;  // 1 where the write holds an albedo and normal, else 0
};

// Floats per pixel of a feature buffer: the sums of albedo (3), normal (3), depth and weight, at these
// offsets.
constexpr int kFeatureFloats = 8;
constexpr int kFeatureAlbedo = 0, kFeatureNormal = 3, kFeatureDepth = 6, kFeatureWeight = 7;

// What a sample adds to its pixel's feature sums, in the buffer's order.
PKRT_HD void feature_floats(const FeatureSample& s, float (&v)[kFeatureFloats]) {
    v[kFeatureAlbedo + 0] = s.albedo.x;
    v[kFeatureAlbedo + 1] = s.albedo.y;
    v[kFeatureAlbedo + 2] = s.albedo.z;
    v[kFeatureNormal + 0] = s.normal.x;
    v[kFeatureNormal + 1] = s.normal.y;
    v[kFeatureNormal + 2] = s.normal.z;
    v[kFeatureDepth] = s.depth;
    v[kFeatureWeight] = s.weight;
}

// A pixel's features from its sums (kFeatureFloats floats, `s`) and its sample count: albedo and normal
// the mean of the samples that wrote them, depth the mean of all.
PKRT_HD void resolve_feature_pixel(const float* s, float count, Vec3& albedo, Vec3& normal, float& depth) {
    const float w = s[kFeatureWeight], inv = w > 0.0f ? 1.0f / w : 0.0f;
    albedo = Vec3{s[kFeatureAlbedo], s[kFeatureAlbedo + 1], s[kFeatureAlbedo + 2]} * inv;
    normal = Vec3{s[kFeatureNormal], s[kFeatureNormal + 1], s[kFeatureNormal + 2]} * inv;
    depth = count > 0.0f ? s[kFeatureDepth] / count : 0.0f;
}

// PathState::flags
constexpr uint16_t kPathFeaturesWritten = 1u;

// A Sink that keeps no features (tests, and callers that call shade_path without one). shade_path leaves
// out its feature code for it: a frame without feature buffers need not carry it (the megakernel's
// machine code grew by a twentieth with it, BENCHMARKS.md, session 27).
struct NoFeatures {
    PKRT_HD void feature(uint32_t, const FeatureSample&) {}
};

template <class Features> constexpr bool keeps_features() {
    return !std::is_same<typename std::decay<Features>::type, NoFeatures>::value;
}

}  // namespace pkrt
