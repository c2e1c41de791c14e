#include "app/viewer/options.h"

#include "render/adaptive.h"

#include <cmath>
#include <cstdio>

#include <CLI/CLI.hpp>

#include "render/bvh/bvh_layout.h"
#include "render/error.h"
#include "render/scheduler_options.h"
#include "app/limit_options.h"
#include "app/strict_options.h"
#include "app/view_options.h"
#include "render/image/image.h"
#include "render/scene/render_limits.h"

namespace pkrt::viewer {

int parse_options(int argc, char** argv, ViewerOptions* o) {
    set_log_program("pkrt-viewer");
    CLI::App app{"pkrt-viewer: interactive progressive path tracing with live scheduler statistics"};
    std::string res;
    app.add_option("scene", o->scene, "Scene file (.json, .obj, .ply, .gltf or .glb); default: the Cornell box");
    app.add_option("--backend", o->backend, "auto, cpu or cuda")->capture_default_str();
    app.add_option(
        "--mode", o->mode,
        "GPU scheduler: persistent (the default), relaunch, graph, megakernel or resident (switchable live)");
    pkrt::add_bvh_options(&app, &o->bvh);
    app.add_option("--res", res, "Window size WIDTHxHEIGHT (default: the scene's resolution)");
    CLI::Option* spp = app.add_option("--spp-per-frame", o->spp_per_frame,
                                      "Samples per pixel added each frame (default: 1 CPU, 4 GPU)");
    app.add_option("--spp-target", o->spp_target, "Stop accumulating at this many samples per pixel (0: never)")
        ->capture_default_str();
    app.add_option(
        "--target-error", o->target_error,
        "Stop when converged: adaptive rounds until every pixel's estimated relative error is at most E (0: off)");
    app.add_flag("--spp-map", o->spp_map, "Show the samples-per-pixel map over the image");
    pkrt::add_view_options(&app, &o->camera, &o->env, &o->seed);
    app.add_option("--bookmarks", o->bookmarks, "Camera bookmarks file: Ctrl+1..9 save the view, 1..9 recall it")
        ->capture_default_str();
    app.add_flag("--denoise", o->denoise, "Show the image denoised (by --denoiser; key N toggles it)");
    app.add_option("--denoiser", o->denoiser,
                   "atrous (the a-trous filter, guided by albedo, normal and depth) or unet (the learned U-Net, "
                   "for a view at rest; the a-trous filter while the camera moves)");
    app.add_option("--denoiser-weights", o->denoiser_weights,
                   "With --denoiser unet: a U-Net weight file (tools/denoiser/) in place of the shipped one");
    CLI::Option* depth = app.add_option("--max-depth", o->max_depth, "Maximum bounces (default: the scene's)");
    CLI::Option* scale =
        app.add_option("--scale", o->scale, "Render resolution as a fraction of the window (default: 0.5 CPU, 1 GPU)");
    app.add_option("--exposure", o->exposure,
                   "Exposure: stops, or auto (the image's log-average luminance to mid grey); default: the "
                   "scene's, else 0, as for pkrt render");
    app.add_option("--tone-map", o->tone_map,
                   "Tone curve: clamp (values above 1 clip), aces or agx (filmic); default: the scene's, else "
                   "clamp, as for pkrt render");
    CLI::Option* frames = app.add_option(
        "--frames", o->frames, "Render this many frames, save --screenshot (the image, without the UI), exit");
    app.add_option("--screenshot", o->screenshot,
                   "PNG for --frames/--script, and the name P uses (default pkrt-screenshot-N.png)");
    app.add_option("--shaders", o->shaders, "Directory with display.vert and display.frag")->capture_default_str();
    pkrt::add_limit_options(&app, &o->limits);
    pkrt::add_run_options(&app, &o->run);
    app.add_option("--script", o->script, "Drive the viewer from a script of input events (see app/viewer/script.h)");
    app.add_option("--interop", o->interop,
                   "CUDA-GL interop: texture (CUDA writes it) or buffer (a pixel buffer GL copies)")
        ->capture_default_str();
    CLI::Option* preview = app.add_option(
        "--preview", o->preview,
        "After a camera move, show a preview at 1/N resolution first (default 4; 1: none; batch runs: none unless given)");
    app.add_option("--devices", o->devices, "CUDA devices: all, or indices as 0,1 (one image on all of them)");
    app.add_option("--set", o->set, "Scheduler setting KEY=VALUE for experiments (repeatable; see pkrt help-settings)");
    make_values_strict(app);  // one way to read every flag's value, as pkrt's (app/strict_options.h)
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        log_error("%s (see pkrt-viewer --help)", e.what());
        return 2;
    }
    try {
        apply_run_options(o->run);
    } catch (const Error& e) {
        log_error("%s", e.what());
        return 2;
    }
    // Explicit values are checked as given; 0 is only the "not given" default.
    o->spp_per_frame_set = spp->count() > 0;
    o->frames_set = frames->count() > 0;
    o->preview_set = preview->count() > 0;
    o->max_depth_set = depth->count() > 0;
    o->scale_set = scale->count() > 0;
    if (!res.empty()) {
        try {
            parse_resolution(res, &o->width, &o->height, limits::kMinWindowSide, limits::kMaxWindowSide);
        } catch (const Error& e) {
            log_error("%s", e.what());
            return 2;
        }
    }
    return -1;
}

