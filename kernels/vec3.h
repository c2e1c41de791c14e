// A three-float vector for positions, directions and RGB radiance alike. Plain aggregate (no
// constructors with side effects) so that arrays of it can live in device memory and in path records.
#pragma once

#include <cmath>

#include "kernels/common.h"

namespace pkrt {

struct Vec3 {
    float x, y, z;
    PKRT_HD float operator[](int i) const { return i == 0 ? x : (i == 1 ? y : z); }
};

struct Vec2 {
    float x, y;
};

PKRT_HD Vec3 make_vec3(float x, float y, float z) { return Vec3{x, y, z}; }
PKRT_HD Vec3 splat(float s) { return Vec3{s, s, s}; }

PKRT_HD Vec3 operator+(Vec3 a, Vec3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
PKRT_HD Vec3 operator-(Vec3 a, Vec3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
PKRT_HD Vec3 operator-(Vec3 a) { return {-a.x, -a.y, -a.z}; }
PKRT_HD Vec3 operator*(Vec3 a, Vec3 b) { return {a.x * b.x, a.y * b.y, a.z * b.z}; }
PKRT_HD Vec3 operator*(Vec3 a, float s) { return {a.x * s, a.y * s, a.z * s}; }
PKRT_HD Vec3 operator*(float s, Vec3 a) { return {a.x * s, a.y * s, a.z * s}; }
PKRT_HD Vec3 operator/(Vec3 a, float s) { return a * (1.0f / s); }
PKRT_HD Vec3 operator/(Vec3 a, Vec3 b) { return {a.x / b.x, a.y / b.y, a.z / b.z}; }
PKRT_HD Vec3& operator+=(Vec3& a, Vec3 b) {
    a = a + b;
    return a;
}
PKRT_HD Vec3& operator*=(Vec3& a, Vec3 b) {
    a = a * b;
    return a;
}
PKRT_HD Vec3& operator*=(Vec3& a, float s) {
    a = a * s;
    return a;
}

PKRT_HD float dot(Vec3 a, Vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
PKRT_HD Vec3 cross(Vec3 a, Vec3 b) { return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }
PKRT_HD float length(Vec3 a) { return sqrtf(dot(a, a)); }
PKRT_HD Vec3 normalize(Vec3 a) { return a * (1.0f / sqrtf(dot(a, a))); }
PKRT_HD Vec3 vmin(Vec3 a, Vec3 b) { return {min_f(a.x, b.x), min_f(a.y, b.y), min_f(a.z, b.z)}; }
PKRT_HD Vec3 vmax(Vec3 a, Vec3 b) { return {max_f(a.x, b.x), max_f(a.y, b.y), max_f(a.z, b.z)}; }
PKRT_HD float max_component(Vec3 a) { return max_f(a.x, max_f(a.y, a.z)); }
PKRT_HD Vec3 vabs(Vec3 a) { return {fabsf(a.x), fabsf(a.y), fabsf(a.z)}; }
PKRT_HD bool is_black(Vec3 a) { return a.x == 0.0f && a.y == 0.0f && a.z == 0.0f; }
PKRT_HD bool all_finite(Vec3 a) { return is_finite(a.x) && is_finite(a.y) && is_finite(a.z); }
PKRT_HD Vec3 lerp(Vec3 a, Vec3 b, float t) { return a * (1.0f - t) + b * t; }
// Rec. 709 luminance: used for light power and Russian roulette, never for colour output.
PKRT_HD float luminance(Vec3 c) { return 0.2126f * c.x + 0.7152f * c.y + 0.0722f * c.z; }

// Orthonormal basis around a unit normal (Duff et al. 2017, "Building an Orthonormal Basis, Revisited"):
// branch-free and continuous except at n.z = -1 exactly, where the sign flip handles it.
struct Frame {
    Vec3 t, b, n;
    PKRT_HD Vec3 to_local(Vec3 v) const { return {dot(v, t), dot(v, b), dot(v, n)}; }
    PKRT_HD Vec3 to_world(Vec3 v) const { return t * v.x + b * v.y + n * v.z; }
};

PKRT_HD Frame make_frame(Vec3 n) {
    float sign = copysignf(1.0f, n.z);
    float a = -1.0f / (sign + n.z);
    float bb = n.x * n.y * a;
    Frame f;
    f.t = {1.0f + sign * n.x * n.x * a, sign * bb, -sign * n.x};
    f.b = {bb, sign + n.y * n.y * a, -n.y};
    f.n = n;
    return f;
}

}  // namespace pkrt
