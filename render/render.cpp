#include <algorithm>
#include <cctype>
#include <chrono>

#include "render/backend.h"
#include "render/checkpoint.h"
#include "render/denoise/denoiser.h"
#include "render/denoise/view_denoiser.h"
#include "render/image/aov.h"
#include "render/devices.h"
#include "render/error.h"
#include "render/progress.h"

#if defined(PKRT_HAVE_CUDA)
#include "render/cuda/cuda_backend.h"
#endif

namespace pkrt {

void Backend::accumulate_adaptive(const RenderSettings& settings, const AdaptiveSettings& adaptive,
                                  AdaptiveReport& report, RenderStats& stats, Progress* progress) {
    begin_adaptive(settings, adaptive);
    // Its clock starts with the first round.
    AdaptiveRounds rounds(adaptive, report,
                          static_cast<uint64_t>(settings.width) * static_cast<uint64_t>(settings.height), progress);
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

std::vector<GpuDevice> pick_devices(const std::string& spec, const std::vector<GpuDevice>& available, unsigned slot) {
    if (spec.empty()) return available.empty() ? available : std::vector<GpuDevice>{available[slot % available.size()]};
    if (spec == "all") {
        if (available.empty()) throw Error("--devices all: no CUDA device found");
        return available;
    }
    std::vector<GpuDevice> out;
    size_t at = 0;
    for (;;) {
        size_t comma = spec.find(',', at);
        std::string item = spec.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
        if (item.empty() || item.size() > 4 ||
            !std::all_of(item.begin(), item.end(), [](unsigned char c) { return std::isdigit(c); }))
            throw Error("--devices " + spec + ": expected all, or device indices separated by commas (as 0,1)");
        int index = std::stoi(item);
        auto d = std::find_if(available.begin(), available.end(), [&](const GpuDevice& g) { return g.index == index; });
        if (d == available.end())
            throw Error("--devices " + spec + ": there is no CUDA device " + item + " (" +
                        std::to_string(available.size()) + " found" +
                        (available.empty() ? "" : ": 0.." + std::to_string(available.size() - 1)) + ")");
        out.push_back(*d);
        if (out.size() > 64) throw Error("--devices " + spec + ": more than 64 workers");
        if (comma == std::string::npos) break;
        at = comma + 1;
    }
    return out;
}

std::unique_ptr<Backend> make_backend(const BackendOptions& options, std::string* why) {
    const std::string& kind = options.kind;
    if (kind != "cpu" && kind != "cuda" && kind != "auto")
        throw Error("--backend " + kind + ": must be auto, cpu or cuda");
    SchedulerOptions scheduler = parse_settings(options.set);  // validated whichever backend runs
    auto cpu = [&](const std::string& reason) {
        if (!options.set.empty())
            throw Error("--set " + options.set.front() + ": the CPU backend has no scheduler settings (" + reason +
                        "; use --backend cuda on a machine with a CUDA device)");
        if (why) *why = "CPU backend (" + reason + ")";
        return make_cpu_backend(options.cpu_threads);
    };
    if (kind == "cpu") {
        if (!options.devices.empty())
            throw Error("--devices " + options.devices + ": the CPU backend has no CUDA devices (use --backend cuda)");
        return cpu("asked for");
    }
    std::string reason;
    std::vector<GpuDevice> devices = cuda_devices(&reason);
    if (!options.devices.empty() && devices.empty()) throw Error("--devices " + options.devices + ": " + reason);
#if defined(PKRT_HAVE_CUDA)
    if (!devices.empty()) {
        std::vector<GpuDevice> picked = pick_devices(options.devices, devices, options.device_slot);
        if (picked.size() > 1) {
            if (why) *why = "CUDA backend on " + std::to_string(picked.size()) + " GPUs";
            return make_multi_gpu_backend(picked, scheduler);
        }
        if (why)
            *why = "CUDA backend on " + picked[0].name + (kind == "auto" ? " (auto: a CUDA device was found)" : "");
        return make_cuda_backend(picked[0], scheduler);
    }
#else
    (void)scheduler;
    if (!devices.empty()) reason = "this pkrt was built without the CUDA backend";
#endif
    if (kind == "cuda") throw Error("--backend cuda: " + reason);
    return cpu("auto: " + reason);
}

std::unique_ptr<Denoiser> Backend::make_denoiser() const { return make_cpu_denoiser(); }

std::unique_ptr<Denoiser> Backend::make_unet_denoiser(const UnetWeights& weights) const {
    return make_cpu_unet_denoiser(weights);
}

std::unique_ptr<ViewDenoiser> Backend::make_view_denoiser() const { return make_host_view_denoiser(make_denoiser()); }

void check_mode(const Backend& backend, SchedulerMode mode, const std::string& flag) {
    auto modes = backend.modes();
    if (std::find(modes.begin(), modes.end(), mode) != modes.end()) return;
    if (modes.empty()) {
        std::string name = backend.name();
        std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::toupper(c); });
        throw Error(flag + " " + mode_name(mode) + ": the " + name +
                    " backend has no scheduler modes (use --backend cuda)");
    }
    std::string list;
    for (auto m : modes) list += (list.empty() ? "" : ", ") + std::string(mode_name(m));
    throw Error(flag + " " + mode_name(mode) + ": must be one of " + list);
}

