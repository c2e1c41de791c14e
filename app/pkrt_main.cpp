// pkrt: the command-line renderer. `pkrt render` renders a scene to PNG (and optionally linear HDR
// and JSON statistics); `pkrt info` lists devices and the build configuration.
#include <cstdio>
#include <optional>
#include <iostream>
#include <algorithm>
#include <cmath>
#include <string>
#include <thread>
#include <utility>

#include <CLI/CLI.hpp>

#include "app/bench.h"
#include "app/info.h"
#include "app/sequence_cli.h"
#include "render/sequence.h"
#include "app/bvh_options.h"
#include "app/limit_options.h"
#include "render/backend.h"
#include "render/devices.h"
#include "render/distributed/distributed.h"
#include "render/error.h"
#include "render/image/image.h"
#include "render/scene/input_file.h"
#include "render/scene/loaders.h"
#include "render/image/output_files.h"
#include "render/progress.h"
#include "render/distributed/sample_chunks.h"
#include "render/scene/render_limits.h"
#include "render/scene/scene.h"
#include "render/setup.h"
#include "render/stats.h"

#ifndef PKRT_VERSION
#define PKRT_VERSION "0.1.0"
#endif

namespace {

struct RenderArgs {
    std::string scene;
    std::string output = "pkrt.png";
    std::string hdr;
    std::string stats;
    std::string env;  // --env: an environment map in place of the scene's environment
    int frames = 0;   // > 0: an image sequence (app/sequence_cli.h)
    std::string camera_path;
    std::string camera;  // a camera of the file (glTF), by index or name
    std::string res;
    std::string backend = "auto";
    std::string mode;
    pkrt::BvhFlags bvh;
    std::vector<std::string> set;
    std::string devices;  // --devices
    int spp = 0;          // meaningful only when spp_set
    int max_depth = 0;    // meaningful only when max_depth_set
    bool spp_set = false, max_depth_set = false;
    uint32_t seed = 0;
    float exposure = 0.0f;
    float aperture = 0.0f, focus_distance = 0.0f;  // meaningful only when *_set
    bool aperture_set = false, focus_distance_set = false;
    bool quiet = false;
    pkrt::AdaptiveSettings adaptive;  // meaningful only when target_error_set
    bool target_error_set = false, min_spp_set = false, max_spp_set = false, time_limit_set = false;
    std::string spp_map;
    std::string reference;  // --reference: a linear EXR to measure the image's relMSE against
    pkrt::LoadLimits limits;
};

// A render checked and loaded: what every rank of an MPI job does on its own before they render together.
struct PreparedRender {
    std::unique_ptr<pkrt::Backend> backend;
    std::string why;  // which backend and why
    pkrt::Scene scene;
    pkrt::RenderSettings rs;
    std::optional<pkrt::CameraPath> camera_path;  // a sequence's cameras
    std::vector<pkrt::OutputFile> outputs;        // rank 0's alone: the others write nothing
    std::vector<pkrt::SceneInput> inputs;
    pkrt::Image reference;
};

// Before the render, so that an output naming an input (or another output) fails in a second: rank 0's
// outputs against the scene's inputs and the reference, which is read here so a wrong one fails at once.
void check_outputs_before_render(const RenderArgs& a, const std::string& output, const std::string& hdr,
                                 const pkrt::Scene& scene, int w, int h, PreparedRender& p) {
    std::vector<pkrt::OutputFile>& outputs = p.outputs;
    outputs = {{"-o", output, {}}};
    if (!hdr.empty()) outputs.push_back({"--hdr", hdr, {}});
    if (!a.stats.empty()) outputs.push_back({"--stats", a.stats, {}});
    if (!a.spp_map.empty()) outputs.push_back({"--spp-map", a.spp_map, {}});
    // The reference is an input like the scene's files: no output may overwrite it.
    p.inputs = scene.inputs;
    if (p.camera_path) p.inputs.insert(p.inputs.end(), p.camera_path->inputs.begin(), p.camera_path->inputs.end());
    if (!a.reference.empty()) p.inputs.push_back({a.reference, pkrt::check_input_file(a.reference)});
    pkrt::check_outputs(outputs, p.inputs);
    if (p.camera_path) pkrt::check_frame_outputs(a.output, a.hdr, a.frames, p.inputs);
    if (!a.reference.empty())
        p.reference =
            pkrt::read_reference_exr(a.reference, w ? w : scene.defaults.width, h ? h : scene.defaults.height);
}

PreparedRender prepare_render(const RenderArgs& a, pkrt::Ranks& ranks) {
    PreparedRender p;
    // Rank 0 checks and writes the outputs and prints; the other ranks only render.
    const bool lead = ranks.lead();
    const bool sequence = a.frames > 0 || !a.camera_path.empty();
    if (ranks.size() > 1) {
        const char* alone = a.target_error_set ? "--target-error"
                            : a.frames > 0     ? "--frames"
                            : sequence         ? "--camera-path"
                                               : nullptr;
        if (alone)
            throw pkrt::Error(std::string(alone) + ": not supported across MPI ranks (" + std::to_string(ranks.size()) +
                              " ranks)");
    }
    // Validate everything cheap before loading anything.
    if (sequence) pkrt::check_sequence_flags(a.frames, a.camera_path, a.output, a.hdr);
    // A sequence's outputs are checked as its first frame's names.
    std::string output = sequence ? pkrt::frame_path(a.output, 0) : a.output;
    std::string hdr = sequence && !a.hdr.empty() ? pkrt::frame_path(a.hdr, 0) : a.hdr;
    if (lead) {
        pkrt::check_output_path(output, {".png"}, "-o");
        if (!hdr.empty()) pkrt::check_output_path(hdr, {".exr", ".pfm"}, "--hdr");
        if (!a.stats.empty()) pkrt::check_output_path(a.stats, {".json"}, "--stats");
    }
    if (!std::isfinite(a.exposure) || std::fabs(a.exposure) > 64.0f)
        throw pkrt::Error("--exposure: must be between -64 and 64 stops");
    if (a.target_error_set) {
        if (a.spp_set)
            throw pkrt::Error("--spp: not with --target-error (adaptive sampling takes --min-spp and --max-spp)");
        if (sequence) throw pkrt::Error("--target-error: not with --frames (sequences sample every pixel alike)");
        pkrt::check_adaptive_settings(a.adaptive, pkrt::limits::kMaxSpp);
        if (!a.spp_map.empty()) pkrt::check_output_path(a.spp_map, {".png"}, "--spp-map");
    } else {
        const char* flag = a.min_spp_set        ? "--min-spp"
                           : a.max_spp_set      ? "--max-spp"
                           : a.time_limit_set   ? "--time-limit"
                           : !a.spp_map.empty() ? "--spp-map"
                                                : nullptr;
        if (flag) throw pkrt::Error(std::string(flag) + ": only with --target-error (adaptive sampling)");
    }
    if (!a.reference.empty() && sequence) throw pkrt::Error("--reference: not with --frames (it measures one image)");
    if (!a.reference.empty() && lead) pkrt::check_reference_path(a.reference);
    int w = 0, h = 0;
    if (!a.res.empty()) pkrt::parse_resolution(a.res, &w, &h);

    pkrt::SetupOptions so;
    so.scene = a.scene;
    so.limits = a.limits;
    so.bvh = pkrt::resolve_bvh_flags(a.bvh);
    std::string cpu_note;
    so.backend = {.kind = a.backend,
                  .set = a.set,
                  .devices = a.devices,
                  .cpu_threads = ranks.cpu_threads(&cpu_note),
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
    so.before_build = [&](const pkrt::Scene& scene) {
        // Orbits start from the scene's camera.
        if (sequence) p.camera_path = pkrt::parse_camera_path(a.camera_path, scene.camera);
        if (lead) check_outputs_before_render(a, output, hdr, scene, w, h, p);
    };
    pkrt::ReadyRender ready = pkrt::setup_render(so);
    if (lead)  // the other ranks load the same scene: their warnings are rank 0's
        for (const auto& warning : ready.warnings) std::fprintf(stderr, "pkrt: warning: %s\n", warning.c_str());
    p.backend = std::move(ready.backend);
    p.why = std::move(ready.why);
    p.scene = std::move(ready.scene);
    p.rs = ready.settings;
    const std::string& scene_path = ready.scene_path;
    const pkrt::Scene& scene = p.scene;
    const pkrt::BvhChoice& bvh = so.bvh;
    pkrt::RenderSettings& rs = p.rs;
    if (a.target_error_set) {
        rs.adaptive = a.adaptive;
        rs.spp = static_cast<int>(a.adaptive.rule().max_spp);  // the most any pixel gets
    }
    if (!a.quiet && lead) {
        std::fprintf(stderr, "pkrt: %s\n", p.why.c_str());
        uint64_t texels = scene.env_map.texels.size();
        for (const auto& t : scene.textures) texels += static_cast<uint64_t>(t.width) * t.height;
        // The estimate charges an environment texel at its weight (load_limits.h).
        std::fprintf(
            stderr,
            "pkrt: %s: %zu triangles, %llu texels (at most %s of host memory), %s BVH of %zu nodes built in %.3f s (%s triangles/s)\n",
            scene_path.c_str(), scene.source_triangles, static_cast<unsigned long long>(texels),
            pkrt::format_bytes(pkrt::render_memory_estimate(scene.tris.size(), pkrt::texel_budget_used(scene),
                                                            static_cast<uint64_t>(rs.width) * rs.height))
                .c_str(),
            pkrt::bvh_layout_name(scene.bvh.layout).c_str(), scene.bvh.node_count(), scene.bvh_build_seconds,
            pkrt::Progress::format_rate(scene.bvh_build_seconds > 0 ? scene.source_triangles / scene.bvh_build_seconds
                                                                    : 0)
                .c_str());
        if (bvh.splits > 0.0f || bvh.sbvh)
            std::fprintf(stderr, "pkrt: %s: %zu references for %zu triangles, SAH cost %.2f\n",
                         bvh.sbvh ? "spatial splits" : "triangle splitting", scene.tris.size(), scene.source_triangles,
                         scene.bvh_sah_cost);
        if (ranks.size() > 1)
            std::fprintf(stderr,
                         "pkrt: rendering across %d MPI ranks on %d host%s, in chunks of %u spp handed out by rank 0\n",
                         ranks.size(), ranks.hosts(), ranks.hosts() == 1 ? "" : "s",
                         pkrt::chunk_samples(static_cast<uint32_t>(rs.spp), static_cast<uint64_t>(rs.width) * rs.height,
                                             ranks.size(), p.backend->paths_per_pass()));
        if (!cpu_note.empty() && p.backend->name() == "cpu")
            std::fprintf(stderr, "pkrt: warning: %s\n", cpu_note.c_str());
    }
    return p;
}

int run_render(const RenderArgs& a, pkrt::Ranks& ranks) {
    PreparedRender p;
    try {
        p = prepare_render(a, ranks);
    } catch (...) {
        ranks.all_ok(1);  // so that the other ranks end too; main() reports this one's error
        throw;
    }
    if (!ranks.all_ok(0)) return 0;  // another rank failed: main()'s Ranks::finish ends this one with its status
    if (ranks.size() > 1) {
        std::string differ = pkrt::render_differences(ranks, p.scene, p.rs);
        if (!differ.empty()) {
            if (ranks.lead()) throw pkrt::Error(differ);
            return 0;
        }
    }
    const pkrt::Scene& scene = p.scene;
    const pkrt::RenderSettings& rs = p.rs;
    pkrt::Backend* backend = p.backend.get();
    std::vector<pkrt::OutputFile>& outputs = p.outputs;
    if (p.camera_path) {
        pkrt::SequenceOutputs seq{a.output, a.hdr, a.stats, a.exposure, p.inputs};
        return pkrt::run_sequence(*backend, scene, rs, *p.camera_path, a.frames, seq, a.quiet);
    }
    const uint64_t pixels = static_cast<uint64_t>(rs.width) * rs.height;
    pkrt::Progress progress(rs.adaptive ? "converged" : "rendering", rs.adaptive ? pixels : pixels * rs.spp,
                            rs.adaptive ? "pixels" : "samples", a.quiet || !ranks.lead() ? nullptr : stderr);
    pkrt::RenderOutput out = ranks.size() > 1 ? pkrt::render_across_ranks(ranks, *backend, scene, rs, &progress)
                                              : pkrt::render_image(*backend, scene, rs, &progress);
    if (!ranks.lead()) return 0;

    if (!a.reference.empty()) {
        out.stats.reference = a.reference;
        out.stats.rel_mse = pkrt::relative_mse(out.image, p.reference);
    }
    // All or nothing: a failed EXR leaves no PNG either.
    outputs[0].bytes = pkrt::encode_png(out.image, a.exposure);
    for (auto& o : outputs) {
        if (o.flag == "--hdr") o.bytes = pkrt::encode_image(o.path, out.image);
        if (o.flag == "--stats") o.bytes = pkrt::stats_json_text(out.stats);
        if (o.flag == "--spp-map")
            o.bytes = pkrt::spp_map_png(rs.width, rs.height, backend->sample_counts(),
                                        static_cast<int>(a.adaptive.rule().min_spp),
                                        static_cast<int>(a.adaptive.rule().max_spp));
    }
    pkrt::write_outputs(outputs, p.inputs);

    const pkrt::RenderStats& st = out.stats;
    if (!a.quiet) {
        double s = st.seconds > 0 ? st.seconds : 1e-9;
        char spp[64];
        if (st.adaptive.enabled) std::snprintf(spp, sizeof spp, "%.1f spp on average", st.adaptive.mean_spp);
        else std::snprintf(spp, sizeof spp, "%d spp", rs.spp);
        std::fprintf(
            stderr,
            "pkrt: %dx%d, %s, max depth %d in %.3f s: %s samples/s, %s rays/s (%s extension + %s shadow rays)\n",
            rs.width, rs.height, spp, rs.max_depth, st.seconds, pkrt::Progress::format_rate(st.samples / s).c_str(),
            pkrt::Progress::format_rate(st.total_rays() / s).c_str(),
            pkrt::Progress::format_rate(static_cast<double>(st.extension_rays)).c_str(),
            pkrt::Progress::format_rate(static_cast<double>(st.shadow_rays)).c_str());
        if (st.adaptive.enabled) {
            const pkrt::AdaptiveReport& ad = st.adaptive;
            std::fprintf(
                stderr,
                "pkrt: adaptive: %.1f%% of pixels at the target error %g or at %u spp after %zu rounds; %.1f spp a pixel on "
                "average (least %u, most %u)%s\n",
                100.0 * ad.converged, static_cast<double>(ad.settings.target_error), ad.settings.rule().max_spp,
                ad.rounds.size(), ad.mean_spp, ad.least_spp, ad.most_spp,
                ad.time_limit_hit ? "; stopped by --time-limit" : "");
        }
        if (!st.reference.empty())
            std::fprintf(stderr, "pkrt: relMSE against %s: %.4e\n", st.reference.c_str(), st.rel_mse);
        for (const auto& d : st.devices)
            std::fprintf(stderr, "pkrt: GPU %d (%s): %.1f%% of the paths, %llu chunks, %.1f ms of GPU time (%s)\n",
                         d.index, d.device.c_str(), st.paths_completed ? 100.0 * d.samples / st.paths_completed : 0.0,
                         static_cast<unsigned long long>(d.chunks), d.gpu_ms, st.work_sharing.c_str());
        if (st.frames && !st.frame_gpu_ms.empty() &&
            st.ranks.empty()) {  // across ranks the rays are all ranks', the GPU time rank 0's
            double gpu_ms = 0;
            for (double m : st.frame_gpu_ms) gpu_ms += m;
            std::fprintf(
                stderr,
                "pkrt: %s mode: %llu frames, %.3f ms GPU time (%.3f ms/frame), %.1f launches/frame, %s rays/s on the GPU\n",
                st.mode.c_str(), static_cast<unsigned long long>(st.frames), gpu_ms, gpu_ms / st.frames,
                static_cast<double>(st.kernel_launches) / st.frames,
                pkrt::Progress::format_rate(gpu_ms > 0 ? st.total_rays() / (gpu_ms * 1e-3) : 0).c_str());
        }
        if (!st.ranks.empty()) {
            std::string shares;
            for (const auto& r : st.ranks)
                shares += (shares.empty() ? "" : "; ") + std::string("rank ") + std::to_string(r.rank) + " (" + r.host +
                          ", " + r.device + ") " + std::to_string(r.chunks) +
                          (r.chunks == 1 ? " chunk, " : " chunks, ") + std::to_string(r.samples) + " samples";
            std::fprintf(stderr, "pkrt: %zu MPI ranks, chunks of %u spp: %s\n", st.ranks.size(), st.chunk_spp,
                         shares.c_str());
        }
        if (st.nonfinite_samples)
            std::fprintf(stderr, "pkrt: warning: %llu samples were NaN or infinite and were dropped\n",
                         static_cast<unsigned long long>(st.nonfinite_samples));
        std::fprintf(stderr, "pkrt: wrote %s%s%s%s%s%s%s\n", a.output.c_str(), a.hdr.empty() ? "" : ", ", a.hdr.c_str(),
                     a.stats.empty() ? "" : ", ", a.stats.c_str(), a.spp_map.empty() ? "" : ", ", a.spp_map.c_str());
    }
    return 0;
}

// The command line, run; a failure's message goes to `error` (main() prints it, once for the whole
// job under mpirun) and its exit status is returned.
int run_command(int argc, char** argv, pkrt::Ranks& ranks, std::string& error) {
    if (!ranks.error().empty()) {
        error = ranks.error();
        return 1;
    }
    CLI::App app{"pkrt: a path tracer with a persistent-kernel GPU scheduler"};
    app.require_subcommand(1);
    app.set_version_flag("--version", PKRT_VERSION);

    RenderArgs ra;
    CLI::App* render = app.add_subcommand("render", "Render a scene (.json, .obj, .ply, .gltf or .glb) to an image");
    render->add_option("scene", ra.scene, "Scene file (.json, .obj, .ply, .gltf or .glb); default: the Cornell box");
    render->add_option("-o,--output", ra.output, "Output PNG (tone-mapped sRGB)")->capture_default_str();
    CLI::Option* spp_opt = render->add_option("--spp", ra.spp, "Samples per pixel (default: the scene's)");
    render->add_option("--res", ra.res, "Resolution WIDTHxHEIGHT (default: the scene's)");
    CLI::Option* depth_opt = render->add_option("--max-depth", ra.max_depth, "Maximum bounces (default: the scene's)");
    render->add_option("--backend", ra.backend, "auto, cpu or cuda")->capture_default_str();
    render->add_option("--mode", ra.mode, "GPU scheduler: persistent, relaunch, graph, megakernel, resident");
    render->add_option("--devices", ra.devices, "CUDA devices: all, or indices as 0,1 (one image on all of them)");
    pkrt::add_bvh_options(render, &ra.bvh);
    render->add_option("--set", ra.set,
                       "Scheduler setting KEY=VALUE for experiments (repeatable; see pkrt help-settings)");
    render->add_option("--seed", ra.seed, "Random seed")->capture_default_str();
    render->add_option("--hdr", ra.hdr, "Also write linear radiance to .exr or .pfm");
    render->add_option("--stats", ra.stats, "Write render statistics as JSON");
    render->add_option("--env", ra.env,
                       "Light the scene with this environment map (.hdr or .exr) instead of its own environment");
    render->add_option("--frames", ra.frames,
                       "Render an image sequence of N frames (-o out_%04d.png, with --camera-path)");
    render->add_option("--camera-path", ra.camera_path,
                       "Sequence cameras: orbit[:DEGREES] about the up axis, or a keyframe .json");
    render->add_option("--camera", ra.camera, "A camera of the scene file (glTF) by index or name; default: its first");
    render->add_option("--exposure", ra.exposure, "Exposure in stops for the PNG")->capture_default_str();
    CLI::Option* aperture_opt = render->add_option(
        "--aperture", ra.aperture, "Thin-lens radius in scene units, 0 = pinhole (default: the scene's)");
    CLI::Option* focus_opt =
        render->add_option("--focus-distance", ra.focus_distance,
                           "Distance of the plane in focus along the view (default: the scene's, else eye to look_at)");
    CLI::Option* target_error_opt = render->add_option(
        "--target-error", ra.adaptive.target_error,
        "Adaptive sampling: sample each pixel until its relative error estimate is at most E (0.01 = 1%)");
    CLI::Option* min_spp_opt =
        render->add_option("--min-spp", ra.adaptive.min_spp, "Adaptive: samples every pixel gets first")
            ->capture_default_str();
    CLI::Option* max_spp_opt =
        render->add_option("--max-spp", ra.adaptive.max_spp, "Adaptive: samples no pixel goes beyond")
            ->capture_default_str();
    CLI::Option* time_limit_opt =
        render
            ->add_option("--time-limit", ra.adaptive.time_limit_s,
                         "Adaptive: stop after the round that passes this many seconds (0: none)")
            ->capture_default_str();
    render->add_option("--reference", ra.reference,
                       "Measure the image's relMSE against this linear EXR of the same size (printed, and in --stats)");
    render->add_option("--spp-map", ra.spp_map,
                       "Adaptive: also write samples per pixel as a false-colour PNG with a legend");
    render->add_flag("-q,--quiet", ra.quiet, "No progress or summary");
    pkrt::add_limit_options(render, &ra.limits);

    CLI::App* info = app.add_subcommand("info", "List CUDA devices and the build configuration");
    CLI::App* help_settings = app.add_subcommand("help-settings", "List the scheduler settings that --set takes");

    pkrt::BenchArgs ba;
    CLI::App* bench = app.add_subcommand("bench", "Compare scheduler modes on the same frames (interleaved)");
    bench->add_option("scenes", ba.scenes, "Scenes (.json, .obj, .ply, .gltf or .glb)")->required();
    bench->add_option("--modes", ba.modes, "Modes, comma separated (default: all of the backend's)")->delimiter(',');
    bench->add_option("--res", ba.resolutions, "Resolutions WxH, comma separated (default: the scene's)")
        ->delimiter(',');
    bench->add_option("--max-depth", ba.depths, "Maximum depths, comma separated (default: the scene's)")
        ->delimiter(',');
    bench->add_option("--spp", ba.spp, "Samples per pixel per frame")->capture_default_str();
    bench->add_option("--repeat", ba.repeat, "Measured frames per mode")->capture_default_str();
    bench->add_option("--warmup", ba.warmup, "Unmeasured frames per mode first")->capture_default_str();
    bench->add_option("--backend", ba.backend, "auto, cpu or cuda")->capture_default_str();
    bench->add_option("--devices", ba.devices, "CUDA devices: all, or indices as 0,1 (one image on all of them)");
    pkrt::add_bvh_options(bench, &ba.bvh);
    bench->add_option("--set", ba.set,
                      "Scheduler setting KEY=VALUE for experiments (repeatable; see pkrt help-settings)");
    bench->add_option("--json", ba.json, "Write every measurement as JSON");
    bench->add_option("--csv", ba.csv, "Write one row per scene, resolution, depth and mode as CSV");
    bench->add_option("--plot", ba.plot, "Write a PNG chart of ms/frame against resolution, one line per mode");
    bench->add_flag("--micro", ba.micro, "Also run launch, graph, barrier, atomic and queue microbenchmarks");
    bench->add_flag("-q,--quiet", ba.quiet, "No progress");
    pkrt::add_limit_options(bench, &ba.limits);

    auto is_command = [&](const std::string& c) {
        for (const CLI::App* sub : std::as_const(app).get_subcommands([](const CLI::App*) { return true; }))
            if (sub->get_name() == c) return true;
        return false;
    };
    if (argc > 1 && argv[1][0] != '-' && !is_command(argv[1])) {
        error = std::string("unknown command '") + argv[1] +
                "' (expected render, info, bench or help-settings; see pkrt --help)";
        return 2;
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return ranks.lead() ? app.exit(e) : 0;
    } catch (const CLI::CallForAllHelp& e) {
        return ranks.lead() ? app.exit(e) : 0;
    } catch (const CLI::CallForVersion& e) {
        return ranks.lead() ? app.exit(e) : 0;
    } catch (const CLI::ParseError& e) {
        error = std::string(e.what()) + " (see pkrt --help)";
        return 2;
    }
    try {
        if (render->parsed()) {
            ra.spp_set = spp_opt->count() > 0;
            ra.max_depth_set = depth_opt->count() > 0;
            ra.aperture_set = aperture_opt->count() > 0;
            ra.focus_distance_set = focus_opt->count() > 0;
            ra.target_error_set = target_error_opt->count() > 0;
            ra.min_spp_set = min_spp_opt->count() > 0;
            ra.max_spp_set = max_spp_opt->count() > 0;
            ra.time_limit_set = time_limit_opt->count() > 0;
            return run_render(ra, ranks);
        }
        if (!ranks.lead()) {
            // Only `render` is split across ranks; rank 0 runs the others alone.
        } else if (info->parsed()) {
            return pkrt::run_info();
        } else if (help_settings->parsed()) {
            std::printf("pkrt render|bench --set KEY=VALUE (CUDA backend; repeatable):\n%s",
                        pkrt::settings_help().c_str());
            return 0;
        }
        if (bench->parsed()) {
            if (ranks.size() > 1)
                throw pkrt::Error("bench: not supported across MPI ranks (" + std::to_string(ranks.size()) + " ranks)");
            return pkrt::run_bench(ba);
        }
    } catch (const pkrt::Error& e) {
        error = e.what();
        return 1;
    } catch (const std::bad_alloc&) {
        error = "out of memory";
        return 1;
    } catch (const std::exception& e) {
        error = e.what();
        return 1;
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    // First, so that MPI (started only under an MPI launcher) takes its own arguments out of argv.
    pkrt::Ranks ranks(&argc, &argv);
    pkrt::install_output_signal_handlers();
    std::string error;
    int code = run_command(argc, argv, ranks, error);
    return ranks.finish(code, error);
}
