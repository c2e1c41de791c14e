// Pinhole camera: right-handed, `up` is +Y in the scenes we ship, vertical field of view in degrees.
#pragma once

#include "ray.h"

namespace pkrt {

struct CameraView {
    Vec3 eye;
    Vec3 forward;  // unit, towards the look-at point
    Vec3 right;    // unit, image +x
    Vec3 up;       // unit, image +y (rows go down the image)
    float tan_half_fov_y;
    float aspect;  // width / height
};

// Box pixel filter: the sample position is jittered uniformly over the pixel's footprint.
PKRT_HD Ray camera_ray(const CameraView& c, int width, int height, int px, int py, float jx, float jy) {
    float sx = (2.0f * (static_cast<float>(px) + jx) / static_cast<float>(width) - 1.0f) * c.tan_half_fov_y * c.aspect;
    float sy = (1.0f - 2.0f * (static_cast<float>(py) + jy) / static_cast<float>(height)) * c.tan_half_fov_y;
    return Ray{c.eye, normalize(c.forward + c.right * sx + c.up * sy)};
}

}  // namespace pkrt
