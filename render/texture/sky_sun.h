// The analytic sky with a sun: a sun is a disc a fraction of a degree across and thousands of times as
// bright as the sky, which only a light sampler that knows where it is can find. The sky and the disc
// are baked into an equirectangular map, whose sampling distribution (luminance x solid angle) then
// aims next-event estimation at the sun as it does at a map's bright texels.
#pragma once

#include "render/scene/scene.h"

namespace pkrt {

struct Sun {
    Vec3 direction{0.0f, 1.0f, 0.0f};   // towards the sun; normalised by the loader
    float angle_degrees = 0.53f;        // apparent diameter (the real sun's: 0.53)
    Vec3 irradiance{0.0f, 0.0f, 0.0f};  // on a surface facing it, before the environment's intensity
};

// Limits the loader checks: a disc of at least kMinSunDegrees (the map's texels must resolve it) and at
// most kMaxSunDegrees.
constexpr float kMinSunDegrees = 0.1f, kMaxSunDegrees = 30.0f;

// The map's width for a sun of `angle_degrees`: about three texels across its diameter, between 512 and
// 8192 (a power of two); its height is half of it.
int sun_sky_map_width(float angle_degrees);

// scene.environment's sky colours (zenith, horizon, ground, already scaled by `intensity`) and `sun`
// (scaled by it here) become the scene's environment map: the sky's radiance at each texel's centre,
// and the sun's disc over the texels it covers, in proportion to the part of each it covers, scaled so
// that the map delivers exactly `sun.irradiance` from it. Its texels count against the texel budget.
void set_sky_with_sun(Scene& scene, const Sun& sun, float intensity);

}  // namespace pkrt
