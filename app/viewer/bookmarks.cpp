#include "app/viewer/bookmarks.h"

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "render/error.h"
#include "render/image/image.h"
#include "render/scene/input_file.h"

namespace pkrt::viewer {

namespace {

using nlohmann::json;

Vec3 vec3(const json& j, const std::string& what) {
    if (!j.is_array() || j.size() != 3) throw Error(what + ": expected [x, y, z]");
    Vec3 v;
    for (int i = 0; i < 3; ++i) {
        if (!j[i].is_number()) throw Error(what + ": expected [x, y, z]");
        float f = j[i].get<float>();
        if (!std::isfinite(f)) throw Error(what + ": not a finite number");
        (i == 0 ? v.x : i == 1 ? v.y : v.z) = f;
    }
    return v;
}

float number(const json& j, const std::string& what, float lo, float hi) {
    if (!j.is_number()) throw Error(what + ": expected a number");
    float f = j.get<float>();
    if (!(f >= lo && f <= hi))
        throw Error(what + ": must be between " + std::to_string(lo) + " and " + std::to_string(hi));
    return f;
}

CameraSpec camera_of(const json& j, const std::string& what) {
    if (!j.is_object()) throw Error(what + ": expected a camera object");
    CameraSpec c;
    for (auto it = j.begin(); it != j.end(); ++it) {
        const std::string& k = it.key();
        if (k == "eye") c.eye = vec3(*it, what + ".eye");
        else if (k == "look_at") c.look_at = vec3(*it, what + ".look_at");
        else if (k == "up") c.up = vec3(*it, what + ".up");
        else if (k == "fov") c.vfov_degrees = number(*it, what + ".fov", 1e-3f, 179.0f);
        else if (k == "aperture") c.aperture_radius = number(*it, what + ".aperture", 0.0f, 1e30f);
        else if (k == "focus_distance") c.focus_distance = number(*it, what + ".focus_distance", 0.0f, 1e30f);
        else throw Error(what + ": unknown key '" + k + "' (eye, look_at, up, fov, aperture, focus_distance)");
    }
    Vec3 d = c.look_at - c.eye;
    if (!(dot(d, d) > 0.0f)) throw Error(what + ": eye and look_at are the same point");
    return c;
}

json json_of(const CameraSpec& c) {
    auto arr = [](Vec3 v) { return json::array({v.x, v.y, v.z}); };
    json j = {{"eye", arr(c.eye)}, {"look_at", arr(c.look_at)}, {"up", arr(c.up)}, {"fov", c.vfov_degrees}};
    if (c.aperture_radius > 0.0f) j["aperture"] = c.aperture_radius;
    if (c.focus_distance > 0.0f) j["focus_distance"] = c.focus_distance;
    return j;
}

}  // namespace

void Bookmarks::load(const std::string& path) {
    path_ = path;
    slots_ = {};
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) return;
    std::string text = read_input_file(path, "no such file", uint64_t{1} << 20).bytes;
    json j = json::parse(text, nullptr, false, true);
    if (j.is_discarded() || !j.is_object() || !j.contains("bookmarks") || !j["bookmarks"].is_object())
        throw Error(path + ": not a bookmarks file (expected {\"bookmarks\": {\"1\": {camera}, ...}})");
    for (auto it = j["bookmarks"].begin(); it != j["bookmarks"].end(); ++it) {
        const std::string& k = it.key();
        if (k.size() != 1 || k[0] < '1' || k[0] > '9') throw Error(path + ": bookmark '" + k + "': slots are 1 to 9");
        slots_[static_cast<size_t>(k[0] - '1')] = camera_of(*it, path + ": bookmark " + k);
    }
}

std::string Bookmarks::save(int slot, const CameraSpec& camera) {
    slots_.at(static_cast<size_t>(slot - 1)) = camera;
    json all = json::object();
    for (int s = 1; s <= kSlots; ++s)
        if (const auto& c = get(s)) all[std::to_string(s)] = json_of(*c);
    return json({{"bookmarks", all}}).dump(2) + "\n";
}

}  // namespace pkrt::viewer
