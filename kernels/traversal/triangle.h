// Watertight ray/triangle intersection (Woop, Benthin and Wald, JCGT 2013). The ray is sheared so it
// runs along +z through the origin; the edge functions of the projected triangle are then evaluated
// with the same arithmetic for both triangles that share an edge, so a ray through that edge sees
// opposite signs (or an exact zero, re-done in double) and hits at least one of them: nothing slips
// through cracks.
#pragma once

#include "kernels/ray.h"

namespace pkrt {

// Three vertices as float4-sized rows, the layout traversal reads (48 bytes, 16-byte aligned loads).
struct alignas(16) TriVerts {
    Vec3 v0;
    float pad0;
    Vec3 v1;
    float pad1;
    Vec3 v2;
    float pad2;
};

// Per-ray constants of the shear transform.
struct WatertightRay {
    int kx, ky, kz;
    float sx, sy, sz;
};

PKRT_HD WatertightRay make_watertight_ray(Vec3 d) {
    WatertightRay w;
    Vec3 ad = vabs(d);
    w.kz = (ad.x > ad.y) ? (ad.x > ad.z ? 0 : 2) : (ad.y > ad.z ? 1 : 2);
    w.kx = w.kz == 2 ? 0 : w.kz + 1;
    w.ky = w.kx == 2 ? 0 : w.kx + 1;
    if (d[w.kz] < 0.0f) {  // keep the winding of the projected triangle
        int tmp = w.kx;
        w.kx = w.ky;
        w.ky = tmp;
    }
    w.sz = 1.0f / d[w.kz];
    w.sx = d[w.kx] * w.sz;
    w.sy = d[w.ky] * w.sz;
    return w;
}

// Two-sided. On a hit closer than hit.t, updates hit (t, barycentrics) and returns true.
PKRT_HD bool intersect_triangle(const WatertightRay& w, Vec3 o, Vec3 p0, Vec3 p1, Vec3 p2, float tmin, float& t_out,
                                float& u_out, float& v_out, float tmax) {
    Vec3 a = p0 - o, b = p1 - o, c = p2 - o;
    float ax = a[w.kx] - w.sx * a[w.kz], ay = a[w.ky] - w.sy * a[w.kz];
    float bx = b[w.kx] - w.sx * b[w.kz], by = b[w.ky] - w.sy * b[w.kz];
    float cx = c[w.kx] - w.sx * c[w.kz], cy = c[w.ky] - w.sy * c[w.kz];
    float e0 = cx * by - cy * bx;
    float e1 = ax * cy - ay * cx;
    float e2 = bx * ay - by * ax;
    if (e0 == 0.0f || e1 == 0.0f || e2 == 0.0f) {
        // Exactly on an edge in float: decide in double, as the paper prescribes.
        e0 = static_cast<float>(static_cast<double>(cx) * by - static_cast<double>(cy) * bx);
        e1 = static_cast<float>(static_cast<double>(ax) * cy - static_cast<double>(ay) * cx);
        e2 = static_cast<float>(static_cast<double>(bx) * ay - static_cast<double>(by) * ax);
    }
    if ((e0 < 0.0f || e1 < 0.0f || e2 < 0.0f) && (e0 > 0.0f || e1 > 0.0f || e2 > 0.0f)) return false;
    float det = e0 + e1 + e2;
    if (det == 0.0f) return false;
    float az = w.sz * a[w.kz], bz = w.sz * b[w.kz], cz = w.sz * c[w.kz];
    float t_scaled = e0 * az + e1 * bz + e2 * cz;
    // Compare t against the range before dividing, sign-corrected by det.
    if (det < 0.0f) {
        if (t_scaled >= tmin * det || t_scaled <= tmax * det) return false;
    } else {
        if (t_scaled <= tmin * det || t_scaled >= tmax * det) return false;
    }
    float inv_det = 1.0f / det;
    t_out = t_scaled * inv_det;
    u_out = e1 * inv_det;
    v_out = e2 * inv_det;
    return true;
}

}  // namespace pkrt
