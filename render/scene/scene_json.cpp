// The JSON scene format (docs/scenes.md). Strict: an unknown key or a value of the wrong
// type is an error naming the file and the key's path, because a silently ignored typo renders a
// different picture than the one asked for.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <initializer_list>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "render/scene/asset_path.h"
#include "render/error.h"
#include "render/scene/input_file.h"
#include "render/scene/json_input.h"
#include "render/scene/loaders.h"
#include "render/scene/material_maps.h"
#include "render/scene/mesh_builder.h"
#include "render/scene/obj_scan.h"
#include "render/scene/render_limits.h"
#include "render/scene/scene.h"
#include "render/texture/sky_sun.h"

namespace pkrt {

namespace {

using nlohmann::json;

class Reader {
public:
    explicit Reader(std::string file) : file_(std::move(file)) {}

    [[noreturn]] void fail(const std::string& where, const std::string& what) const {
        throw Error(file_ + ": " + where + ": " + what);
    }

    void only_keys(const json& obj, const std::string& where, std::initializer_list<const char*> keys) const {
        if (!obj.is_object()) fail(where, "must be an object");
        for (auto it = obj.begin(); it != obj.end(); ++it) {
            bool known = false;
            for (const char* k : keys) known = known || it.key() == k;
            if (!known) fail(where, "unknown key '" + json_excerpt(it.key()) + "'");
        }
    }

    float number(const json& v, const std::string& where) const {
        if (!v.is_number()) fail(where, "must be a number");
        double d = v.get<double>();
        if (!std::isfinite(d) || std::fabs(d) > 3.0e38) fail(where, "must be a finite number");
        return static_cast<float>(d);
    }

    int integer(const json& v, const std::string& where, int lo, int hi) const {
        if (!v.is_number_integer()) fail(where, "must be an integer");
        long long x = v.get<long long>();
        if (x < lo || x > hi) fail(where, "must be between " + std::to_string(lo) + " and " + std::to_string(hi));
        return static_cast<int>(x);
    }

    Vec3 vec3(const json& v, const std::string& where) const {
        if (!v.is_array() || v.size() != 3) fail(where, "must be an array of 3 numbers");
        return {number(v[0], where + "[0]"), number(v[1], where + "[1]"), number(v[2], where + "[2]")};
    }

    Vec3 colour(const json& v, const std::string& where) const {
        if (v.is_number()) {
            float s = number(v, where);
            if (s < 0.0f) fail(where, "must not be negative");
            return splat(s);
        }
        Vec3 c = vec3(v, where);
        if (c.x < 0.0f || c.y < 0.0f || c.z < 0.0f) fail(where, "must not be negative");
        return c;
    }

    std::string string(const json& v, const std::string& where) const {
        if (!v.is_string()) fail(where, "must be a string");
        return v.get<std::string>();
    }