// The backend's image and (where the settings keep them) features, `samples` a pixel, with a resumed
// render's prior samples (control's) where there are some.
static void resolve_with_prior(const Backend& backend, const RenderSettings& rs, const PassControl* control,
                               uint32_t samples, Image& image, FeatureImages& features) {
    Accumulation a = backend.accumulation();
    image = resolve_accumulation(a);
    if (rs.features) features = resolve_features(a);
    if (!control || control->first_sample == 0) return;
    image = combine_samples(control->prior, control->first_sample, image, samples);
    if (rs.features) features = combine_features(control->prior_features, control->first_sample, features, samples);
}

uint32_t accumulate_passes(Backend& backend, const RenderSettings& rs, uint32_t first_sample, uint32_t samples,
                           RenderStats& st, Progress* progress, const PassControl* control) {
    // Passes of about a million paths (at least one sample each; more where several GPUs share them)
    // keep progress updates frequent without making passes so short that their overhead shows.
    uint64_t pixels = static_cast<uint64_t>(rs.width) * rs.height;
    uint32_t per_pass = static_cast<uint32_t>(std::clamp<uint64_t>(
        backend.paths_per_pass() / std::max<uint64_t>(1, pixels), 1, std::max<uint32_t>(samples, 1)));
    auto t0 = std::chrono::steady_clock::now();
    int checkpoints = 0;
    const bool timed = control && (control->time_limit_s > 0.0 || control->checkpoint_s > 0.0);
    double seconds_per_spp = 0.0;
    for (uint32_t s = 0; s < samples;) {
        uint32_t n = std::min<uint32_t>(per_pass, samples - s);
        // A limit or checkpoint can act only between passes: the first pass of one sample measures the
        // speed, and later passes last about a quarter second (or what is left of the time limit).
        if (timed) {
            double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            double budget = 0.25;
            if (control->time_limit_s > 0.0) budget = std::min(budget, control->time_limit_s - elapsed);
            uint32_t fit = seconds_per_spp > 0.0 ? static_cast<uint32_t>(std::min(1e9, budget / seconds_per_spp)) : 1;
            n = std::clamp<uint32_t>(fit, 1, n);
        }
        auto pass_start = std::chrono::steady_clock::now();
        backend.accumulate(rs, first_sample + s, n, st);
        seconds_per_spp = std::chrono::duration<double>(std::chrono::steady_clock::now() - pass_start).count() / n;
        s += n;
        if (progress) progress->add(pixels * n);
        if (!control || s == samples) continue;
        double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (control->time_limit_s > 0.0 && elapsed >= control->time_limit_s) return s;
        bool due = control->checkpoint_s > 0.0 && elapsed >= control->checkpoint_s * (checkpoints + 1);
        if (control->checkpoint_now && control->checkpoint_now()) due = true;
        if (due && control->checkpoint) {
            Image image;
            FeatureImages features;
            resolve_with_prior(backend, rs, control, s, image, features);
            control->checkpoint(image, features, control->first_sample + s);
            checkpoints = control->checkpoint_s > 0.0 ? static_cast<int>(elapsed / control->checkpoint_s) : 0;
        }
    }
    return samples;
}

RenderOutput render_image(Backend& backend, const Scene& scene, const RenderSettings& rs, Progress* progress,
                          const PassControl* control) {
    RenderOutput out = render_view(backend, scene, scene.camera, rs, progress, true, {}, control);
    if (progress && out.stats.time_limit_hit) progress->stop();
    else if (progress) progress->finish();
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
                         Progress* progress, bool resolve, Accumulation spare, const PassControl* control) {
    RenderOutput out;
    out.stats = describe_render(backend, scene, rs);
    RenderStats& st = out.stats;
    backend.set_scene(scene);
    backend.set_camera(camera);
    backend.set_features(rs.features);
    backend.reset(rs.width, rs.height);
    auto t0 = std::chrono::steady_clock::now();
    if (rs.adaptive) backend.accumulate_adaptive(rs, *rs.adaptive, st.adaptive, st, progress);
    else {
        const uint32_t first = control ? control->first_sample : 0, spp = static_cast<uint32_t>(rs.spp);
        uint32_t done = first + accumulate_passes(backend, rs, first, spp - first, st, progress, control);
        st.spp = static_cast<int>(done);
        if (done < spp) {
            st.spp_requested = rs.spp;
            st.time_limit_hit = true;
        }
    }
    st.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (rs.adaptive) st.adaptive.describe_counts(backend.sample_counts());
    if (resolve) {
        resolve_with_prior(backend, rs, rs.adaptive ? nullptr : control,
                           static_cast<uint32_t>(st.spp) - (control && !rs.adaptive ? control->first_sample : 0),
                           out.image, out.features);
    } else {
        out.accumulation = std::move(spare);
        backend.accumulation(out.accumulation);
    }
    return out;
}

}  // namespace pkrt
