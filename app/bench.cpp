#include "app/bench.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <set>
#include <map>
#include <memory>
#include <optional>
#include <tuple>

#include <nlohmann/json.hpp>

#include "app/limit_options.h"
#include "render/backend.h"
#include "render/devices.h"
#include "render/error.h"
#include "render/image/image.h"
#include "render/image/output_files.h"
#include "render/image/plot.h"
#include "render/log.h"
#include "render/progress.h"
#include "render/scene/scene.h"
#include "render/setup.h"
#include "render/stats.h"
#include "render/scene/render_limits.h"

namespace pkrt {

namespace {

struct ModeRun {
    std::optional<SchedulerMode> mode;  // none: the CPU backend's single way
    std::string name;
    std::unique_ptr<Backend> backend;
    std::vector<double> ms;        // per frame: GPU time (CUDA events) or wall time on the CPU
    std::vector<double> rays;      // per frame
    std::vector<double> launches;  // per frame
    RenderStats last;
};

double median(std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// ms/frame against pixels per frame (log-log), one line per mode (and per scene and depth when several).
std::string plot_png(const nlohmann::json& out) {
    PlotSpec spec;
    spec.title = "pkrt bench: time per frame, " + out["device"].get<std::string>();
    spec.x_label = "resolution (pixels per frame)";
    spec.y_label = "ms per frame (median)";
    std::map<std::string, PlotSeries> series;
    std::set<std::string> combos;
    for (const auto& r : out["results"])
        combos.insert(r["scene"].get<std::string>() + " d" + std::to_string(r["max_depth"].get<int>()));
    if (combos.size() == 1 && !out["results"].empty()) {  // one scene and depth: say which in the title
        const auto& r0 = out["results"][0];
        spec.title = "pkrt bench: " + std::filesystem::path(r0["scene"].get<std::string>()).stem().string() +
                     ", depth " + std::to_string(r0["max_depth"].get<int>()) + ", " +
                     std::to_string(out["spp"].get<int>()) + " spp, " + out["device"].get<std::string>();
    }
    std::map<double, std::string> ticks;
    for (const auto& r : out["results"]) {
        int w = r["resolution"][0], h = r["resolution"][1];
        double px = static_cast<double>(w) * h;
        ticks[px] = std::to_string(w) + "x" + std::to_string(h);
        std::string combo = std::filesystem::path(r["scene"].get<std::string>()).stem().string() + " d" +
                            std::to_string(r["max_depth"].get<int>());
        for (auto it = r["modes"].begin(); it != r["modes"].end(); ++it) {
            std::string name = combos.size() > 1 ? it.key() + " (" + combo + ")" : it.key();
            PlotSeries& s = series[name];
            s.name = name;
            s.x.push_back(px);
            s.y.push_back(it.value()["median_ms"].get<double>());
        }
    }
    for (auto& entry : series) {  // not a structured binding: clang 14 cannot capture one in a lambda
        PlotSeries& s = entry.second;
        // Points in resolution order, so lines connect neighbours.
        std::vector<size_t> idx(s.x.size());
        for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
        std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return s.x[a] < s.x[b]; });
        PlotSeries sorted{s.name, {}, {}};
        for (size_t i : idx) {
            sorted.x.push_back(s.x[i]);
            sorted.y.push_back(s.y[i]);
        }
        spec.series.push_back(sorted);
    }
    for (const auto& [px, label] : ticks) spec.x_ticks.push_back({px, label});
    return line_plot_png(spec);
}

// The bench's set-up: its flags checked, the one set-up's options (render/setup.h) of every scene, the
// modes to compare (asked for, or all of the backend's) and the sizes of the matrix.
struct BenchSetup {
    SetupOptions so;
    std::vector<std::optional<SchedulerMode>> modes;  // none: the CPU backend's single way
    std::vector<std::pair<int, int>> sizes;           // empty: each scene's own resolution
    std::string backend, device, why;
};

BenchSetup prepare_bench(const BenchArgs& a) {
    if (a.repeat < 1 || a.repeat > 100000) throw Error("--repeat must be between 1 and 100000");
    limits::check_range("--spp", a.spp, 1, limits::kMaxFrameSpp);
    // A warm-up that is negative, or that overflows warmup + repeat, would leave no measured frame.
    if (a.warmup < 0 || a.warmup > 100000)
        throw Error("--warmup " + std::to_string(a.warmup) + ": must be between 0 and 100000");
    for (int d : a.depths) limits::check_range("--max-depth", d, 0, limits::kMaxDepth);
    if (!a.json.empty()) check_output_path(a.json, {".json"}, "--json");
    if (!a.csv.empty()) check_output_path(a.csv, {".csv"}, "--csv");
    if (!a.plot.empty()) check_output_path(a.plot, {".png"}, "--plot");
    // The one set-up (render/setup.h) for every scene: each is loaded and built as `pkrt render` would.
    BenchSetup r;
    SetupOptions& so = r.so;
    so.limits = a.limits;
    so.bvh = resolve_bvh_flags(a.bvh);
    so.backend = {a.backend, a.set, a.devices};
    std::vector<SchedulerMode> asked;
    for (const auto& m : a.modes) asked.push_back(parse_mode(m, "--modes"));
    auto probe = setup_backend(so, nullptr, &r.why);
    for (SchedulerMode m : asked) check_mode(*probe, m, "--modes");
    std::vector<std::optional<SchedulerMode>>& modes = r.modes;
    for (SchedulerMode m : asked.empty() ? probe->modes() : asked) modes.push_back(m);
    if (modes.empty()) modes.push_back(std::nullopt);
    std::vector<std::pair<int, int>>& sizes = r.sizes;
    for (const auto& r : a.resolutions) {
        int w, h;
        parse_resolution(r, &w, &h);
        check_pixel_budget(a.limits, "--res " + r, w, h);
        sizes.push_back({w, h});
    }
    // With --res, the sizes are checked above and a scene's own resolution is not used (setup_scene skips it).
    if (!sizes.empty()) std::tie(so.width, so.height) = sizes[0];
    r.backend = probe->name();
    r.device = probe->device();
    return r;
}

// The report's head: what was measured, and how.
nlohmann::json bench_header(const BenchArgs& a, const BenchSetup& setup) {
    nlohmann::json out;
    out["backend"] = setup.backend;
    out["device"] = setup.device;
    out["spp"] = a.spp;
    out["repeat"] = a.repeat;
    out["bvh"] = bvh_layout_name(setup.so.bvh.layout);
    out["bvh_splits"] = setup.so.bvh.splits;
    out["sbvh"] = setup.so.bvh.sbvh;
    out["results"] = nlohmann::json::array();
    return out;
}

// The machine's limits (CUDA only), printed and returned for the JSON report.
nlohmann::json run_microbenchmarks() {
    std::string no_gpu;
    auto micro = gpu_microbenchmarks(&no_gpu);
    nlohmann::json jm = nlohmann::json::array();
    if (micro.empty()) {
        std::printf("microbenchmarks skipped: %s\n", no_gpu.c_str());
        return jm;
    }
    std::printf("\nmicrobenchmarks (the machine's limits)\n");
    for (const auto& m : micro) {
        std::printf("  %-38s %10.3f %-12s %s\n", m.name.c_str(), m.value, m.unit.c_str(), m.how.c_str());
        jm.push_back({{"name", m.name}, {"value", m.value}, {"unit", m.unit}, {"how", m.how}});
    }
    return jm;
}

// The files asked for, and every scene input read so far: none may be overwritten by an output.
struct BenchFiles {
    std::vector<OutputFile> outputs;
    std::vector<SceneInput> inputs;
    std::vector<std::string> csv_rows;
};

BenchFiles bench_files(const BenchArgs& a) {
    BenchFiles f;
    if (!a.json.empty()) f.outputs.push_back({"--json", a.json, {}});
    if (!a.csv.empty()) f.outputs.push_back({"--csv", a.csv, {}});
    if (!a.plot.empty()) f.outputs.push_back({"--plot", a.plot, {}});
    return f;
}

// Loads a scene as `pkrt render` would, checking the outputs against its inputs before the BVH is built.
Scene load_bench_scene(SetupOptions& so, const std::string& path, BenchFiles& files) {
    so.before_build = [&files](const Scene& loaded) {
        files.inputs.insert(files.inputs.end(), loaded.inputs.begin(), loaded.inputs.end());
        check_outputs(files.outputs, files.inputs);
    };
    std::vector<std::string> warnings;
    Scene scene = setup_scene(so, path, &warnings);
    for (const auto& warning : warnings) log_warning("%s", warning.c_str());
    return scene;
}

// One point of the matrix: a scene at one size and depth.
struct BenchPoint {
    const std::string& scene_path;
    int width, height, depth;
};

// A backend per mode, each with the scene at the point's size.
std::vector<ModeRun> make_runs(const BenchSetup& setup, const Scene& scene, const BenchPoint& p) {
    std::vector<ModeRun> runs;
    for (const auto& m : setup.modes) {
        ModeRun r;
        r.mode = m;
        r.backend = make_backend(setup.so.backend, nullptr);
        RenderSettings named;
        named.mode = m;
        r.name = r.backend->mode_label(named);
        r.backend->set_scene(scene);
        r.backend->reset(p.width, p.height);
        runs.push_back(std::move(r));
    }
    return runs;
}

RenderSettings point_settings(const BenchArgs& a, const SetupOptions& so, const Scene& scene, const BenchPoint& p) {
    SetupOptions point = so;  // this point of the matrix: its size and depth, the bench's spp
    point.width = p.width;
    point.height = p.height;
    point.max_depth = p.depth;
    point.spp = a.spp;
    return setup_settings(point, scene, std::nullopt);
}

// Warm-up, then the modes interleaved (A B C A B C ...) so slow drift hits all alike. A mode whose kernel
// holds the GPU between its frames (resident) cannot share rounds with the others: its frames run as one
// block after them, on the same samples.
void measure(const BenchArgs& a, RenderSettings rs, const BenchPoint& p, std::vector<ModeRun>& runs) {
    char label[256];
    std::snprintf(label, sizeof label, "%s %dx%d d%d", p.scene_path.c_str(), p.width, p.height, p.depth);
    Progress progress(label, static_cast<uint64_t>(a.warmup + a.repeat) * runs.size(), "frames", progress_stream());
    auto frame = [&](ModeRun& r, int i, uint32_t sample) {
        rs.mode = r.mode;
        RenderStats st;
        auto t0 = std::chrono::steady_clock::now();
        r.backend->accumulate(rs, sample, a.spp, st);
        double wall = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        if (i >= a.warmup) {
            r.ms.push_back(st.frame_gpu_ms.empty() ? wall : st.frame_gpu_ms[0]);
            r.rays.push_back(static_cast<double>(st.total_rays()));
            r.launches.push_back(static_cast<double>(st.kernel_launches));
            r.last = st;
        }
        progress.add(1);
    };
    auto blocked = [&](const ModeRun& r) {
        RenderSettings s = rs;
        s.mode = r.mode;
        return r.backend->holds_device(s);
    };
    for (int i = 0; i < a.warmup + a.repeat; ++i)
        for (auto& r : runs)
            if (!blocked(r)) frame(r, i, static_cast<uint32_t>(i) * a.spp);
    for (auto& r : runs)
        if (blocked(r))
            for (int i = 0; i < a.warmup + a.repeat; ++i) frame(r, i, static_cast<uint32_t>(i) * a.spp);
    progress.finish();
}

// Prints the point's table and returns its JSON result; its CSV rows go to csv_rows.
nlohmann::json report_point(const BenchArgs& a, const BenchPoint& p, const std::vector<ModeRun>& runs,
                            std::vector<std::string>& csv_rows) {
    const ModeRun* base = &runs[0];
    for (const auto& r : runs)
        if (r.mode == SchedulerMode::kPersistent) base = &r;
    std::printf("\n%s  %dx%d  %d spp  max depth %d  (%d frames per mode)\n", p.scene_path.c_str(), p.width, p.height,
                a.spp, p.depth, a.repeat);
    std::printf("  %-11s %10s %10s %10s %12s %10s %12s\n", "mode", "median ms", "min ms", "max ms", "rays/s",
                "launches", base->name.c_str());
    nlohmann::json jr;
    jr["scene"] = p.scene_path;
    jr["resolution"] = {p.width, p.height};
    jr["max_depth"] = p.depth;
    jr["modes"] = nlohmann::json::object();
    double base_med = median(base->ms);
    for (const auto& r : runs) {
        double med = median(r.ms);
        double mn = *std::min_element(r.ms.begin(), r.ms.end());
        double mx = *std::max_element(r.ms.begin(), r.ms.end());
        double rays_s = med > 0 ? median(r.rays) / (med * 1e-3) : 0.0;
        double speed = base_med > 0 ? med / base_med : 0.0;  // >1: the baseline mode is faster
        std::printf("  %-11s %10.3f %10.3f %10.3f %12s %10.0f %11.2fx\n", r.name.c_str(), med, mn, mx,
                    Progress::format_rate(rays_s).c_str(), median(r.launches), speed);
        char row[512];
        std::snprintf(row, sizeof row, "%s,%d,%d,%d,%d,%s,%.4f,%.4f,%.4f,%.0f,%.0f,%.4f", p.scene_path.c_str(), p.width,
                      p.height, a.spp, p.depth, r.name.c_str(), med, mn, mx, rays_s, median(r.launches), speed);
        csv_rows.push_back(row);
        jr["modes"][r.name] = {{"ms", r.ms},
                               {"median_ms", med},
                               {"min_ms", mn},
                               {"max_ms", mx},
                               {"rays_per_frame", median(r.rays)},
                               {"rays_per_second", rays_s},
                               {"launches_per_frame", median(r.launches)},
                               {"extension_rays", r.last.extension_rays},
                               {"shadow_rays", r.last.shadow_rays},
                               {"idle_iterations", r.last.idle_iterations},
                               {"warp_iterations", r.last.warp_iterations},
                               {"peak_queue", r.last.peak_queue},
                               {"speedup_of_" + base->name, speed}};
    }
    std::fflush(stdout);
    return jr;
}

// Every file asked for, written only once all of them are ready (and none is an input).
void write_bench_files(const nlohmann::json& out, BenchFiles& files) {
    for (auto& o : files.outputs) {
        if (o.flag == "--json") o.bytes = json_file_text(out);
        if (o.flag == "--plot") o.bytes = plot_png(out);
        if (o.flag == "--csv") {
            o.bytes =
                "scene,width,height,spp,max_depth,mode,median_ms,min_ms,max_ms,rays_per_second,launches_per_frame,time_relative_to_persistent\n";
            for (const auto& r : files.csv_rows) o.bytes += r + "\n";
        }
    }
    write_outputs(files.outputs, files.inputs);
}

}  // namespace

