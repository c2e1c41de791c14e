// Camera navigation on a scene's CameraSpec (eye, look_at, up, vertical fov): orbit and pan around the
// look-at point, dolly towards it, fly, reset to the scene file's camera, frame the scene's bounds.
// Each operation edits the spec in place and returns whether it changed it, so the caller knows when
// to restart accumulation.
#pragma once

#include <vector>

#include "render/scene/scene.h"

namespace pkrt::viewer {

struct Bounds {
    Vec3 lo{0, 0, 0}, hi{0, 0, 0};
    Vec3 center() const { return (lo + hi) * 0.5f; }
    float radius() const { return 0.5f * length(hi - lo); }
};

Bounds scene_bounds(const std::vector<TriVerts>& tris);

class CameraController {
public:
    // `home` is the scene file's camera (what R restores); `bounds` scales pan, fly and dolly limits.
    void set_scene(const CameraSpec& home, const Bounds& bounds);

    // Mouse deltas in window pixels; `viewport_height` turns pan pixels into world units at the target.
    bool orbit(CameraSpec& cam, float dx, float dy) const;
    bool pan(CameraSpec& cam, float dx, float dy, float viewport_height) const;
    // Positive steps move towards the look-at point (wheel up), never through it.
    bool dolly(CameraSpec& cam, float steps) const;
    // Direction in camera space: x right, y up, z forward; `seconds` of motion, `fast` (shift) x5.
    bool fly(CameraSpec& cam, float right, float up, float forward, float seconds, bool fast) const;
    bool reset(CameraSpec& cam) const;
    // Keeps the viewing direction, aims at the bounds' centre and backs off until the bounding sphere
    // fits both the vertical and the horizontal field of view.
    bool frame(CameraSpec& cam, float aspect) const;

    const Bounds& bounds() const { return bounds_; }

private:
    CameraSpec home_;
    Bounds bounds_;
};

}  // namespace pkrt::viewer
