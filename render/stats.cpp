#include "render/stats.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "render/error.h"
#include "render/image/image.h"

namespace pkrt {

void RenderStats::count_extension(int depth, uint64_t n) {
    extension_rays += n;
    if (depth >= static_cast<int>(extension_rays_by_depth.size())) extension_rays_by_depth.resize(depth + 1, 0);
    extension_rays_by_depth[depth] += n;
}

void RenderStats::merge(const RenderStats& o) {
    samples += o.samples;
    frames += o.frames;
    kernel_launches += o.kernel_launches;
    frame_gpu_ms.insert(frame_gpu_ms.end(), o.frame_gpu_ms.begin(), o.frame_gpu_ms.end());
    enqueued += o.enqueued;
    dequeued += o.dequeued;
    peak_queue = std::max(peak_queue, o.peak_queue);
    idle_iterations += o.idle_iterations;
    backoff_sleeps += o.backoff_sleeps;
    backoff_ns += o.backoff_ns;
    warp_iterations += o.warp_iterations;
    kept_paths += o.kept_paths;
    inline_shadows += o.inline_shadows;
    paths_generated += o.paths_generated;
    paths_completed += o.paths_completed;
    if (rays_per_sm.size() < o.rays_per_sm.size()) rays_per_sm.resize(o.rays_per_sm.size(), 0);
    for (size_t i = 0; i < o.rays_per_sm.size(); ++i) rays_per_sm[i] += o.rays_per_sm[i];
    if (phase_cycles.size() < o.phase_cycles.size()) phase_cycles.resize(o.phase_cycles.size(), 0);
    for (size_t i = 0; i < o.phase_cycles.size(); ++i) phase_cycles[i] += o.phase_cycles[i];
    if (!o.timeline.empty()) {
        timeline = o.timeline;
        mean_queue = o.mean_queue;
    }
    if (o.frames) {
        grid_blocks = o.grid_blocks;
        block_threads = o.block_threads;
        queue_capacity = o.queue_capacity;
        blocks_per_sm = o.blocks_per_sm;
        shadows_queued = o.shadows_queued;
        stragglers_sorted = o.stragglers_sorted;
        policy_trial = o.policy_trial;
    }
    if (devices.size() < o.devices.size()) devices.resize(o.devices.size());
    for (size_t i = 0; i < o.devices.size(); ++i) {
        devices[i].device = o.devices[i].device;
        devices[i].index = o.devices[i].index;
        devices[i].samples += o.devices[i].samples;
        devices[i].chunks += o.devices[i].chunks;
        devices[i].gpu_ms += o.devices[i].gpu_ms;
    }
    if (!o.work_sharing.empty()) work_sharing = o.work_sharing;
    shadow_rays += o.shadow_rays;
    nonfinite_samples += o.nonfinite_samples;
    for (size_t d = 0; d < o.extension_rays_by_depth.size(); ++d)
        count_extension(static_cast<int>(d), o.extension_rays_by_depth[d]);
}

nlohmann::json to_json(const RenderStats& s) {
    nlohmann::json j;
    j["backend"] = s.backend;
    j["mode"] = s.mode;
    j["device"] = s.device;
    j["resolution"] = {s.width, s.height};
    j["spp"] = s.spp;
    if (s.time_limit_hit) {
        j["spp_requested"] = s.spp_requested;
        j["time_limit_hit"] = true;
    }
    j["max_depth"] = s.max_depth;
    j["seed"] = s.seed;
    j["seconds"] = s.seconds;
    j["samples"] = s.samples;
    j["samples_per_second"] = s.seconds > 0 ? static_cast<double>(s.samples) / s.seconds : 0.0;
    j["rays"] = {{"extension", s.extension_rays},
                 {"shadow", s.shadow_rays},
                 {"total", s.total_rays()},
                 {"extension_by_depth", s.extension_rays_by_depth}};
    j["rays_per_second"] = s.seconds > 0 ? static_cast<double>(s.total_rays()) / s.seconds : 0.0;
    j["nonfinite_samples"] = s.nonfinite_samples;
    j["scene"] = {{"triangles", s.triangles}, {"bvh_build_seconds", s.bvh_build_seconds}};
    if (!s.ranks.empty()) {
        nlohmann::json per_rank = nlohmann::json::array();
        for (const auto& r : s.ranks)
            per_rank.push_back({{"rank", r.rank},
                                {"host", r.host},
                                {"device", r.device},
                                {"chunks", r.chunks},
                                {"samples", r.samples},
                                {"busy_seconds", r.busy_seconds}});
        j["mpi"] = {{"ranks", s.ranks.size()}, {"chunk_spp", s.chunk_spp}, {"per_rank", per_rank}};
    }
    if (!s.reference.empty()) j["reference"] = {{"path", s.reference}, {"rel_mse", s.rel_mse}};
    if (!s.reference.empty() && s.rel_mse_noisy >= 0.0) j["reference"]["rel_mse_noisy"] = s.rel_mse_noisy;
    if (!s.denoiser.empty())
        j["denoise"] = {{"device", s.denoiser}, {"ms", s.denoise_ms}, {"wall_ms", s.denoise_wall_ms}};
    if (s.adaptive.enabled) {
        const AdaptiveReport& a = s.adaptive;
        nlohmann::json rounds = nlohmann::json::array();
        for (const AdaptiveRound& r : a.rounds)
            rounds.push_back({{"seconds", r.seconds},
                              {"samples", r.samples},
                              {"tiles_sampled", r.tiles_sampled},
                              {"samples_per_tile", r.samples_per_tile},
                              {"converged", r.converged}});
        nlohmann::json histogram = nlohmann::json::array();
        for (size_t k = 0; k < a.spp_histogram.size(); ++k)
            if (a.spp_histogram[k])
                histogram.push_back(
                    {{"spp_from", 1ull << k}, {"spp_to", (2ull << k) - 1}, {"pixels", a.spp_histogram[k]}});
        j["adaptive"] = {{"rule", adaptive_method_name(a.settings.method)},
                         {"target_error", a.settings.target_error},
                         {"min_spp", a.settings.least_spp()},
                         {"max_spp", a.settings.most_spp()},
                         {"time_limit_seconds", a.settings.time_limit_s},
                         {"time_limit_hit", a.time_limit_hit},
                         {"converged", a.converged},
                         {"spp", {{"mean", a.mean_spp}, {"least", a.least_spp}, {"most", a.most_spp}}},
                         {"spp_histogram", histogram},
                         {"rounds", rounds}};
    }
    if (s.backend != "cpu") {
        nlohmann::json sched;
        sched["frames"] = s.frames;
        sched["kernel_launches"] = s.kernel_launches;
        sched["launches_per_frame"] = s.frames ? static_cast<double>(s.kernel_launches) / s.frames : 0.0;
        sched["frame_gpu_ms"] = s.frame_gpu_ms;
        sched["grid"] = {{"blocks", s.grid_blocks}, {"threads_per_block", s.block_threads}};
        if (s.blocks_per_sm) sched["grid"]["blocks_per_sm"] = s.blocks_per_sm;
        if (s.shadows_queued >= 0) sched["shadow_rays"] = s.shadows_queued ? "queued" : "traced where cast";
        if (s.stragglers_sorted >= 0) sched["stragglers"] = s.stragglers_sorted ? "pooled, sorted" : "kept in lane";
        if (s.shadows_queued >= 0) sched["policy_trial"] = s.policy_trial;
        sched["queue"] = {{"capacity", s.queue_capacity},
                          {"enqueued", s.enqueued},
                          {"dequeued", s.dequeued},
                          {"peak_occupancy", s.peak_queue},
                          {"mean_occupancy", s.mean_queue}};
        sched["warp_iterations"] = s.warp_iterations;
        sched["idle_iterations"] = s.idle_iterations;
        sched["idle_share"] = s.warp_iterations ? static_cast<double>(s.idle_iterations) / s.warp_iterations : 0.0;
        sched["backoff"] = {{"sleeps", s.backoff_sleeps}, {"ns", s.backoff_ns}};
        sched["kept_paths"] = s.kept_paths;
        sched["inline_shadow_rays"] = s.inline_shadows;
        sched["paths"] = {{"generated", s.paths_generated}, {"completed", s.paths_completed}};
        sched["rays_per_sm"] = s.rays_per_sm;
        if (!s.phase_cycles.empty()) {
            const char* names[] = {"control", "shadow_batch", "fetch",      "idle",
                                   "trace",   "shade",        "shadow_out", "path_out"};
            nlohmann::json ph;
            for (size_t i = 0; i < s.phase_cycles.size() && i < 8; ++i) ph[names[i]] = s.phase_cycles[i];
            sched["phase_cycles"] = ph;
        }
        nlohmann::json tl = nlohmann::json::array();
        for (const auto& p : s.timeline) tl.push_back({p.t_us, p.path_queue, p.shadow_queue, p.in_flight});
        sched["timeline"] = {{"columns", {"t_us", "path_queue", "shadow_queue", "in_flight"}}, {"points", tl}};
        if (!s.devices.empty()) {
            nlohmann::json devs = nlohmann::json::array();
            for (const auto& d : s.devices)
                devs.push_back(
                    {{"device", d.device},
                     {"index", d.index},
                     {"samples", d.samples},
                     {"chunks", d.chunks},
                     {"gpu_ms", d.gpu_ms},
                     {"share", s.paths_completed ? static_cast<double>(d.samples) / s.paths_completed : 0.0}});
            sched["devices"] = devs;
            sched["work_sharing"] = s.work_sharing;
        }
        j["scheduler"] = sched;
    }
    return j;
}

std::string json_file_text(const nlohmann::json& j) {
    return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string stats_json_text(const RenderStats& stats) { return json_file_text(to_json(stats)); }

void write_stats_json(const std::string& path, const RenderStats& stats) {
    write_file_atomically(path, stats_json_text(stats));
}

}  // namespace pkrt
