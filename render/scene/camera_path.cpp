#include "render/scene/camera_path.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "render/error.h"
#include "render/scene/input_file.h"
#include "render/scene/json_input.h"

namespace pkrt {

namespace {

using nlohmann::json;

// 100,000 keys (the most a file may hold) of a few hundred bytes each.
constexpr uint64_t kMaxKeyFileBytes = uint64_t(64) << 20;

Vec3 rotate_about(Vec3 v, Vec3 axis, float radians) {
    axis = normalize(axis);
    float c = std::cos(radians), s = std::sin(radians);
    return v * c + cross(axis, v) * s + axis * (dot(axis, v) * (1.0f - c));
}

// The key file's values, checked the way scene files are (docs/scenes.md): finite numbers, a
// proper view, and no unknown keys.
class KeyReader {
public:
    explicit KeyReader(std::string file) : file_(std::move(file)) {}
    [[noreturn]] void fail(const std::string& where, const std::string& what) const {
        throw Error(file_ + ": " + where + ": " + what);
    }

    float number(const json& v, const std::string& where) const {
        if (!v.is_number()) fail(where, "must be a number");
        double d = v.get<double>();
        if (!std::isfinite(d) || std::fabs(d) > 1e30) fail(where, "must be a finite number of magnitude below 1e30");
        return static_cast<float>(d);
    }
    Vec3 vec3(const json& v, const std::string& where) const {
        if (!v.is_array() || v.size() != 3) fail(where, "must be an array of 3 numbers");
        return {number(v[0], where + "[0]"), number(v[1], where + "[1]"), number(v[2], where + "[2]")};
    }

