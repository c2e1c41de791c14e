#include "app/viewer/camera_controller.h"

#include <algorithm>
#include <cmath>

#include <glm/glm.hpp>
#include <glm/gtc/matrix_transform.hpp>

namespace pkrt::viewer {

namespace {

constexpr float kOrbitRadiansPerPixel = 0.005f;
constexpr float kDollyPerStep = 0.85f;  // distance factor per wheel notch
constexpr float kMinPolar = 0.01f;      // keep the view off the up axis, where `up` would be degenerate

glm::vec3 to_glm(Vec3 v) { return {v.x, v.y, v.z}; }
Vec3 to_vec3(glm::vec3 v) { return {v.x, v.y, v.z}; }

bool same(const CameraSpec& a, const CameraSpec& b) {
    auto eq = [](Vec3 p, Vec3 q) { return p.x == q.x && p.y == q.y && p.z == q.z; };
    return eq(a.eye, b.eye) && eq(a.look_at, b.look_at) && eq(a.up, b.up) && a.vfov_degrees == b.vfov_degrees &&
           a.aperture_radius == b.aperture_radius && a.focus_distance == b.focus_distance;
}

struct Basis {
    glm::vec3 eye, target, up, forward, right, cam_up;
    float distance;
};

Basis basis(const CameraSpec& c) {
    Basis b;
    b.eye = to_glm(c.eye);
    b.target = to_glm(c.look_at);
    b.up = glm::normalize(to_glm(c.up));
    glm::vec3 d = b.target - b.eye;
    b.distance = glm::length(d);
    b.forward = b.distance > 0 ? d / b.distance : glm::vec3(0, 0, -1);
    glm::vec3 r = glm::cross(b.forward, b.up);
    // Looking along `up`: any right vector will do; pick one perpendicular to forward.
    if (glm::dot(r, r) < 1e-12f)
        r = glm::cross(b.forward, std::fabs(b.forward.x) < 0.9f ? glm::vec3(1, 0, 0) : glm::vec3(0, 1, 0));
    b.right = glm::normalize(r);
    b.cam_up = glm::cross(b.right, b.forward);
    return b;
}

bool finite(glm::vec3 v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); }

}  // namespace

Bounds scene_bounds(const std::vector<TriVerts>& tris) {
    Bounds b;
    if (tris.empty()) return b;
    b.lo = splat(INFINITY);
    b.hi = splat(-INFINITY);
    for (const auto& t : tris) {
        b.lo = vmin(b.lo, vmin(t.v0, vmin(t.v1, t.v2)));
        b.hi = vmax(b.hi, vmax(t.v0, vmax(t.v1, t.v2)));
    }
    return b;
}

void CameraController::set_scene(const CameraSpec& home, const Bounds& bounds) {
    home_ = home;
    bounds_ = bounds;
}

bool CameraController::orbit(CameraSpec& cam, float dx, float dy) const {
    if (dx == 0 && dy == 0) return false;
    Basis b = basis(cam);
    glm::vec3 offset = b.eye - b.target;  // from the target to the eye
    // Yaw about the scene's up axis (dragging right turns the scene right, i.e. the eye moves left).
    glm::mat4 yaw = glm::rotate(glm::mat4(1.0f), -dx * kOrbitRadiansPerPixel, b.up);
    offset = glm::vec3(yaw * glm::vec4(offset, 0.0f));
    glm::vec3 right = glm::vec3(yaw * glm::vec4(b.right, 0.0f));
    // Pitch about the (yawed) right axis, clamped so the eye never crosses the up axis.
    float len = glm::length(offset);
    if (len <= 0) return false;
    float polar = std::acos(std::clamp(glm::dot(offset / len, b.up), -1.0f, 1.0f));
    float pitch = dy * kOrbitRadiansPerPixel;  // drag down: eye goes up, looking down
    float new_polar = std::clamp(polar - pitch, kMinPolar, 3.14159265f - kMinPolar);
    // A positive turn about right = forward x up moves the eye away from up (polar grows).
    glm::mat4 rot = glm::rotate(glm::mat4(1.0f), new_polar - polar, right);
    offset = glm::vec3(rot * glm::vec4(offset, 0.0f));
    glm::vec3 eye = b.target + offset;
    if (!finite(eye)) return false;
    CameraSpec before = cam;
    cam.eye = to_vec3(eye);
    return !same(before, cam);
}

bool CameraController::pan(CameraSpec& cam, float dx, float dy, float viewport_height) const {
    if ((dx == 0 && dy == 0) || viewport_height <= 0) return false;
    Basis b = basis(cam);
    // World units per pixel at the target's depth, so the point under the cursor follows the cursor.
    float per_pixel = 2.0f * b.distance * std::tan(glm::radians(cam.vfov_degrees) * 0.5f) / viewport_height;
    glm::vec3 move = (-dx * b.right + dy * b.cam_up) * per_pixel;
    if (!finite(move)) return false;
    CameraSpec before = cam;
    cam.eye = to_vec3(b.eye + move);
    cam.look_at = to_vec3(b.target + move);
    return !same(before, cam);
}

bool CameraController::dolly(CameraSpec& cam, float steps) const {
    if (steps == 0) return false;
    Basis b = basis(cam);
    float min_distance = std::max(1e-4f * bounds_.radius(), 1e-6f);
    float d = std::max(b.distance * std::pow(kDollyPerStep, steps), min_distance);
    CameraSpec before = cam;
    cam.eye = to_vec3(b.target - b.forward * d);
    return !same(before, cam);
}

bool CameraController::fly(CameraSpec& cam, float right, float up, float forward, float seconds, bool fast) const {
    if ((right == 0 && up == 0 && forward == 0) || seconds <= 0) return false;
    Basis b = basis(cam);
    // Half the scene's radius per second crosses a room-sized scene in a few seconds; shift for big ones.
    float speed = std::max(bounds_.radius(), 1e-3f) * 0.5f * (fast ? 5.0f : 1.0f);
    glm::vec3 move = (right * b.right + up * b.up + forward * b.forward) * (speed * seconds);
    CameraSpec before = cam;
    cam.eye = to_vec3(b.eye + move);
    cam.look_at = to_vec3(b.target + move);
    return !same(before, cam);
}

bool CameraController::reset(CameraSpec& cam) const {
    CameraSpec before = cam;
    cam = home_;
    return !same(before, cam);
}

bool CameraController::frame(CameraSpec& cam, float aspect) const {
    Basis b = basis(cam);
    float vfov = glm::radians(cam.vfov_degrees);
    float hfov = 2.0f * std::atan(std::tan(vfov * 0.5f) * std::max(aspect, 1e-3f));
    float half = 0.5f * std::min(vfov, hfov);
    float radius = std::max(bounds_.radius(), 1e-6f);
    float d = radius / std::sin(half);
    glm::vec3 center = to_glm(bounds_.center());
    CameraSpec before = cam;
    cam.look_at = to_vec3(center);
    cam.eye = to_vec3(center - b.forward * d);
    return !same(before, cam);
}

}  // namespace pkrt::viewer
