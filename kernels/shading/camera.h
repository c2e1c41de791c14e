// Thin-lens camera (a pinhole when lens_radius is 0): right-handed, `up` is +Y in the scenes we ship,
// vertical field of view in degrees.
#pragma once

#include "kernels/ray.h"
#include "kernels/shading/sampling.h"

namespace pkrt {

struct CameraView {
    Vec3 eye;
    Vec3 forward;  // unit, towards the look-at point
    Vec3 right;    // unit, image +x
    Vec3 up;       // unit, image +y (rows go down the image)
    float tan_half_fov_y;
    float aspect;          // width / height
    float lens_radius;     // 0: pinhole
    float focus_distance;  // distance along `forward` of the plane in focus (> 0)
};

// Box pixel filter: the sample position is jittered uniformly over the pixel's footprint. (lu0, lu1)
// pick the point on the lens (concentric disk, so stratified lens samples stay stratified).
// The pinhole ray through the pixel meets the plane of focus at eye + d * focus_distance / dot(d, forward);
// every lens point aims there, so that plane is sharp and the field of view is the pinhole's. The ray is
// built from the offset on the lens rather than from two far-apart points, so a camera far from the
// origin loses no precision to cancellation.
PKRT_HD Ray camera_ray(const CameraView& c, int width, int height, int px, int py, float jx, float jy, float lu0,
                       float lu1) {
    float sx = (2.0f * (static_cast<float>(px) + jx) / static_cast<float>(width) - 1.0f) * c.tan_half_fov_y * c.aspect;
    float sy = (1.0f - 2.0f * (static_cast<float>(py) + jy) / static_cast<float>(height)) * c.tan_half_fov_y;
    Vec3 d = c.forward + c.right * sx + c.up * sy;  // dot(d, forward) == 1: d reaches the unit-distance plane
    if (!(c.lens_radius > 0.0f)) return Ray{c.eye, normalize(d)};
    Vec2 lens = sample_concentric_disk(lu0, lu1);
    Vec3 offset = c.right * (lens.x * c.lens_radius) + c.up * (lens.y * c.lens_radius);
    return Ray{c.eye + offset, normalize(d * c.focus_distance - offset)};
}

}  // namespace pkrt
