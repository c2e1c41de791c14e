// Rays, hits and the spawn-offset that keeps secondary rays off the surface they leave.
#pragma once

#include "kernels/vec3.h"

namespace pkrt {

struct Ray {
    Vec3 o;
    Vec3 d;
};

struct Hit {
    float t;
    float u, v;    // barycentrics of v1 and v2
    int32_t prim;  // triangle index in BVH order; -1 = miss
};

PKRT_HD Hit no_hit() { return Hit{kInfinity, 0.0f, 0.0f, -1}; }

PKRT_HD float int_as_float_bits(int32_t i) {
    union {
        int32_t i;
        float f;
    } u;
    u.i = i;
    return u.f;
}
PKRT_HD int32_t float_as_int_bits(float f) {
    union {
        int32_t i;
        float f;
    } u;
    u.f = f;
    return u.i;
}

// Wächter & Binder, "A Fast and Robust Method for Avoiding Self-Intersection" (Ray Tracing Gems, ch. 6):
// moves p off the surface along n by a few ulps scaled with |p| (integer steps away from the origin,
// a fixed epsilon near it). n must point to the side the new ray leaves into.
PKRT_HD Vec3 offset_ray_origin(Vec3 p, Vec3 n) {
    constexpr float kOrigin = 1.0f / 32.0f;
    constexpr float kFloatScale = 1.0f / 65536.0f;
    constexpr float kIntScale = 256.0f;
    int32_t ox = static_cast<int32_t>(kIntScale * n.x);
    int32_t oy = static_cast<int32_t>(kIntScale * n.y);
    int32_t oz = static_cast<int32_t>(kIntScale * n.z);
    Vec3 pi = {int_as_float_bits(float_as_int_bits(p.x) + (p.x < 0 ? -ox : ox)),
               int_as_float_bits(float_as_int_bits(p.y) + (p.y < 0 ? -oy : oy)),
               int_as_float_bits(float_as_int_bits(p.z) + (p.z < 0 ? -oz : oz))};
    return {fabsf(p.x) < kOrigin ? p.x + kFloatScale * n.x : pi.x,
            fabsf(p.y) < kOrigin ? p.y + kFloatScale * n.y : pi.y,
            fabsf(p.z) < kOrigin ? p.z + kFloatScale * n.z : pi.z};
}

}  // namespace pkrt