int run_bench(const BenchArgs& a) {
    BenchSetup setup = prepare_bench(a);
    log_info("%s", setup.why.c_str());
    nlohmann::json out = bench_header(a, setup);
    if (a.micro) out["microbenchmarks"] = run_microbenchmarks();
    BenchFiles files = bench_files(a);
    for (const auto& scene_path : a.scenes) {
        Scene scene = load_bench_scene(setup.so, scene_path, files);
        std::vector<std::pair<int, int>> sizes = setup.sizes;
        if (sizes.empty()) sizes = {{scene.defaults.width, scene.defaults.height}};
        std::vector<int> depths = a.depths.empty() ? std::vector<int>{scene.defaults.max_depth} : a.depths;
        for (auto [w, h] : sizes) {
            for (int depth : depths) {
                const BenchPoint point{scene_path, w, h, depth};
                std::vector<ModeRun> runs = make_runs(setup, scene, point);
                measure(a, point_settings(a, setup.so, scene, point), point, runs);
                out["results"].push_back(report_point(a, point, runs, files.csv_rows));
            }
        }
    }
    write_bench_files(out, files);
    return 0;
}

CLI::App* add_bench_command(CLI::App& app, BenchArgs* a) {
    CLI::App* bench = app.add_subcommand("bench", "Compare scheduler modes on the same frames (interleaved)");
    bench->add_option("scenes", a->scenes, "Scenes (.json, .obj, .ply, .gltf or .glb)")->required();
    bench->add_option("--modes", a->modes, "Modes, comma separated (default: all of the backend's)")->delimiter(',');
    bench->add_option("--res", a->resolutions, "Resolutions WxH, comma separated (default: the scene's)")
        ->delimiter(',');
    bench->add_option("--max-depth", a->depths, "Maximum depths, comma separated (default: the scene's)")
        ->delimiter(',');
    bench->add_option("--spp", a->spp, "Samples per pixel per frame")->capture_default_str();
    bench->add_option("--repeat", a->repeat, "Measured frames per mode")->capture_default_str();
    bench->add_option("--warmup", a->warmup, "Unmeasured frames per mode first")->capture_default_str();
    bench->add_option("--backend", a->backend, "auto, cpu or cuda")->capture_default_str();
    bench->add_option("--devices", a->devices, "CUDA devices: all, or indices as 0,1 (one image on all of them)");
    add_bvh_options(bench, &a->bvh);
    bench->add_option("--set", a->set,
                      "Scheduler setting KEY=VALUE for experiments (repeatable; see pkrt help-settings)");
    bench->add_option("--json", a->json, "Write every measurement as JSON");
    bench->add_option("--csv", a->csv, "Write one row per scene, resolution, depth and mode as CSV");
    bench->add_option("--plot", a->plot, "Write a PNG chart of ms/frame against resolution, one line per mode");
    bench->add_flag("--micro", a->micro, "Also run launch, graph, barrier, atomic and queue microbenchmarks");
    add_run_options(bench, &a->run);
    add_limit_options(bench, &a->limits);

    return bench;
}

}  // namespace pkrt
