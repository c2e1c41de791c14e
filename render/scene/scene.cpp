#include "render/scene/scene.h"

#include <chrono>
#include <cmath>
#include <filesystem>

#include "render/bvh/bvh_build.h"
#include "kernels/shading/lights.h"
#include "render/error.h"
#include "render/scene/input_file.h"
#include "render/scene/loaders.h"

namespace pkrt {

Scene load_scene_json(const InputFile& file, const LoadLimits& limits);  // scene_json.cpp

namespace {

std::string lower_extension(const std::string& path) {
    std::string ext = std::filesystem::path(path).extension().string();
    for (auto& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return ext;
}

// A model without a scene file: look at its bounding box from the front, a little above, under a
// daylight sky.
void frame_model(Scene& scene) {
    if (scene.tris.empty()) throw Error(scene.source + ": no valid triangles");
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
}

// A mesh file alone under the sky, framed by the automatic camera.
template <class Load> Scene load_bare_mesh(const std::string& path, const LoadLimits& limits, Load&& load) {
    Scene scene;
    scene.source = path;
    scene.limits = limits;
    load(scene);
    frame_model(scene);
    return scene;
}

}  // namespace

Scene load_scene(const std::string& path, const LoadLimits& limits) {
    std::string ext = lower_extension(path);
    if (ext == ".json") return load_scene_json(read_input_file(path), limits);
    check_input_file(path);
    if (ext == ".obj") return load_bare_mesh(path, limits, [&](Scene& s) { load_obj(s, path, ObjOptions{}); });
    if (ext == ".ply") return load_bare_mesh(path, limits, [&](Scene& s) { load_ply(s, path, PlyOptions{}); });
    if (ext == ".gltf" || ext == ".glb") {
        // The file's first camera where it has one; the sky either way (glTF files carry no environment).
        Scene scene = load_bare_mesh(path, limits, [&](Scene& s) { load_gltf(s, path, GltfOptions{}); });
        if (!scene.cameras.empty()) scene.camera = scene.cameras[0].spec;
        return scene;
    }
    throw Error(path + ": unknown scene type '" + ext + "' (expected .json, .obj, .ply, .gltf or .glb)");
}

int32_t add_texture_view(Scene& scene, const TextureView& view) {
    auto same = [&](const TextureView& v) {
        if (v.image != view.image || v.wrap_u != view.wrap_u || v.wrap_v != view.wrap_v || v.srgb != view.srgb)
            return false;
        for (int k = 0; k < 6; ++k)
            if (v.uv[k] != view.uv[k]) return false;
        return true;
    };
    for (size_t i = 0; i < scene.texture_views.size(); ++i)
        if (same(scene.texture_views[i])) return static_cast<int32_t>(i);
    scene.texture_views.push_back(view);
    return static_cast<int32_t>(scene.texture_views.size()) - 1;
}

void select_camera(Scene& scene, const std::string& which) {
    std::string list;
    for (size_t i = 0; i < scene.cameras.size(); ++i)
        list += (i ? ", " : "") + std::to_string(i) + " '" + scene.cameras[i].name + "'";
    if (scene.cameras.empty()) throw Error("--camera " + which + ": " + scene.source + " defines no cameras");
    bool digits = !which.empty() && which.size() < 10 && which.find_first_not_of("0123456789") == std::string::npos;
    if (digits) {
        size_t i = std::stoul(which);
        if (i < scene.cameras.size()) {
            scene.camera = scene.cameras[i].spec;
            return;
        }
    }
    for (const auto& c : scene.cameras)
        if (c.name == which) {
            scene.camera = c.spec;
            return;
        }
    throw Error("--camera " + which + ": " + scene.source + " has no such camera (it has " + list + ")");
}

void prepare_scene(Scene& scene, BvhLayout layout, float split_budget, bool spatial_splits) {
    if (scene.tris.empty()) throw Error(scene.source + ": the scene has no valid triangles");
    auto t0 = std::chrono::steady_clock::now();
    std::vector<uint32_t> order;
    {
        BvhBuildOptions options = bvh_build_options(layout);
        options.split_budget = split_budget;
        options.spatial_splits = spatial_splits;
        BinaryBvh bvh = build_bvh(scene.tris, options);
        scene.bvh_sah_cost = bvh_sah_cost(bvh);  // unit costs, so that builds compare
        scene.bvh = convert_bvh(bvh, layout, order);
    }
    scene.bvh_build_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    // Slots in the BVH's order; a split triangle has a slot per reference, each a copy of it.
    const size_t n = scene.tris.size();
    scene.source_triangles = n;
    std::vector<TriVerts> tris(order.size());
    std::vector<TriShading> shading(order.size());
    std::vector<uint32_t> slot_of(n);
    for (size_t i = order.size(); i-- > 0;) {
        tris[i] = scene.tris[order[i]];
        shading[i] = scene.shading[order[i]];
        slot_of[order[i]] = static_cast<uint32_t>(i);
    }
    scene.tris = std::move(tris);
    scene.shading = std::move(shading);
    for (size_t i = 0; i < scene.tris.size(); ++i) {
        size_t m = static_cast<size_t>(scene.shading[i].material);
        set_cutout(scene.tris[i],
                   m < scene.material_cutouts.size() ? scene.material_cutouts[m] : TriCutout{0, 0.0f, 1.0f});
    }
    bool normal_maps = false;
    for (const auto& m : scene.materials) normal_maps = normal_maps || m.normal_texture >= 0;
    if (!normal_maps) {
        scene.tangents.clear();
    } else {
        scene.tangents.resize(n, TriTangents{});  // meshes added after the last tangents have none
        std::vector<TriTangents> tangents(order.size());
        for (size_t i = 0; i < order.size(); ++i) tangents[i] = scene.tangents[order[i]];
        scene.tangents = std::move(tangents);
    }

    // Triangle lights, chosen in proportion to emitted power (luminance x area; the pi of a Lambertian
    // emitter is common to all and cancels). Listed in the scene's own triangle order, not the BVH's,
    // so the same random number picks the same light whatever the layout (renders agree across layouts).
    scene.light_tris.clear();
    scene.light_cdf.clear();
    scene.tri_light_pmf.assign(scene.tris.size(), 0.0f);
    std::vector<double> power;
    double total = 0.0;
    for (size_t original = 0; original < n; ++original) {
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
    // A hit on any copy of a light is a hit on that light (MIS weighs it by its pmf).
    for (size_t i = 0; i < order.size(); ++i) scene.tri_light_pmf[i] = scene.tri_light_pmf[slot_of[order[i]]];
    if (!scene.light_cdf.empty()) scene.light_cdf.back() = 1.0f;
    if (scene.environment.type == kEnvMap) build_environment_distribution(scene.env_map);
    // Half the light samples go to the environment when there are also triangle lights, whatever its
    // kind. A power comparison would need the scene's extent (an environment's power through the scene
    // grows with its bounding sphere's area) and misleads exactly where it matters most: a bright map
    // outside a closed room would take most samples and deliver nothing. MIS with the BSDF samples keeps
    // either share unbiased; the map's own importance sampling puts its half where its light is.
    bool env_light = environment_is_light(environment_view(scene));
    bool tri_lights = !scene.light_tris.empty();
    scene.env_select = env_light ? (tri_lights ? 0.5f : 1.0f) : 0.0f;

    for (auto& v : scene.texture_views) {
        const TextureImage& t = scene.textures.at(static_cast<size_t>(v.image));
        v.format = t.format;
        if (t.format == kTextureRgba32f) v.texels_f = t.texels_f.data();
        else v.texels = t.texels.data();
        v.width = t.width;
        v.height = t.height;
        v.object = 0;
    }
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

Environment environment_view(const Scene& scene) {
    Environment e = scene.environment;
    if (e.type == kEnvMap) {
        const EnvironmentMap& m = scene.env_map;
        e.texels = m.texels.data();
        e.width = m.width;
        e.height = m.height;
        // Null until prepare_scene() has built them: the map is then no light yet.
        e.marginal_cdf = m.marginal_cdf.empty() ? nullptr : m.marginal_cdf.data();
        e.conditional_cdf = m.conditional_cdf.empty() ? nullptr : m.conditional_cdf.data();
    }
    return e;
}

bool valid_aperture_radius(float r) { return std::isfinite(r) && r >= 0.0f && r <= 1e18f; }
bool valid_focus_distance(float d) { return std::isfinite(d) && d > 0.0f && d <= 1e18f; }

void set_material_cutout(Scene& scene, int32_t material, int32_t view, float factor, float cutoff) {
    scene.material_cutouts.resize(scene.materials.size(), TriCutout{0, 0.0f, 1.0f});
    scene.material_cutouts[static_cast<size_t>(material)] = TriCutout{view >= 0 ? view + 2 : 1, cutoff, factor};
}

bool has_cutout(const Scene& scene, int32_t material) {
    return static_cast<size_t>(material) < scene.material_cutouts.size() &&
           scene.material_cutouts[static_cast<size_t>(material)].rule != 0;
}

bool has_cutouts(const Scene& scene) {
    for (size_t m = 0; m < scene.materials.size(); ++m)
        if (has_cutout(scene, static_cast<int32_t>(m))) return true;
    return false;
}

bool needs_full_shading(const Scene& scene) {
    if (scene.environment.type == kEnvMap || has_cutouts(scene)) return true;
    for (const Material& m : scene.materials)
        if (m.type == kMetalRough || m.emission_texture >= 0 || m.metal_rough_texture >= 0 || m.normal_texture >= 0)
            return true;
    return false;
}

SceneView view_scene(const Scene& scene) {
    SceneView v{};
    v.bvh = bvh_view(scene.bvh, scene.tris);
    v.shading = scene.shading.data();
    v.tangents = scene.tangents.empty() ? nullptr : scene.tangents.data();
    v.materials = scene.materials.data();
    v.textures = scene.texture_views.data();
    v.lights.tris = scene.light_tris.data();
    v.lights.cdf = scene.light_cdf.data();
    v.lights.tri_pmf = scene.tri_light_pmf.data();
    v.lights.count = static_cast<int32_t>(scene.light_tris.size());
    v.lights.env_select = scene.env_select;
    v.env = environment_view(scene);
    v.full_shading = needs_full_shading(scene) ? 1 : 0;
    v.cutouts = has_cutouts(scene) ? 1 : 0;
    return v;
}

}  // namespace pkrt