void check_options(ViewerOptions& o) {
    if (o.backend != "auto" && o.backend != "cpu" && o.backend != "cuda")
        throw Error("--backend " + o.backend + ": must be auto, cpu or cuda");
    resolve_bvh_flags(o.bvh);
    if (o.spp_per_frame_set || o.spp_per_frame != 0)
        limits::check_range("--spp-per-frame", o.spp_per_frame, 1, limits::kMaxSppPerFrame);
    limits::check_range("--spp-target", o.spp_target, 0, limits::kMaxSppTarget);  // 0: never stop
    if (o.target_error != 0.0f) {  // the render command's checks (a positive, finite E)
        AdaptiveSettings a;
        a.target_error = o.target_error;
        check_adaptive_settings(a, limits::kMaxSpp);
    }
    // A value given is checked as given, as pkrt render checks it: -1 and 0 are only the "not given" defaults.
    if (o.max_depth_set || o.max_depth != -1) limits::check_range("--max-depth", o.max_depth, 0, limits::kMaxDepth);
    if ((o.scale_set || o.scale != 0.0f) && !(o.scale >= 0.05f && o.scale <= 1.0f))
        throw Error("--scale: must be between 0.05 and 1");
    if (o.interop != "texture" && o.interop != "buffer")
        throw Error("--interop " + o.interop + ": must be texture or buffer");
    check_setup_options(setup_options(o));  // --exposure, --tone-map and the rest, as pkrt render checks them
    if ((o.frames_set && o.frames < 1) || o.frames > 1000000)
        throw Error("--frames " + std::to_string(o.frames) + ": must be between 1 and 1000000");
    if (!o.screenshot.empty()) check_output_path(o.screenshot, {".png", ".exr"}, "--screenshot");
    if (o.bookmarks.empty() || image_extension(o.bookmarks) != ".json")
        throw Error("--bookmarks " + o.bookmarks + ": must name a .json file");
    if ((o.preview_set && o.preview < 1) || o.preview > 64)
        throw Error("--preview " + std::to_string(o.preview) + ": must be between 1 (none) and 64");
    parse_settings(o.set);  // the backend parses them again; a bad one fails here, before a window opens
    // The weights are read here, before a window opens; the denoiser is used once --denoise or key N asks.
    o.denoiser_choice = choose_denoiser(parse_denoiser_kind(o.denoiser), o.denoiser_weights);
}

SetupOptions setup_options(const ViewerOptions& o) {
    SetupOptions so;
    so.scene = o.scene;
    so.limits = o.limits;
    so.bvh = resolve_bvh_flags(o.bvh);
    so.backend.kind = o.backend;
    so.backend.set = o.set;
    so.backend.devices = o.devices;
    so.mode = o.mode;
    if (o.max_depth >= 0) so.max_depth = o.max_depth;
    so.exposure = o.exposure;
    so.tone_map = o.tone_map;
    so.camera = o.camera;
    so.env = o.env;
    so.seed = o.seed;
    return so;
}

}  // namespace pkrt::viewer
