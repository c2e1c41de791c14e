#include "app/viewer/compare.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace pkrt::viewer {

double median(std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void ModeComparison::start(const std::string& backend_kind, const std::vector<SchedulerMode>& modes, const Scene& scene,
                           const CameraSpec& camera, const RenderSettings& settings, uint32_t spp, int frames,
                           const std::string& scene_name) {
    cancel();
    error_.clear();
    result_.reset();
    settings_ = settings;
    spp_ = std::max<uint32_t>(1, spp);
    frames_ = std::max(1, frames);
    round_ = 0;
    next_sample_ = 0;
    char desc[512];
    std::snprintf(desc, sizeof desc, "%s  %dx%d  %u spp/frame  max depth %d  %d frames per mode (+%d warm-up)",
                  scene_name.c_str(), settings.width, settings.height, spp_, settings.max_depth, frames_,
                  kWarmupRounds);
    description_ = desc;
    try {
        std::vector<std::optional<SchedulerMode>> runs(modes.begin(), modes.end());
        if (runs.empty()) runs.push_back(std::nullopt);
        for (const auto& m : runs) {
            Run r;
            r.mode = m;
            BackendOptions bo;
            bo.kind = backend_kind;
            r.backend = make_backend(bo, nullptr);
            RenderSettings named;
            named.mode = m;
            r.name = r.backend->mode_label(named);
            r.backend->set_scene(scene);
            r.backend->set_camera(camera);
            r.backend->reset(settings.width, settings.height);
            runs_.push_back(std::move(r));
        }
    } catch (const std::exception& e) {
        runs_.clear();
        error_ = e.what();
    }
}

void ModeComparison::cancel() { runs_.clear(); }

float ModeComparison::progress() const {
    int total = frames_ + kWarmupRounds;
    return total > 0 ? static_cast<float>(round_) / static_cast<float>(total) : 0.0f;
}

void ModeComparison::step() {
    if (runs_.empty()) return;
    try {
        for (auto& r : runs_) {
            RenderSettings rs = settings_;
            rs.mode = r.mode;
            rs.spp = static_cast<int>(spp_);
            RenderStats st;
            auto t0 = std::chrono::steady_clock::now();
            r.backend->accumulate(rs, next_sample_, spp_, st);
            double wall = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            if (round_ < kWarmupRounds) continue;
            double ms = wall;
            if (!st.frame_gpu_ms.empty()) {
                ms = 0;
                for (double m : st.frame_gpu_ms) ms += m;
                r.gpu_timed = true;
            }
            r.ms.push_back(ms);
            r.rays.push_back(static_cast<double>(st.total_rays()));
            r.launches.push_back(static_cast<double>(st.kernel_launches));
        }
    } catch (const std::exception& e) {
        error_ = e.what();
        runs_.clear();
        return;
    }
    next_sample_ += spp_;
    ++round_;
    if (round_ >= frames_ + kWarmupRounds) finish();
}

void ModeComparison::finish() {
    CompareResult res;
    res.description = description_;
    const Run* base = &runs_[0];
    for (const auto& r : runs_)
        if (r.mode == SchedulerMode::kPersistent) base = &r;
    res.base_mode = base->name;
    res.gpu_timed = base->gpu_timed;
    double base_med = median(base->ms);
    for (const auto& r : runs_) {
        CompareRow row;
        row.mode = r.name;
        row.median_ms = median(r.ms);
        row.min_ms = *std::min_element(r.ms.begin(), r.ms.end());
        row.max_ms = *std::max_element(r.ms.begin(), r.ms.end());
        row.rays_per_s = row.median_ms > 0 ? median(r.rays) / (row.median_ms * 1e-3) : 0.0;
        row.launches_per_frame = median(r.launches);
        row.speedup_of_base = base_med > 0 ? row.median_ms / base_med : 0.0;
        res.rows.push_back(row);
    }
    result_ = std::move(res);
    runs_.clear();
}

}  // namespace pkrt::viewer