    bool boolean(const json& v, const std::string& where) const {
        if (!v.is_boolean()) fail(where, "must be true or false");
        return v.get<bool>();
    }

private:
    std::string file_;
};

std::string resolve(const std::string& scene_path, const std::string& rel) {
    std::filesystem::path p(rel);
    if (p.is_absolute()) return p.string();
    return (std::filesystem::path(scene_path).parent_path() / p).lexically_normal().string();
}

void read_camera(const Reader& r, const json& j, Scene& scene) {
    r.only_keys(j, "camera", {"eye", "look_at", "up", "fov", "aperture", "focus_distance"});
    if (j.contains("eye")) scene.camera.eye = r.vec3(j["eye"], "camera.eye");
    if (j.contains("look_at")) scene.camera.look_at = r.vec3(j["look_at"], "camera.look_at");
    if (j.contains("up")) scene.camera.up = r.vec3(j["up"], "camera.up");
    if (j.contains("fov")) {
        scene.camera.vfov_degrees = r.number(j["fov"], "camera.fov");
        if (!(scene.camera.vfov_degrees > 0.0f && scene.camera.vfov_degrees < 180.0f))
            r.fail("camera.fov", "must be between 0 and 180 degrees");
    }
    if (j.contains("aperture")) {
        scene.camera.aperture_radius = r.number(j["aperture"], "camera.aperture");
        if (!valid_aperture_radius(scene.camera.aperture_radius))
            r.fail("camera.aperture", "the lens radius must be between 0 (a pinhole) and 1e18");
    }
    if (j.contains("focus_distance")) {
        scene.camera.focus_distance = r.number(j["focus_distance"], "camera.focus_distance");
        if (!valid_focus_distance(scene.camera.focus_distance))
            r.fail("camera.focus_distance", "must be greater than 0 and at most 1e18");
    }
    // In double: the difference of two finite floats, and its length, may overflow float (eye at 1e20
    // is then no "up parallel to the view").
    const CameraSpec& c = scene.camera;
    double fx = double(c.look_at.x) - c.eye.x, fy = double(c.look_at.y) - c.eye.y, fz = double(c.look_at.z) - c.eye.z;
    double dist = std::sqrt(fx * fx + fy * fy + fz * fz);
    if (!(dist > 0.0)) r.fail("camera", "eye and look_at must differ");
    double scale = std::max({std::fabs(c.eye.x), std::fabs(c.eye.y), std::fabs(c.eye.z), std::fabs(c.look_at.x),
                             std::fabs(c.look_at.y), std::fabs(c.look_at.z)});
    if (scale > 1e18 || dist > 1e18)
        r.fail("camera", "eye and look_at must be within 1e18 of the origin (single precision)");
    double ux = c.up.x, uy = c.up.y, uz = c.up.z;
    double cx = fy * uz - fz * uy, cy = fz * ux - fx * uz, cz = fx * uy - fy * ux;
    double ulen = std::sqrt(ux * ux + uy * uy + uz * uz);
    if (!(ulen > 0.0)) r.fail("camera.up", "must not be zero");
    if (!(std::sqrt(cx * cx + cy * cy + cz * cz) > 1e-6 * dist * ulen))
        r.fail("camera.up", "must not be parallel to the view direction");
}

void read_render(const Reader& r, const json& j, Scene& scene) {
    r.only_keys(j, "render", {"resolution", "spp", "max_depth", "exposure", "tone_map"});
    if (j.contains("resolution")) {
        const json& res = j["resolution"];
        if (!res.is_array() || res.size() != 2) r.fail("render.resolution", "must be [width, height]");
        scene.defaults.width = r.integer(res[0], "render.resolution[0]", 1, limits::kMaxImageSide);
        scene.defaults.height = r.integer(res[1], "render.resolution[1]", 1, limits::kMaxImageSide);
    }
    if (j.contains("spp")) scene.defaults.spp = r.integer(j["spp"], "render.spp", 1, limits::kMaxSpp);
    if (j.contains("max_depth"))
        scene.defaults.max_depth = r.integer(j["max_depth"], "render.max_depth", 0, limits::kMaxDepth);
    if (j.contains("exposure")) {
        const json& e = j["exposure"];
        if (e.is_string() && e.get<std::string>() == "auto") scene.defaults.look.auto_exposure = true;
        else if (e.is_number()) {
            float stops = r.number(e, "render.exposure");
            if (std::fabs(stops) > kMaxExposureStops) r.fail("render.exposure", "must be between -64 and 64 stops");
            scene.defaults.look.exposure_stops = stops;
        } else {
            r.fail("render.exposure", "must be a number of stops or \"auto\"");
        }
    }
    if (j.contains("tone_map")) {
        std::string name = r.string(j["tone_map"], "render.tone_map");
        auto curve = parse_tone_curve(name);
        if (!curve) r.fail("render.tone_map", std::string("must be ") + kToneCurveNames);
        scene.defaults.look.curve = *curve;
    }
}

Sun read_sun(const Reader& r, const json& j) {
    if (!j.is_object()) r.fail("environment.sun", "must be an object");
    r.only_keys(j, "environment.sun", {"direction", "angle", "irradiance"});
    Sun sun;
    if (!j.contains("direction")) r.fail("environment.sun", "needs a \"direction\" (towards the sun)");
    sun.direction = r.vec3(j["direction"], "environment.sun.direction");
    if (!(length(sun.direction) > 1e-6f)) r.fail("environment.sun.direction", "must not be zero");
    sun.direction = normalize(sun.direction);
    if (j.contains("angle")) sun.angle_degrees = r.number(j["angle"], "environment.sun.angle");
    if (!(sun.angle_degrees >= kMinSunDegrees && sun.angle_degrees <= kMaxSunDegrees))
        r.fail("environment.sun.angle", "must be between 0.1 and 30 degrees (the sun's apparent diameter)");
    if (!j.contains("irradiance")) r.fail("environment.sun", "needs an \"irradiance\" (on a surface facing it)");
    sun.irradiance = r.colour(j["irradiance"], "environment.sun.irradiance");
    if (max_component(sun.irradiance) > 1e12f) r.fail("environment.sun.irradiance", "must be at most 1e12");
    return sun;
}

void read_environment(const Reader& r, const json& j, Scene& scene, const std::string& scene_path) {
    r.only_keys(j, "environment",
                {"type", "color", "zenith", "horizon", "ground", "intensity", "file", "rotation", "sun"});
    std::string type = j.contains("type") ? r.string(j["type"], "environment.type") : "constant";
    float intensity = j.contains("intensity") ? r.number(j["intensity"], "environment.intensity") : 1.0f;
    if (intensity < 0.0f) r.fail("environment.intensity", "must not be negative");
    // A key that belongs to another type would be silently ignored: a different picture than asked for.
    bool map = type == "map";
    for (const char* k : {"file", "rotation"})
        if (!map && j.contains(k)) r.fail(std::string("environment.") + k, "only a \"map\" environment has it");
    if (type != "sky" && j.contains("sun")) r.fail("environment.sun", "only a \"sky\" environment has one");
    for (const char* k : {"color", "zenith", "horizon", "ground"})
        if (map && j.contains(k))
            r.fail(std::string("environment.") + k, "a \"map\" environment takes its colours from its file");
    Environment& env = scene.environment;
    if (map) {
        if (!j.contains("file")) r.fail("environment", "a \"map\" environment needs a \"file\" (.hdr or .exr)");
        std::string file = resolve(scene_path, r.string(j["file"], "environment.file"));
        float rotation = j.contains("rotation") ? r.number(j["rotation"], "environment.rotation") : 0.0f;
        if (std::fabs(rotation) > 1e6f) r.fail("environment.rotation", "must be between -1e6 and 1e6 degrees");
        set_environment_map(scene, file, intensity, rotation);
        return;
    }
    if (type == "none") {
        env.type = kEnvNone;
    } else if (type == "constant") {
        env.type = kEnvConstant;
        env.color = (j.contains("color") ? r.colour(j["color"], "environment.color") : splat(1.0f)) * intensity;
    } else if (type == "sky") {
        env.type = kEnvSky;
        env.zenith =
            (j.contains("zenith") ? r.colour(j["zenith"], "environment.zenith") : Vec3{0.35f, 0.55f, 1.0f}) * intensity;
        env.horizon = (j.contains("horizon") ? r.colour(j["horizon"], "environment.horizon") : splat(1.0f)) * intensity;
        env.ground =
            (j.contains("ground") ? r.colour(j["ground"], "environment.ground") : Vec3{0.3f, 0.28f, 0.25f}) * intensity;
    } else {
        r.fail("environment.type", "must be \"none\", \"constant\", \"sky\" or \"map\", not \"" + type + "\"");
    }
    // Colours and intensity are each finite; their product may not be (3e38 x 10).
    for (Vec3 c : {env.color, env.zenith, env.horizon, env.ground})
        if (!all_finite(c) || max_component(c) > kMaxRadianceFloat)
            r.fail("environment", "colour times intensity must be at most 1e20");
    if (j.contains("sun")) set_sky_with_sun(scene, read_sun(r, j["sun"]), intensity);
}

Material read_material(const Reader& r, const json& j, const std::string& where, Scene& scene,
                       const std::string& scene_path) {
    r.only_keys(j, where,
                {"type", "albedo", "base_color", "texture", "emission", "roughness", "ior", "metallic", "alpha",
                 "alpha_cutoff"});
    Material m = default_material();
    std::string type = j.contains("type") ? r.string(j["type"], where + ".type") : "diffuse";
    if (type == "diffuse") m.type = kDiffuse;
    else if (type == "conductor") m.type = kConductor;
    else if (type == "dielectric") {
        m.type = kDielectric;
        m.albedo = splat(1.0f);
    } else if (type == "metal_rough") {
        // glTF's defaults (pbrMetallicRoughness): base colour 1, metallic 1, roughness 1.
        m.type = kMetalRough;
        m.albedo = splat(1.0f);
        m.metallic = 1.0f;
        m.alpha = 1.0f;
    } else {
        r.fail(where + ".type",
               "must be \"diffuse\", \"conductor\", \"dielectric\" or \"metal_rough\", not \"" + type + "\"");
    }
    if (m.type != kMetalRough) {
        for (const char* key : {"base_color", "metallic"})
            if (j.contains(key)) r.fail(where + "." + key, "only a \"metal_rough\" material has it");
    }
    if (j.contains("albedo") && j.contains("base_color")) r.fail(where, "give \"base_color\" or \"albedo\", not both");
    if (j.contains("albedo")) m.albedo = r.colour(j["albedo"], where + ".albedo");
    if (j.contains("base_color")) m.albedo = r.colour(j["base_color"], where + ".base_color");
    if (j.contains("metallic")) {
        m.metallic = r.number(j["metallic"], where + ".metallic");
        if (!(m.metallic >= 0.0f && m.metallic <= 1.0f)) r.fail(where + ".metallic", "must be between 0 and 1");
    }
    if (j.contains("texture")) {
        // As an MTL's maps: exporters' spellings, and --missing-textures warn renders the colour alone.
        std::string dir = std::filesystem::path(scene_path).parent_path().string();
        int32_t image = load_asset_texture(scene, scene_path, dir, r.string(j["texture"], where + ".texture"));
        if (image >= 0) m.albedo_texture = add_texture_view(scene, default_texture_view(image));
    }
    if (j.contains("emission")) {
        m.emission = r.colour(j["emission"], where + ".emission");
        if (max_component(m.emission) > kMaxRadianceFloat) r.fail(where + ".emission", "must be at most 1e20");
    }
    if (j.contains("roughness")) {
        float rough = r.number(j["roughness"], where + ".roughness");
        if (rough < 0.0f || rough > 1.0f) r.fail(where + ".roughness", "must be between 0 and 1");
        m.alpha = rough * rough;  // perceptual roughness, as in Disney's and glTF's conventions
    }
    if (j.contains("ior")) {
        m.ior = r.number(j["ior"], where + ".ior");
        if (!(m.ior >= 1.0f && m.ior <= 4.0f)) r.fail(where + ".ior", "must be between 1 and 4");
    }
    if (m.type == kDiffuse && max_component(m.albedo) > 1.0f)
        r.fail(where + ".albedo", "a diffuse albedo above 1 creates energy");
    if (m.type == kMetalRough && max_component(m.albedo) > 1.0f)
        r.fail(where + (j.contains("base_color") ? ".base_color" : ".albedo"),
               "must be between 0 and 1 (it is a reflectance)");
    return m;
}

// "alpha": a coverage texture (its alpha channel, or its grey level without one), as pbrt's alpha
// textures; "alpha_cutoff": solid at and above it (glTF's MASK), else blended stochastically.
void read_cutout(const Reader& r, const json& j, const std::string& where, Scene& scene, const std::string& scene_path,
                 int32_t material) {
    if (j.contains("alpha_cutoff") && !j.contains("alpha"))
        r.fail(where + ".alpha_cutoff", "needs an \"alpha\" texture");
    if (!j.contains("alpha")) return;
    float cutoff = 0.0f;
    if (j.contains("alpha_cutoff")) {
        cutoff = r.number(j["alpha_cutoff"], where + ".alpha_cutoff");
        if (!(cutoff > 0.0f && cutoff <= 1.0f)) r.fail(where + ".alpha_cutoff", "must be in (0, 1]");
    }
    int32_t image = load_texture(scene, resolve(scene_path, r.string(j["alpha"], where + ".alpha")));
    TextureView v = default_texture_view(coverage_image(scene, image));
    v.srgb = 0;
    set_material_cutout(scene, material, add_texture_view(scene, v), 1.0f, cutoff);
}

glm::mat4 read_transform(const Reader& r, const json& j, const std::string& where) {
    r.only_keys(j, where, {"translate", "rotate", "scale"});
    glm::vec3 t(0.0f), axis(0.0f, 1.0f, 0.0f), s(1.0f);
    float degrees = 0.0f;
    if (j.contains("translate")) {
        Vec3 v = r.vec3(j["translate"], where + ".translate");
        t = {v.x, v.y, v.z};
    }
    if (j.contains("rotate")) {
        const json& rot = j["rotate"];
        if (!rot.is_array() || rot.size() != 4) r.fail(where + ".rotate", "must be [degrees, axis_x, axis_y, axis_z]");
        degrees = r.number(rot[0], where + ".rotate[0]");
        axis = {r.number(rot[1], where + ".rotate[1]"), r.number(rot[2], where + ".rotate[2]"),
                r.number(rot[3], where + ".rotate[3]")};
        if (!(glm::length(axis) > 0.0f)) r.fail(where + ".rotate", "axis must not be zero");
    }
    if (j.contains("scale")) {
        if (j["scale"].is_number()) s = glm::vec3(r.number(j["scale"], where + ".scale"));
        else {
            Vec3 v = r.vec3(j["scale"], where + ".scale");
            s = {v.x, v.y, v.z};
        }
        if (s.x == 0.0f || s.y == 0.0f || s.z == 0.0f) r.fail(where + ".scale", "must not be zero");
    }
    return make_transform(t, degrees, axis, s);
}

}  // namespace

Scene load_scene_json(const InputFile& file, const LoadLimits& limits) {
    const std::string& path = file.path;
    json doc = parse_json_file(path, file.bytes.data(), file.bytes.size(), /*comments=*/true);
    Reader r(path);
    r.only_keys(doc, "top level", {"camera", "render", "environment", "materials", "meshes"});
    Scene scene;
    scene.source = path;
    scene.limits = limits;
    scene.inputs.push_back({path, file.id});
    if (doc.contains("camera")) read_camera(r, doc["camera"], scene);
    if (doc.contains("render")) read_render(r, doc["render"], scene);
    if (doc.contains("environment")) read_environment(r, doc["environment"], scene, path);

    std::map<std::string, int32_t> named;
    if (doc.contains("materials")) {
        const json& mats = doc["materials"];
        if (!mats.is_object()) r.fail("materials", "must be an object of name: material");
        for (auto it = mats.begin(); it != mats.end(); ++it) {
            named[it.key()] = static_cast<int32_t>(scene.materials.size());
            scene.materials.push_back(read_material(r, it.value(), "materials." + json_excerpt(it.key()), scene, path));
            scene.material_names.push_back(it.key());
            read_cutout(r, it.value(), "materials." + json_excerpt(it.key()), scene, path, named[it.key()]);
        }
    }
    if (!doc.contains("meshes")) r.fail("top level", "no \"meshes\": nothing to render");
    const json& meshes = doc["meshes"];
    if (!meshes.is_array() || meshes.empty()) r.fail("meshes", "must be a non-empty array");
    for (size_t i = 0; i < meshes.size(); ++i) {
        std::string where = "meshes[" + std::to_string(i) + "]";
        const json& m = meshes[i];
        r.only_keys(m, where, {"obj", "ply", "gltf", "sphere", "quad", "transform", "material"});
        glm::mat4 xf =
            m.contains("transform") ? read_transform(r, m["transform"], where + ".transform") : glm::mat4(1.0f);
        int32_t mat = -1;
        if (m.contains("material")) {
            std::string name = r.string(m["material"], where + ".material");
            auto it = named.find(name);
            if (it == named.end()) r.fail(where + ".material", "no material named '" + json_excerpt(name) + "'");
            mat = it->second;
        }
        int kinds = 0;
        for (const char* kind : {"obj", "ply", "gltf", "sphere", "quad"}) kinds += m.contains(kind) ? 1 : 0;
        if (kinds != 1) r.fail(where, "needs exactly one of \"obj\", \"ply\", \"gltf\", \"sphere\" or \"quad\"");
        auto material_or_default = [&]() {
            if (mat >= 0) return mat;
            scene.materials.push_back(default_material());
            scene.material_names.push_back("default");
            return mat = static_cast<int32_t>(scene.materials.size()) - 1;
        };
        if (m.contains("obj")) {
            ObjOptions opt;
            opt.transform = xf;
            opt.material_override = mat;
            try {
                load_obj(scene, resolve(path, r.string(m["obj"], where + ".obj")), opt);
            } catch (const Error& e) {
                throw Error(path + ": " + where + ": " + e.what());
            }
        } else if (m.contains("ply")) {
            PlyOptions opt;
            opt.transform = xf;
            opt.material_override = mat;
            try {
                load_ply(scene, resolve(path, r.string(m["ply"], where + ".ply")), opt);
            } catch (const Error& e) {
                throw Error(path + ": " + where + ": " + e.what());
            }
        } else if (m.contains("gltf")) {
            GltfOptions opt;
            opt.transform = xf;
            opt.material_override = mat;
            try {
                load_gltf(scene, resolve(path, r.string(m["gltf"], where + ".gltf")), opt);
            } catch (const Error& e) {
                throw Error(path + ": " + where + ": " + e.what());
            }
        } else if (m.contains("sphere")) {
            const json& s = m["sphere"];
            r.only_keys(s, where + ".sphere", {"center", "radius", "subdivisions", "inward"});
            Vec3 c = s.contains("center") ? r.vec3(s["center"], where + ".sphere.center") : splat(0.0f);
            float radius = s.contains("radius") ? r.number(s["radius"], where + ".sphere.radius") : 1.0f;
            if (!(radius > 0.0f)) r.fail(where + ".sphere.radius", "must be positive");
            int sub =
                s.contains("subdivisions") ? r.integer(s["subdivisions"], where + ".sphere.subdivisions", 0, 7) : 4;
            check_triangle_budget(scene.limits, path + ": " + where + ".sphere", scene.tris.size(),
                                  uint64_t(20) << (2 * sub));
            bool inward = s.contains("inward") && r.boolean(s["inward"], where + ".sphere.inward");
            add_sphere(scene, xf, c, radius, sub, inward, material_or_default());
        } else {
            const json& q = m["quad"];
            if (!q.is_array() || q.size() != 4) r.fail(where + ".quad", "must be an array of 4 corners");
            Vec3 corners[4];
            for (int k = 0; k < 4; ++k) corners[k] = r.vec3(q[k], where + ".quad[" + std::to_string(k) + "]");
            check_triangle_budget(scene.limits, path + ": " + where + ".quad", scene.tris.size(), 2);
            add_quad(scene, xf, corners, material_or_default());
        }
    }
    if (scene.tris.empty()) r.fail("meshes", "no valid triangles (all were degenerate or non-finite)");
    return scene;
}

}  // namespace pkrt