    CameraKey key(const json& j, const std::string& where, const CameraSpec& base) const {
        if (!j.is_object()) fail(where, "must be an object");
        for (auto it = j.begin(); it != j.end(); ++it)
            if (it.key() != "time" && it.key() != "eye" && it.key() != "look_at" && it.key() != "up" &&
                it.key() != "fov")
                fail(where, "unknown key '" + json_excerpt(it.key()) + "' (time, eye, look_at, up, fov)");
        for (const char* required : {"time", "eye", "look_at"})
            if (!j.contains(required)) fail(where, std::string("needs '") + required + "'");
        CameraKey k;
        k.camera = base;
        k.time = number(j["time"], where + ".time");
        k.camera.eye = vec3(j["eye"], where + ".eye");
        k.camera.look_at = vec3(j["look_at"], where + ".look_at");
        if (j.contains("up")) k.camera.up = vec3(j["up"], where + ".up");
        if (j.contains("fov")) k.camera.vfov_degrees = number(j["fov"], where + ".fov");
        if (!(k.camera.vfov_degrees > 0.0f && k.camera.vfov_degrees < 180.0f))
            fail(where + ".fov", "must be between 0 and 180 degrees");
        Vec3 fwd = k.camera.look_at - k.camera.eye;
        if (!(length(fwd) > 0.0f)) fail(where, "eye and look_at must differ");
        if (!(length(cross(normalize(fwd), k.camera.up)) > 1e-6f))
            fail(where + ".up", "must not be parallel to the view direction");
        return k;
    }

private:
    std::string file_;
};

// The key file is an input like the scene's files (read_input_file: a regular file of sane size, its
// identity kept so that no output replaces it).
std::vector<CameraKey> read_keys(const std::string& file, const CameraSpec& base, std::vector<SceneInput>* inputs) {
    InputFile in = read_input_file(file, "cannot open the key file (no such file)", kMaxKeyFileBytes);
    inputs->push_back({file, in.id});
    KeyReader r(file);
    json j = parse_json_file(file, in.bytes.data(), in.bytes.size(), /*comments=*/true);
    if (!j.is_object() || !j.contains("keys") || j.size() != 1)
        r.fail("top level", "must be an object with one key, 'keys'");
    const json& keys = j["keys"];
    if (!keys.is_array() || keys.empty()) r.fail("keys", "must be a non-empty array");
    if (keys.size() > 100000) r.fail("keys", "at most 100000 keys");
    std::vector<CameraKey> out;
    for (size_t i = 0; i < keys.size(); ++i) {
        std::string where = "keys[" + std::to_string(i) + "]";
        out.push_back(r.key(keys[i], where, base));
        if (out.back().time < 0.0f || out.back().time > 1.0f) r.fail(where + ".time", "must be between 0 and 1");
        if (i > 0 && !(out.back().time > out[i - 1].time))
            r.fail(where + ".time", "must be greater than the key before");
    }
    return out;
}

Vec3 catmull_rom(Vec3 p0, Vec3 p1, Vec3 p2, Vec3 p3, float t) {
    float t2 = t * t, t3 = t2 * t;
    return (p1 * 2.0f + (p2 - p0) * t + (p0 * 2.0f - p1 * 5.0f + p2 * 4.0f - p3) * t2 +
            (p1 * 3.0f - p0 - p2 * 3.0f + p3) * t3) *
           0.5f;
}

CameraSpec interpolate(const std::vector<CameraKey>& keys, float time) {
    if (keys.size() == 1 || time <= keys.front().time) return keys.front().camera;
    if (time >= keys.back().time) return keys.back().camera;
    size_t i = 1;
    while (keys[i].time < time) ++i;  // keys[i - 1].time < time <= keys[i].time
    const CameraKey &a = keys[i - 1], &b = keys[i];
    const CameraKey& before = i >= 2 ? keys[i - 2] : a;
    const CameraKey& after = i + 1 < keys.size() ? keys[i + 1] : b;
    float t = (time - a.time) / (b.time - a.time);
    CameraSpec c = a.camera;
    c.eye = catmull_rom(before.camera.eye, a.camera.eye, b.camera.eye, after.camera.eye, t);
    c.look_at = catmull_rom(before.camera.look_at, a.camera.look_at, b.camera.look_at, after.camera.look_at, t);
    c.up = a.camera.up * (1.0f - t) + b.camera.up * t;
    c.vfov_degrees = a.camera.vfov_degrees * (1.0f - t) + b.camera.vfov_degrees * t;
    // Between two valid keys the spline can still pass through a degenerate view: keep the nearer key's.
    Vec3 fwd = c.look_at - c.eye;
    if (!(length(fwd) > 0.0f) || !(length(cross(normalize(fwd), c.up)) > 1e-6f)) return t < 0.5f ? a.camera : b.camera;
    return c;
}

}  // namespace

CameraPath parse_camera_path(const std::string& spec, const CameraSpec& scene_camera) {
    CameraPath p;
    p.base = scene_camera;
    if (spec == "orbit" || spec.rfind("orbit:", 0) == 0) {
        if (spec != "orbit") {
            std::string deg = spec.substr(6);
            char* end = nullptr;
            double d = std::strtod(deg.c_str(), &end);
            // Below a thousandth of a degree a float orbit moves the eye by less than its rounding (1e-50 is
            // even zero as a float): every frame would be the same image.
            if (deg.empty() || end != deg.c_str() + deg.size() || !std::isfinite(d) || std::fabs(d) < 1e-3 ||
                std::fabs(d) > 36000.0)
                throw Error("--camera-path " + spec +
                            ": orbit:DEGREES takes a number of degrees between 0.001 and 36000 (or their negatives)");
            p.degrees = static_cast<float>(d);
        }
        Vec3 arm = scene_camera.eye - scene_camera.look_at;
        if (!(length(cross(arm, scene_camera.up)) > 1e-6f * length(arm)))
            throw Error("--camera-path " + spec +
                        ": the scene camera looks along its up axis, so an orbit about it does not move");
        return p;
    }
    p.orbit = false;
    p.keys = read_keys(spec, scene_camera, &p.inputs);
    return p;
}

CameraSpec camera_at(const CameraPath& path, int frame, int frames) {
    if (path.orbit) {
        CameraSpec c = path.base;
        float radians =
            path.degrees * kPi / 180.0f * static_cast<float>(frame) / static_cast<float>(std::max(1, frames));
        c.eye = path.base.look_at + rotate_about(path.base.eye - path.base.look_at, path.base.up, radians);
        return c;
    }
    float time = frames > 1 ? static_cast<float>(frame) / static_cast<float>(frames - 1) : 0.0f;
    return interpolate(path.keys, time);
}

}  // namespace pkrt
