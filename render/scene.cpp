#include "scene.h"

#include <chrono>
#include <cmath>
#include <filesystem>

#include "bvh_build.h"
#include "kernels/lights.h"
#include "error.h"
#include "input_file.h"
#include "loaders.h"

namespace pkrt {

Scene load_scene_json(const InputFile& file, const LoadLimits& limits);  // scene_json.cpp

namespace {

std::string lower_extension(const std::string& path) {
    std::string ext = std::filesystem::path(path).extension().string();
    for (auto& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return ext;
}

// A bare OBJ: look at its bounding box from the front, a little above, under a daylight sky.
Scene load_bare_obj(const std::string& path, const LoadLimits& limits) {
    Scene scene;
    scene.source = path;
    scene.limits = limits;
    load_obj(scene, path, ObjOptions{});
    if (scene.tris.empty()) throw Error(path + ": no valid triangles");
    Vec3 lo = splat(kInfinity), hi = splat(-kInfinity);
    for (const auto& t : scene.tris) {
        lo = vmin(lo, vmin(t.v0, vmin(t.v1, t.v2)));
        hi = vmax(hi, vmax(t.v0, vmax(t.v1, t.v2)));
    }
    Vec3 center = (lo + hi) * 0.5f;
    float radius = 0.5f * length(hi - lo);
    scene.camera.vfov_degrees = 40.0f;
    float dist = radius / std::sin(0.5f * scene.camera.vfov_degrees * kPi / 180.0f);
    scene.camera.look_at = center;
    scene.camera.eye = center + normalize(Vec3{0.35f, 0.3f, 1.0f}) * dist;
    scene.camera.up = {0.0f, 1.0f, 0.0f};
    scene.environment.type = kEnvSky;
    scene.environment.zenith = {0.35f, 0.55f, 1.0f};
    scene.environment.horizon = {1.0f, 1.0f, 1.0f};
    scene.environment.ground = {0.3f, 0.28f, 0.25f};
    return scene;
}

}  // namespace

Scene load_scene(const std::string& path, const LoadLimits& limits) {
    std::string ext = lower_extension(path);
    if (ext == ".json") return load_scene_json(read_input_file(path), limits);
    check_input_file(path);
    if (ext == ".obj") return load_bare_obj(path, limits);
    throw Error(path + ": unknown scene type '" + ext + "' (expected .json or .obj)");
}

void prepare_scene(Scene& scene, BvhLayout layout) {
    if (scene.tris.empty()) throw Error(scene.source + ": the scene has no valid triangles");
    auto t0 = std::chrono::steady_clock::now();
    std::vector<uint32_t> order;
    {
        BinaryBvh bvh = build_bvh(scene.tris, bvh_build_options(layout));
        scene.bvh = convert_bvh(bvh, layout, order);
    }
    scene.bvh_build_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    std::vector<TriVerts> tris(scene.tris.size());
    std::vector<TriShading> shading(scene.shading.size());
    std::vector<uint32_t> slot_of(order.size());
    for (size_t i = 0; i < order.size(); ++i) {
        tris[i] = scene.tris[order[i]];
        shading[i] = scene.shading[order[i]];
        slot_of[order[i]] = static_cast<uint32_t>(i);
    }
    scene.tris = std::move(tris);
    scene.shading = std::move(shading);

    // Triangle lights, chosen in proportion to emitted power (luminance x area; the pi of a Lambertian
    // emitter is common to all and cancels). Listed in the scene's own triangle order, not the BVH's,
    // so the same random number picks the same light whatever the layout (renders agree across layouts).
    scene.light_tris.clear();
    scene.light_cdf.clear();
    scene.tri_light_pmf.assign(scene.tris.size(), 0.0f);
    std::vector<double> power;
    double total = 0.0;
    for (size_t original = 0; original < order.size(); ++original) {
        size_t i = slot_of[original];
        const Material& m = scene.materials[scene.shading[i].material];
        if (!is_emissive(m)) continue;
        float area;
        triangle_geometric_normal(scene.tris[i].v0, scene.tris[i].v1, scene.tris[i].v2, &area);
        double p = static_cast<double>(luminance(m.emission)) * area;
        if (!(p > 0.0)) continue;
        scene.light_tris.push_back(static_cast<int32_t>(i));
        power.push_back(p);
        total += p;
    }
    double acc = 0.0;
    for (size_t k = 0; k < power.size(); ++k) {
        acc += power[k];
        scene.light_cdf.push_back(static_cast<float>(acc / total));
        scene.tri_light_pmf[scene.light_tris[k]] = static_cast<float>(power[k] / total);
    }
    if (!scene.light_cdf.empty()) scene.light_cdf.back() = 1.0f;
    bool env_light = environment_is_light(scene.environment);
    bool tri_lights = !scene.light_tris.empty();
    scene.env_select = env_light ? (tri_lights ? 0.5f : 1.0f) : 0.0f;

    scene.texture_views.clear();
    for (const auto& t : scene.textures)
        scene.texture_views.push_back(TextureView{t.texels.data(), t.width, t.height, 0});
}

CameraView make_camera_view(const CameraSpec& spec, int width, int height) {
    CameraView c;
    c.eye = spec.eye;
    c.forward = normalize(spec.look_at - spec.eye);
    c.right = normalize(cross(c.forward, spec.up));
    c.up = cross(c.right, c.forward);
    c.tan_half_fov_y = std::tan(0.5f * spec.vfov_degrees * kPi / 180.0f);
    c.aspect = static_cast<float>(width) / static_cast<float>(height);
    c.lens_radius = spec.aperture_radius;
    c.focus_distance = spec.focus_distance > 0.0f ? spec.focus_distance : length(spec.look_at - spec.eye);
    return c;
}

bool valid_aperture_radius(float r) { return std::isfinite(r) && r >= 0.0f && r <= 1e18f; }
bool valid_focus_distance(float d) { return std::isfinite(d) && d > 0.0f && d <= 1e18f; }

SceneView view_scene(const Scene& scene) {
    SceneView v{};
    v.bvh = bvh_view(scene.bvh, scene.tris);
    v.shading = scene.shading.data();
    v.materials = scene.materials.data();
    v.textures = scene.texture_views.data();
    v.lights.tris = scene.light_tris.data();
    v.lights.cdf = scene.light_cdf.data();
    v.lights.tri_pmf = scene.tri_light_pmf.data();
    v.lights.count = static_cast<int32_t>(scene.light_tris.size());
    v.lights.env_select = scene.env_select;
    v.env = scene.environment;
    return v;
}

}  // namespace pkrt
