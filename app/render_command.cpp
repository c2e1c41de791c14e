#include "app/render_command.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>

#include "app/limit_options.h"
#include "app/render_args.h"
#include "app/view_options.h"
#include "app/sequence_cli.h"
#include "render/backend.h"
#include "render/checkpoint.h"
#include "render/distributed/sample_chunks.h"
#include "render/error.h"
#include "render/denoise/denoiser.h"
#include "render/denoise/denoiser_choice.h"
#include "render/image/aov.h"
#include "render/image/image.h"
#include "render/image/output_files.h"
#include "render/log.h"
#include "render/progress.h"
#include "render/scene/input_file.h"
#include "render/scene/loaders.h"
#include "render/scene/render_limits.h"
#include "render/scene/scene.h"
#include "render/sequence.h"
#include "render/setup.h"
#include "render/stats.h"

namespace pkrt {

namespace {

// A render checked and loaded: what every rank of an MPI job does on its own before they render together.
struct PreparedRender {
    std::unique_ptr<Backend> backend;
    std::string why;  // which backend and why
    Scene scene;
    RenderSettings rs;
    std::optional<CameraPath> camera_path;  // a sequence's cameras
    std::vector<OutputFile> outputs;        // rank 0's alone: the others write nothing
    std::vector<SceneInput> inputs;
    Image reference;
    ResumePoint resume;     // --resume: the samples there already (none: spp 0)
    Look look;              // of the PNG
    std::vector<Aov> aovs;  // --aov: layers of every EXR output (with --denoise: all, so that --resume can go on)
    std::unique_ptr<Denoiser> denoiser;  // --denoise
};

// Before the render, so that an output naming an input (or another output) fails in a second: rank 0's
// outputs against the scene's inputs and the reference, which is read here so a wrong one fails at once.
void check_outputs_before_render(const RenderArgs& a, const std::string& output, const std::string& hdr,
                                 const Scene& scene, int w, int h, PreparedRender& p) {
    std::vector<OutputFile>& outputs = p.outputs;
    outputs = {{"-o", output, {}}};
    if (!hdr.empty()) outputs.push_back({"--hdr", hdr, {}});
    if (!a.stats.empty()) outputs.push_back({"--stats", a.stats, {}});
    if (!a.spp_map.empty()) outputs.push_back({"--spp-map", a.spp_map, {}});
    // The reference is an input like the scene's files: no output may overwrite it.
    p.inputs = scene.inputs;
    if (p.camera_path) p.inputs.insert(p.inputs.end(), p.camera_path->inputs.begin(), p.camera_path->inputs.end());
    if (!a.reference.empty()) p.inputs.push_back({a.reference, check_input_file(a.reference)});
    check_outputs(outputs, p.inputs);
    if (p.camera_path) check_frame_outputs(a.output, a.hdr, a.frames, p.inputs);
    if (!a.reference.empty())
        p.reference = read_reference_exr(a.reference, w ? w : scene.defaults.width, h ? h : scene.defaults.height);
}

// What was loaded and how it renders (info), and the settings in effect (debug).
void report_render(const PreparedRender& p, const std::string& scene_path, const BvhChoice& bvh, const Ranks& ranks) {
    const Scene& scene = p.scene;
    const RenderSettings& rs = p.rs;
    log_info("%s", p.why.c_str());

    uint64_t texels = scene.env_map.texels.size();
    for (const auto& t : scene.textures) texels += static_cast<uint64_t>(t.width) * t.height;
    // The estimate charges an environment texel at its weight (load_limits.h).
    log_info(
        "%s: %zu triangles, %llu texels (at most %s of host memory), %s BVH of %zu nodes built in %.3f s (%s triangles/s)",
        scene_path.c_str(), scene.source_triangles, static_cast<unsigned long long>(texels),
        format_bytes(render_memory_estimate(scene.tris.size(), texel_budget_used(scene),
                                            static_cast<uint64_t>(rs.width) * rs.height,
                                            scene.load_stats.decode_peak_bytes))
            .c_str(),
        bvh_layout_name(scene.bvh.layout).c_str(), scene.bvh.node_count(), scene.bvh_build_seconds,
        Progress::format_rate(scene.bvh_build_seconds > 0 ? scene.source_triangles / scene.bvh_build_seconds : 0)
            .c_str());
    if (bvh.splits > 0.0f || bvh.sbvh)
        log_info("%s: %zu references for %zu triangles, SAH cost %.2f",
                 bvh.sbvh ? "spatial splits" : "triangle splitting", scene.tris.size(), scene.source_triangles,
                 scene.bvh_sah_cost);
    if (ranks.size() > 1)
        log_info("rendering across %d MPI ranks on %d host%s, in chunks of %u spp handed out by rank 0", ranks.size(),
                 ranks.hosts(), ranks.hosts() == 1 ? "" : "s",
                 chunk_samples(static_cast<uint32_t>(rs.spp), static_cast<uint64_t>(rs.width) * rs.height, ranks.size(),
                               p.backend->paths_per_pass()));
    log_debug("settings: %dx%d, %d spp, max depth %d, seed %u, backend %s (%s)", rs.width, rs.height, rs.spp,
              rs.max_depth, rs.seed, p.backend->name().c_str(), p.backend->device().c_str());
}

PreparedRender prepare_render(const RenderArgs& a, Ranks& ranks) {
    PreparedRender p;
    // Rank 0 checks and writes the outputs and prints; the other ranks only render.
    const bool lead = ranks.lead();
    // Every flag checked before anything loads.
    const CheckedRender c = check_render_args(a, ranks);
    const bool sequence = c.sequence;
    const std::string &output = c.output, &hdr = c.hdr;
    const int w = c.width, h = c.height;
    p.aovs = c.aovs;

    SetupOptions so;
    so.scene = a.scene;
    so.limits = a.limits;
    so.bvh = resolve_bvh_flags(a.bvh);
    std::string cpu_note;
    so.backend = {.kind = a.backend,
                  .set = a.set,
                  .devices = a.devices,
                  .cpu_threads = worker_count_chosen() ? worker_count() : ranks.cpu_threads(&cpu_note),
                  .device_slot = ranks.device_slot()};
    so.mode = a.mode;
    so.env = a.env;
    so.camera = a.camera;
    if (a.aperture_set) so.aperture = a.aperture;
    if (a.focus_distance_set) so.focus_distance = a.focus_distance;
    so.width = w;
    so.height = h;
    so.resolution_flag = "--res " + a.res;
    if (a.spp_set) so.spp = a.spp;
    if (a.max_depth_set) so.max_depth = a.max_depth;
    so.seed = a.seed;
    so.exposure = a.exposure;
    so.tone_map = a.tone_map;
    so.before_build = [&](const Scene& scene) {
        // Orbits start from the scene's camera.
        if (sequence) p.camera_path = parse_camera_path(a.camera_path, scene.camera);
        if (lead) check_outputs_before_render(a, output, hdr, scene, w, h, p);
    };
    ReadyRender ready = setup_render(so);
    // (The other ranks load the same scene and print only errors: their warnings are rank 0's.)
    for (const auto& warning : ready.warnings) log_warning("%s", warning.c_str());
    p.backend = std::move(ready.backend);
    p.why = std::move(ready.why);
    p.scene = std::move(ready.scene);
    p.rs = ready.settings;
    p.look = ready.look;
    RenderSettings& rs = p.rs;
    rs.features = !p.aovs.empty();
    if (a.target_error_set) {
        rs.adaptive = a.adaptive;
        rs.spp = static_cast<int>(a.adaptive.rule().max_spp);  // the most any pixel gets
    }
    if (!a.resume.empty()) {
        p.resume = read_resume_point(a.resume, p.scene, p.rs, rs.features ? p.aovs : std::vector<Aov>{});
        log_info("resuming %s: %u of %d spp there", a.resume.c_str(), p.resume.spp, p.rs.spp);
    }
    if (a.denoise) p.denoiser = make_chosen_denoiser(*p.backend, c.denoiser);
    report_render(p, ready.scene_path, so.bvh, ranks);
    if (!cpu_note.empty() && p.backend->name() == "cpu") log_warning("%s", cpu_note.c_str());
    return p;
}

// The render's summary (info) after its outputs are written.
void report_result(const RenderArgs& a, const RenderSettings& rs, const RenderStats& st) {
    double s = st.seconds > 0 ? st.seconds : 1e-9;
    char spp[64];
    if (st.adaptive.enabled) std::snprintf(spp, sizeof spp, "%.1f spp on average", st.adaptive.mean_spp);
    else std::snprintf(spp, sizeof spp, "%d spp", st.spp);
    log_info("%dx%d, %s, max depth %d in %.3f s: %s samples/s, %s rays/s (%s extension + %s shadow rays)", rs.width,
             rs.height, spp, rs.max_depth, st.seconds, Progress::format_rate(st.samples / s).c_str(),
             Progress::format_rate(st.total_rays() / s).c_str(),
             Progress::format_rate(static_cast<double>(st.extension_rays)).c_str(),
             Progress::format_rate(static_cast<double>(st.shadow_rays)).c_str());
    if (st.adaptive.enabled) {
        const AdaptiveReport& ad = st.adaptive;
        const bool stop = ad.settings.method == AdaptiveMethod::stop;
        log_info(
            "adaptive (%s): %.1f%% of pixels %s %g %s %u spp after %zu rounds; %.1f spp a pixel on average "
            "(least %u, most %u)%s",
            adaptive_method_name(ad.settings.method), 100.0 * ad.converged,
            stop ? "at the target error" : "in tiles at their plan for an RMS error of",
            static_cast<double>(ad.settings.target_error), stop ? "or at" : "or at most", ad.settings.most_spp(),
            ad.rounds.size(), ad.mean_spp, ad.least_spp, ad.most_spp,
            ad.time_limit_hit ? "; stopped by --time-limit" : "");
    }
    if (st.time_limit_hit)
        log_info("stopped by --time-limit: every pixel got %d of the %d spp asked for", st.spp, st.spp_requested);
    if (!st.denoiser.empty())
        log_info("denoised on the %s: %.2f ms filtering, %.1f ms in all", st.denoiser.c_str(), st.denoise_ms,
                 st.denoise_wall_ms);
    if (!st.reference.empty() && st.rel_mse_noisy >= 0.0)
        log_info("relMSE against %s: %.4e denoised, %.4e before", st.reference.c_str(), st.rel_mse, st.rel_mse_noisy);
    else if (!st.reference.empty()) log_info("relMSE against %s: %.4e", st.reference.c_str(), st.rel_mse);
    for (const auto& d : st.devices)
        log_info("GPU %d (%s): %.1f%% of the paths, %llu chunks, %.1f ms of GPU time (%s)", d.index, d.device.c_str(),
                 st.paths_completed ? 100.0 * d.samples / st.paths_completed : 0.0,
                 static_cast<unsigned long long>(d.chunks), d.gpu_ms, st.work_sharing.c_str());
    if (st.frames && !st.frame_gpu_ms.empty() &&
        st.ranks.empty()) {  // across ranks the rays are all ranks', the GPU time rank 0's
        double gpu_ms = 0;
        for (double m : st.frame_gpu_ms) gpu_ms += m;
        log_info("%s mode: %llu frames, %.3f ms GPU time (%.3f ms/frame), %.1f launches/frame, %s rays/s on the GPU",
                 st.mode.c_str(), static_cast<unsigned long long>(st.frames), gpu_ms, gpu_ms / st.frames,
                 static_cast<double>(st.kernel_launches) / st.frames,
                 Progress::format_rate(gpu_ms > 0 ? st.total_rays() / (gpu_ms * 1e-3) : 0).c_str());
    }
    if (!st.ranks.empty()) {
        std::string shares;
        for (const auto& r : st.ranks)
            shares += (shares.empty() ? "" : "; ") + std::string("rank ") + std::to_string(r.rank) + " (" + r.host +
                      ", " + r.device + ") " + std::to_string(r.chunks) + (r.chunks == 1 ? " chunk, " : " chunks, ") +
                      std::to_string(r.samples) + " samples";
        log_info("%zu MPI ranks, chunks of %u spp: %s", st.ranks.size(), st.chunk_spp, shares.c_str());
    }
    if (st.nonfinite_samples)
        log_warning("%llu samples were NaN or infinite and were dropped",
                    static_cast<unsigned long long>(st.nonfinite_samples));
    log_info("wrote %s%s%s%s%s%s%s", a.output.c_str(), a.hdr.empty() ? "" : ", ", a.hdr.c_str(),
             a.stats.empty() ? "" : ", ", a.stats.c_str(), a.spp_map.empty() ? "" : ", ", a.spp_map.c_str());
}

// The image outputs (-o, --hdr) of `image`, `spp` samples a pixel, encoded (an EXR records them and the
// render's identity, for --resume, and carries the --aov layers of `features`); `noisy`: with --denoise,
// the image before denoising, which EXRs keep as a layer of its own.
void encode_images(const RenderArgs& a, const PreparedRender& p, const Image& image, const FeatureImages& features,
                   const Image* noisy, uint32_t spp, std::vector<OutputFile>& outputs) {
    const ExrAttributes attributes = render_attributes(p.scene, p.rs, spp);
    Look look = p.look;  // automatic exposure metered once, for the log line and the PNG alike
    if (look.auto_exposure && image_extension(a.output) == ".png") {
        look.exposure_stops = auto_exposure_stops(image);
        look.auto_exposure = false;
        log_info("exposure auto: %+.2f stops", look.exposure_stops);
    }
    for (auto& o : outputs) {
        if (o.flag == "-o" || o.flag == "--hdr")
            o.bytes =
                encode_output_image(o.path, image, o.flag == "-o" ? look : Look{}, attributes, features, p.aovs, noisy);
    }
}

// A non-adaptive render's time limit, and its checkpoints: the image outputs written whole, every
// --checkpoint seconds and at SIGUSR1, so that a render stopped later leaves the last of them.
PassControl long_render_control(const RenderArgs& a, const PreparedRender& p) {
    PassControl c;
    const RenderSettings& rs = p.rs;
    if (rs.adaptive) return c;  // its rounds have their own time limit
    c.first_sample = p.resume.spp;
    c.prior = p.resume.image;
    c.prior_features = p.resume.features;
    c.time_limit_s = a.adaptive.time_limit_s;
    c.checkpoint_s = a.checkpoint_s;
    install_checkpoint_signal_handler();
    c.checkpoint_now = take_checkpoint_request;
    c.checkpoint = [&a, &p, &rs](const Image& image, const FeatureImages& features, uint32_t spp) {
        std::vector<OutputFile> files;
        for (const OutputFile& o : p.outputs)
            if (o.flag == "-o" || o.flag == "--hdr") files.push_back({o.flag, o.path, {}});
        Image denoised = p.denoiser ? p.denoiser->denoise(image, features) : Image{};
        encode_images(a, p, p.denoiser ? denoised : image, features, p.denoiser ? &image : nullptr, spp, files);
        write_outputs(files, p.inputs);
        log_info("checkpoint: wrote %s%s%s at %u of %d spp", files[0].path.c_str(), files.size() > 1 ? ", " : "",
                 files.size() > 1 ? files[1].path.c_str() : "", spp, rs.spp);
    };
    return c;
}

}  // namespace

int run_render(const RenderArgs& a, Ranks& ranks) {
    PreparedRender p;
    try {
        p = prepare_render(a, ranks);
    } catch (...) {
        ranks.all_ok(1);  // so that the other ranks end too; main() reports this one's error
        throw;
    }
    if (!ranks.all_ok(0)) return 0;  // another rank failed: main()'s Ranks::finish ends this one with its status
    if (ranks.size() > 1) {
        std::string differ = render_differences(ranks, p.scene, p.rs);
        if (!differ.empty()) {
            if (ranks.lead()) throw Error(differ);
            return 0;
        }
    }
    const Scene& scene = p.scene;
    const RenderSettings& rs = p.rs;
    Backend* backend = p.backend.get();
    std::vector<OutputFile>& outputs = p.outputs;
    if (p.camera_path) {
        SequenceOutputs seq{a.output, a.hdr, a.stats, p.look, p.inputs, p.aovs, p.denoiser.get()};
        return run_sequence(*backend, scene, rs, *p.camera_path, a.frames, seq);
    }
    const uint64_t pixels = static_cast<uint64_t>(rs.width) * rs.height;
    Progress progress(rs.adaptive ? "converged" : "rendering",
                      rs.adaptive ? pixels : pixels * (static_cast<uint32_t>(rs.spp) - p.resume.spp),
                      rs.adaptive ? "pixels" : "samples", progress_stream());
    PassControl control = long_render_control(a, p);
    RenderOutput out = ranks.size() > 1 ? render_across_ranks(ranks, *backend, scene, rs, &progress)
                                        : render_image(*backend, scene, rs, &progress, &control);
    if (!ranks.lead()) return 0;

    Image noisy;
    if (p.denoiser) {
        auto t0 = std::chrono::steady_clock::now();
        noisy = std::move(out.image);
        out.image = p.denoiser->denoise(noisy, out.features);
        out.stats.denoise_ms = p.denoiser->last_device_ms();
        out.stats.denoise_wall_ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        out.stats.denoiser = p.denoiser->device();
    }
    if (!a.reference.empty()) {
        out.stats.reference = a.reference;
        out.stats.rel_mse = relative_mse(out.image, p.reference);
        if (p.denoiser) out.stats.rel_mse_noisy = relative_mse(noisy, p.reference);
    }
    // All or nothing: a failed EXR leaves no PNG either.
    encode_images(a, p, out.image, out.features, p.denoiser ? &noisy : nullptr, static_cast<uint32_t>(out.stats.spp),
                  outputs);
    for (auto& o : outputs) {
        if (o.flag == "--stats") o.bytes = stats_json_text(out.stats);
        if (o.flag == "--spp-map")
            o.bytes = spp_map_png(rs.width, rs.height, backend->sample_counts(),
                                  static_cast<int>(a.adaptive.least_spp()), static_cast<int>(a.adaptive.most_spp()));
    }
    write_outputs(outputs, p.inputs);

    report_result(a, rs, out.stats);
    return 0;
}

CLI::App* add_render_command(CLI::App& app, RenderArgs* a) {
    CLI::App* render = app.add_subcommand("render", "Render a scene (.json, .obj, .ply, .gltf or .glb) to an image");
    render->add_option("scene", a->scene, "Scene file (.json, .obj, .ply, .gltf or .glb); default: the Cornell box");
    render
        ->add_option("-o,--output", a->output,
                     "Output image by its extension: .png (tone-mapped sRGB), .exr, .pfm or .hdr (linear radiance)")
        ->capture_default_str();
    CLI::Option* spp_opt = render->add_option("--spp", a->spp, "Samples per pixel (default: the scene's)");
    render->add_option("--res", a->res, "Resolution WIDTHxHEIGHT (default: the scene's)");
    CLI::Option* depth_opt = render->add_option("--max-depth", a->max_depth, "Maximum bounces (default: the scene's)");
    render->add_option("--backend", a->backend, "auto, cpu or cuda")->capture_default_str();
    render->add_option("--mode", a->mode,
                       "GPU scheduler: persistent (the default), relaunch, graph, megakernel or resident");
    render->add_option("--devices", a->devices, "CUDA devices: all, or indices as 0,1 (one image on all of them)");
    add_bvh_options(render, &a->bvh);
    render->add_option("--set", a->set,
                       "Scheduler setting KEY=VALUE for experiments (repeatable; see pkrt help-settings)");
    render->add_option("--hdr", a->hdr, "Also write linear radiance to .exr, .pfm or .hdr");
    render->add_flag("--denoise", a->denoise,
                     "Denoise the outputs (by --denoiser, guided by the feature buffers); EXRs keep the render as "
                     "their Noisy Image layer, with the feature layers");
    render->add_option("--denoiser", a->denoiser,
                       "With --denoise: atrous (the a-trous filter, guided by albedo, normal and depth) or unet (the "
                       "learned U-Net; default where pkrt ships its weights)");
    render->add_option("--denoiser-weights", a->denoiser_weights,
                       "With --denoiser unet: a U-Net weight file (tools/denoiser/) in place of the shipped one");
    render->add_option("--aov", a->aov,
                       "Feature layers of the EXR outputs: any of albedo,normal,depth (named as Blender names them: "
                       "Denoising Albedo, Denoising Normal, Depth)");
    render->add_option("--stats", a->stats, "Write render statistics as JSON");
    add_view_options(render, &a->camera, &a->env, &a->seed);
    render->add_option("--frames", a->frames,
                       "Render an image sequence of N frames (-o out_%04d.png or .exr, with --camera-path)");
    render->add_option("--camera-path", a->camera_path,
                       "Sequence cameras: orbit[:DEGREES] about the up axis, or a keyframe .json");
    render->add_option("--exposure", a->exposure,
                       "A PNG's exposure: stops, or auto (the image's log-average luminance to mid grey); default: "
                       "the scene's, else 0. Linear outputs stay radiance");
    render->add_option("--tone-map", a->tone_map,
                       "A PNG's tone curve: clamp (values above 1 clip), aces or agx (filmic); default: the scene's, "
                       "else clamp");
    CLI::Option* aperture_opt = render->add_option(
        "--aperture", a->aperture, "Thin-lens radius in scene units, 0 = pinhole (default: the scene's)");
    CLI::Option* focus_opt =
        render->add_option("--focus-distance", a->focus_distance,
                           "Distance of the plane in focus along the view (default: the scene's, else eye to look_at)");
    CLI::Option* target_error_opt = render->add_option(
        "--target-error", a->adaptive.target_error,
        "Adaptive sampling: sample each pixel until its relative error estimate is at most E (0.01 = 1%)");
    // A string checked against the names (app/limit_options.h says why not CheckedTransformer).
    CLI::Option* rule_opt =
        render
            ->add_option_function<std::string>(
                "--adaptive-rule",
                [a](const std::string& v) {
                    a->adaptive.method = v == "proportional" ? AdaptiveMethod::proportional : AdaptiveMethod::stop;
                },
                "Adaptive: stop (sample a tile while a pixel near it is above E) or proportional (after --min-spp, "
                "samples in proportion to each tile's error for an image RMS error of E, unbiased; CPU backend "
                "only for now)")
            ->check(CLI::IsMember({"stop", "proportional"}))
            ->default_str("stop");
    CLI::Option* min_spp_opt =
        render->add_option("--min-spp", a->adaptive.min_spp,
                           "Adaptive: samples every pixel gets first (default: 16; with --adaptive-rule "
                           "proportional, its pilot, 64)");
    CLI::Option* max_spp_opt =
        render->add_option("--max-spp", a->adaptive.max_spp, "Adaptive: samples no pixel goes beyond")
            ->capture_default_str();
    render->add_option("--resume", a->resume,
                       "Continue the render of this EXR (an -o or --hdr .exr of the same scene and settings, fewer "
                       "spp): take the samples after its own");
    render
        ->add_option("--checkpoint", a->checkpoint_s,
                     "Write the outputs every this many seconds while rendering (also at SIGUSR1; 0: never)")
        ->capture_default_str();
    CLI::Option* time_limit_opt =
        render
            ->add_option("--time-limit", a->adaptive.time_limit_s,
                         "Stop after the pass (adaptive: round) that passes this many seconds and write what was "
                         "accumulated (0: none)")
            ->capture_default_str();
    render->add_option("--reference", a->reference,
                       "Measure the image's relMSE against this linear EXR of the same size (printed, and in --stats)");
    render->add_option("--spp-map", a->spp_map,
                       "Adaptive: also write samples per pixel as a false-colour PNG with a legend");
    add_run_options(render, &a->run);
    add_limit_options(render, &a->limits);

    render->parse_complete_callback([=] {
        a->spp_set = spp_opt->count() > 0;
        a->max_depth_set = depth_opt->count() > 0;
        a->aperture_set = aperture_opt->count() > 0;
        a->focus_distance_set = focus_opt->count() > 0;
        a->target_error_set = target_error_opt->count() > 0;
        a->min_spp_set = min_spp_opt->count() > 0;
        a->adaptive_rule_set = rule_opt->count() > 0;
        // Proportional rounds plan from the pilot: at 16 spp it misses the rare bright paths it should plan
        // for (BENCHMARKS.md, session 31), so their --min-spp is 64 unless given (and never above --max-spp).
        if (a->adaptive.method == AdaptiveMethod::proportional && !a->min_spp_set && a->adaptive.max_spp >= 2)
            a->adaptive.min_spp = std::min(64, a->adaptive.max_spp);
        a->max_spp_set = max_spp_opt->count() > 0;
        a->time_limit_set = time_limit_opt->count() > 0;
    });
    return render;
}

}  // namespace pkrt
