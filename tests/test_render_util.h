// Helpers shared by the rendering tests (CPU and GPU): prepared scenes, settings, image comparisons.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

#include "render/backend.h"
#include "render/error.h"
#include "render/scene.h"

namespace pkrt_test {

inline pkrt::Scene load_prepared(const std::string& path) {
    pkrt::Scene s = pkrt::load_scene(path);
    pkrt::prepare_scene(s);
    return s;
}

// What loading and preparing the scene at `path` reports as its error; empty when it succeeds.
inline std::string load_error(const std::string& path, const pkrt::LoadLimits& limits = {}) {
    try {
        pkrt::Scene s = pkrt::load_scene(path, limits);
        pkrt::prepare_scene(s);
    } catch (const pkrt::Error& e) {
        return e.what();
    }
    return "";
}

inline pkrt::RenderSettings settings(int w, int h, int spp, int depth, uint32_t seed,
                                     std::optional<pkrt::SchedulerMode> mode = std::nullopt) {
    pkrt::RenderSettings rs;
    rs.width = w;
    rs.height = h;
    rs.spp = spp;
    rs.max_depth = depth;
    rs.seed = seed;
    rs.mode = mode;
    return rs;
}

// Adaptive sampling to target error e between min_spp and max_spp (render/adaptive.h).
inline pkrt::AdaptiveSettings adaptive_settings(float e, int min_spp, int max_spp) {
    pkrt::AdaptiveSettings a;
    a.target_error = e;
    a.min_spp = min_spp;
    a.max_spp = max_spp;
    return a;
}

// Root mean square of the per-channel differences of two images of the same size.
inline double rms_difference(const pkrt::Image& a, const pkrt::Image& b) {
    double s = 0;
    for (size_t i = 0; i < a.pixels.size(); ++i)
        for (int c = 0; c < 3; ++c) {
            double d = a.pixels[i][c] - b.pixels[i][c];
            s += d * d;
        }
    return std::sqrt(s / (3.0 * a.pixels.size()));
}

// Mean over pixels and channels.
inline double mean(const pkrt::Image& a) {
    double s = 0;
    for (const auto& p : a.pixels) s += p.x + p.y + p.z;
    return s / (3.0 * a.pixels.size());
}

}  // namespace pkrt_test
