#include <algorithm>
#include <cctype>
#include <chrono>

#include "backend.h"
#include "devices.h"
#include "error.h"
#include "progress.h"

#if defined(PKRT_HAVE_CUDA)
#include "cuda/cuda_backend.h"
#endif

namespace pkrt {

void Backend::accumulate_adaptive(const RenderSettings& settings, const AdaptiveSettings& adaptive, AdaptiveReport& report,
                                  RenderStats& stats, Progress* progress) {
    begin_adaptive(settings, adaptive);
    // Its clock starts with the first round.
    AdaptiveRounds rounds(adaptive, report, static_cast<uint64_t>(settings.width) * static_cast<uint64_t>(settings.height), progress);
    for (;;) {
        begin_adaptive_round();
        AdaptiveStep step = end_adaptive_round(stats);
        if (!rounds.record(step, stats.samples)) break;
    }
    end_adaptive();
}

std::string Backend::mode_label(const RenderSettings& settings) const {
    if (settings.mode) return mode_name(*settings.mode);
    auto m = modes();
    return m.empty() ? "cpu-threads" : mode_name(m.front());
}

FrameRecord make_frame_record(const CameraSpec& camera, int width, int height, const RenderSettings& rs,
                              uint32_t first_sample, uint32_t samples, uint32_t epoch) {
    FrameRecord f{};
    int block = std::max(1, rs.preview);
    width = (width + block - 1) / block;
    height = (height + block - 1) / block;
    f.camera = make_camera_view(camera, width, height);
    f.width = width;
    f.height = height;
    f.max_depth = rs.max_depth;
    f.seed = rs.seed;
    f.first_sample = first_sample;
    f.samples = samples;
    f.epoch = epoch;
    return f;
}

std::unique_ptr<Backend> make_backend(const BackendOptions& options, std::string* why) {
    const std::string& kind = options.kind;
    if (kind != "cpu" && kind != "cuda" && kind != "auto") throw Error("--backend " + kind + ": must be auto, cpu or cuda");
    SchedulerOptions scheduler = parse_settings(options.set);  // validated whichever backend runs
    auto cpu = [&](const std::string& reason) {
        if (!options.set.empty())
            throw Error("--set " + options.set.front() + ": the CPU backend has no scheduler settings (" + reason +
                        "; use --backend cuda on a machine with a CUDA device)");
        if (why) *why = "CPU backend (" + reason + ")";
        return make_cpu_backend();
    };
    if (kind == "cpu") return cpu("asked for");
    std::string reason;
    std::vector<GpuDevice> devices = cuda_devices(&reason);
#if defined(PKRT_HAVE_CUDA)
    if (!devices.empty()) {
        if (why) *why = "CUDA backend on " + devices[0].name + (kind == "auto" ? " (auto: a CUDA device was found)" : "");
        return make_cuda_backend(devices[0], scheduler);
    }
#else
    (void)scheduler;
    if (!devices.empty()) reason = "this pkrt was built without the CUDA backend";
#endif
    if (kind == "cuda") throw Error("--backend cuda: " + reason);
    return cpu("auto: " + reason);
}

void check_mode(const Backend& backend, SchedulerMode mode, const std::string& flag) {
    auto modes = backend.modes();
    if (std::find(modes.begin(), modes.end(), mode) != modes.end()) return;
    if (modes.empty()) {
        std::string name = backend.name();
        std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::toupper(c); });
        throw Error(flag + " " + mode_name(mode) + ": the " + name + " backend has no scheduler modes (use --backend cuda)");
    }
    std::string list;
    for (auto m : modes) list += (list.empty() ? "" : ", ") + std::string(mode_name(m));
    throw Error(flag + " " + mode_name(mode) + ": must be one of " + list);
}

RenderOutput render_image(Backend& backend, const Scene& scene, const RenderSettings& rs, Progress* progress) {
    RenderOutput out = render_view(backend, scene, scene.camera, rs, progress);
    if (progress) progress->finish();
    return out;
}

RenderStats describe_render(const Backend& backend, const Scene& scene, const RenderSettings& rs) {
    RenderStats st;
    st.backend = backend.name();
    st.device = backend.device();
    st.mode = backend.mode_label(rs);
    st.width = rs.width;
    st.height = rs.height;
    st.spp = rs.spp;
    st.max_depth = rs.max_depth;
    st.seed = rs.seed;
    st.triangles = scene.source_triangles ? scene.source_triangles : scene.tris.size();
    st.bvh_build_seconds = scene.bvh_build_seconds;
    return st;
}

RenderOutput render_view(Backend& backend, const Scene& scene, const CameraSpec& camera, const RenderSettings& rs,
                         Progress* progress, bool resolve, Accumulation spare) {
    RenderOutput out;
    out.stats = describe_render(backend, scene, rs);
    RenderStats& st = out.stats;
    backend.set_scene(scene);
    backend.set_camera(camera);
    backend.reset(rs.width, rs.height);
    // Passes of about a million paths (at least one sample each) keep progress updates frequent
    // without making passes so short that their overhead shows.
    uint64_t pixels = static_cast<uint64_t>(rs.width) * rs.height;
    uint32_t per_pass = static_cast<uint32_t>(std::max<uint64_t>(1, (1u << 20) / std::max<uint64_t>(1, pixels)));
    auto t0 = std::chrono::steady_clock::now();
    if (rs.adaptive) backend.accumulate_adaptive(rs, *rs.adaptive, st.adaptive, st, progress);
    for (uint32_t s = 0; s < static_cast<uint32_t>(rs.spp) && !rs.adaptive;) {
        uint32_t n = std::min<uint32_t>(per_pass, static_cast<uint32_t>(rs.spp) - s);
        backend.accumulate(rs, s, n, st);
        s += n;
        if (progress) progress->add(pixels * n);
    }
    st.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (rs.adaptive) st.adaptive.describe_counts(backend.sample_counts());
    if (resolve) out.image = backend.resolve();
    else {
        out.accumulation = std::move(spare);
        backend.accumulation(out.accumulation);
    }
    return out;
}

}  // namespace pkrt
