#include "render/setup.h"

#include <cstdio>

#include "render/data_dir.h"
#include "render/error.h"
#include "render/scene/loaders.h"
#include "render/scene/render_limits.h"

namespace pkrt {

namespace {

std::string format_number(float v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", static_cast<double>(v));
    return buf;
}

}  // namespace

std::string default_scene_path() { return scenes_dir() + "/cornell.json"; }

void check_setup_options(const SetupOptions& o) {
    if (o.spp) limits::check_range("--spp", *o.spp, 1, limits::kMaxSpp);
    if (o.max_depth) limits::check_range("--max-depth", *o.max_depth, 0, limits::kMaxDepth);
    if (o.width || o.height) {
        limits::check_range(o.resolution_flag + ": width", o.width, 1, limits::kMaxImageSide);
        limits::check_range(o.resolution_flag + ": height", o.height, 1, limits::kMaxImageSide);
        check_pixel_budget(o.limits, o.resolution_flag, o.width, o.height);
    }
    if (o.aperture && !valid_aperture_radius(*o.aperture))
        throw Error("--aperture " + format_number(*o.aperture) +
                    ": the lens radius must be between 0 (a pinhole) and 1e18");
    Look look;
    if (!o.exposure.empty()) parse_exposure(o.exposure, &look);
    if (!o.tone_map.empty() && !parse_tone_curve(o.tone_map))
        throw Error("--tone-map: '" + o.tone_map + "' is not a tone curve (" + kToneCurveNames + ")");
    if (o.focus_distance && !valid_focus_distance(*o.focus_distance))
        throw Error("--focus-distance " + format_number(*o.focus_distance) +
                    ": must be greater than 0 and at most 1e18");
}

std::unique_ptr<Backend> setup_backend(const SetupOptions& o, std::optional<SchedulerMode>* mode, std::string* why,
                                       const std::string& mode_flag) {
    std::optional<SchedulerMode> m;
    if (!o.mode.empty()) m = parse_mode(o.mode, mode_flag);
    std::unique_ptr<Backend> backend = make_backend(o.backend, why);
    if (m) check_mode(*backend, *m, mode_flag);
    if (mode) *mode = m;
    return backend;
}

std::vector<std::string> load_warnings(const Scene& scene, const std::string& path) {
    std::vector<std::string> w;
    const SceneLoadStats& st = scene.load_stats;
    if (st.invalid_environment_texels)
        w.push_back(scene.env_map.path + ": set " + std::to_string(st.invalid_environment_texels) +
                    " texels with a NaN, infinite or negative component to 0");
    w.insert(w.end(), st.warnings.begin(), st.warnings.end());
    if (st.nonfinite_triangles)
        w.push_back(path + ": dropped " + std::to_string(st.nonfinite_triangles) +
                    " triangles with NaN or infinite vertices");
    if (st.degenerate_triangles)
        w.push_back(path + ": dropped " + std::to_string(st.degenerate_triangles) +
                    " degenerate (zero-area) triangles");
    return w;
}

Scene setup_scene(const SetupOptions& o, const std::string& path, std::vector<std::string>* warnings) {
    Scene scene = load_scene(path, o.limits);
    // The --res size was checked with the options; a scene's own resolution is checked here, before the BVH build.
    if (!o.width)
        check_pixel_budget(o.limits, path + ": render.resolution", scene.defaults.width, scene.defaults.height);
    if (!o.camera.empty()) select_camera(scene, o.camera);  // before the warnings: a failure is one line
    if (!o.env.empty()) set_environment_map(scene, o.env, 1.0f, 0.0f);
    if (warnings) *warnings = load_warnings(scene, path);
    if (o.aperture) scene.camera.aperture_radius = *o.aperture;
    if (o.focus_distance) scene.camera.focus_distance = *o.focus_distance;
    if (o.before_build) o.before_build(scene);
    prepare_scene(scene, o.bvh.layout, o.bvh.splits, o.bvh.sbvh);
    return scene;
}

RenderSettings setup_settings(const SetupOptions& o, const Scene& scene, std::optional<SchedulerMode> mode) {
    RenderSettings rs;
    rs.width = o.width ? o.width : scene.defaults.width;
    rs.height = o.height ? o.height : scene.defaults.height;
    rs.spp = o.spp ? *o.spp : scene.defaults.spp;
    rs.max_depth = o.max_depth ? *o.max_depth : scene.defaults.max_depth;
    rs.seed = o.seed;
    rs.mode = mode;
    return rs;
}

Look setup_look(const SetupOptions& o, const Scene& scene) {
    Look look = scene.defaults.look;
    if (!o.exposure.empty()) parse_exposure(o.exposure, &look);
    if (!o.tone_map.empty()) look.curve = *parse_tone_curve(o.tone_map);
    return look;
}

ReadyRender setup_render(const SetupOptions& o) {
    check_setup_options(o);
    ReadyRender r;
    r.backend = setup_backend(o, &r.mode, &r.why);
    r.scene_path = o.scene.empty() ? default_scene_path() : o.scene;
    r.scene = setup_scene(o, r.scene_path, &r.warnings);
    r.settings = setup_settings(o, r.scene, r.mode);
    r.look = setup_look(o, r.scene);
    return r;
}

}  // namespace pkrt
