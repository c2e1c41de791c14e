// Light arriving from infinitely far away: none, a constant colour, or a simple analytic sky
// (zenith-to-horizon gradient above, a flat ground colour below).
#pragma once

#include "sampling.h"

namespace pkrt {

enum EnvironmentType : int32_t { kEnvNone = 0, kEnvConstant = 1, kEnvSky = 2 };

struct Environment {
    int32_t type;
    Vec3 color;    // constant: the radiance; sky: unused
    Vec3 zenith;   // sky colours, already scaled by intensity
    Vec3 horizon;
    Vec3 ground;
};

PKRT_HD Vec3 environment_radiance(const Environment& env, Vec3 dir) {
    switch (env.type) {
        case kEnvConstant: return env.color;
        case kEnvSky: {
            if (dir.y < 0.0f) return env.ground;
            // sqrt keeps the sky bright near the horizon, as a real sky's airmass does.
            return lerp(env.horizon, env.zenith, sqrtf(clamp_f(dir.y, 0.0f, 1.0f)));
        }
        default: return splat(0.0f);
    }
}

PKRT_HD bool environment_is_light(const Environment& env) {
    switch (env.type) {
        case kEnvConstant: return !is_black(env.color);
        case kEnvSky: return !(is_black(env.zenith) && is_black(env.horizon) && is_black(env.ground));
        default: return false;
    }
}

// Uniform over the sphere: both environments are smooth and fill the sphere, so a uniform proposal is
// within a small factor of their shape and MIS with the BSDF covers the rest.
PKRT_HD Vec3 environment_sample(float u0, float u1, float* pdf) {
    *pdf = uniform_sphere_pdf();
    return sample_uniform_sphere(u0, u1);
}
PKRT_HD float environment_pdf() { return uniform_sphere_pdf(); }

}  // namespace pkrt
