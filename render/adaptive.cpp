#include "render/adaptive.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>

#include "kernels/adaptive_weights.h"
#include "render/image/canvas.h"
#include "render/error.h"
#include "render/image/image.h"
#include "render/progress.h"

namespace pkrt {

AdaptiveRule AdaptiveSettings::rule() const {
    AdaptiveRule r;
    r.target_error = target_error;
    r.min_spp = static_cast<uint32_t>(std::max(2, min_spp + (min_spp & 1)));
    r.max_spp = std::max(r.min_spp, static_cast<uint32_t>(max_spp) & ~1u);
    return r;
}

uint32_t AdaptiveSettings::least_spp() const {
    const AdaptiveRule r = rule();
    return method == AdaptiveMethod::stop ? r.min_spp : 1u << proportional_rule(r).pilot_level;
}

uint32_t AdaptiveSettings::most_spp() const {
    const AdaptiveRule r = rule();
    return method == AdaptiveMethod::stop ? r.max_spp : 1u << floor_log2(r.max_spp);
}

const char* adaptive_method_name(AdaptiveMethod m) { return m == AdaptiveMethod::stop ? "stop" : "proportional"; }

namespace {
std::string number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}
}  // namespace

void check_adaptive_settings(const AdaptiveSettings& a, int max_spp_limit) {
    if (!std::isfinite(a.target_error) || a.target_error <= 0.0f || a.target_error > 1e6f)
        throw Error("--target-error " + number(a.target_error) +
                    ": must be a relative error greater than 0 (0.01 is 1%)");
    if (a.min_spp < 1 || a.min_spp > max_spp_limit)
        throw Error("--min-spp " + std::to_string(a.min_spp) + ": must be between 1 and " +
                    std::to_string(max_spp_limit));
    if (a.max_spp < 2 || a.max_spp > max_spp_limit)
        throw Error("--max-spp " + std::to_string(a.max_spp) + ": must be between 2 and " +
                    std::to_string(max_spp_limit));
    if (a.min_spp > a.max_spp)
        throw Error("--min-spp " + std::to_string(a.min_spp) + ": must not exceed --max-spp " +
                    std::to_string(a.max_spp));
    if (!std::isfinite(a.time_limit_s) || a.time_limit_s < 0.0)
        throw Error("--time-limit " + number(a.time_limit_s) + ": must be a number of seconds, 0 or more (0: none)");
}

AdaptiveRounds::AdaptiveRounds(const AdaptiveSettings& settings, AdaptiveReport& report, uint64_t pixels,
                               Progress* progress)
    : settings_(settings), report_(report), pixels_(pixels), progress_(progress),
      start_(std::chrono::steady_clock::now()) {
    report_ = AdaptiveReport{};
    report_.enabled = true;
    report_.settings = settings;
}

bool AdaptiveRounds::record(AdaptiveRound round, uint64_t converged_pixels) {
    round.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    round.converged = pixels_ ? static_cast<double>(converged_pixels) / static_cast<double>(pixels_) : 1.0;
    report_.rounds.push_back(round);
    report_.converged = round.converged;
    if (progress_ && converged_pixels > shown_) {
        progress_->add(converged_pixels - shown_);
        shown_ = converged_pixels;
    }
    report_.time_limit_hit = settings_.time_limit_s > 0.0 && round.seconds >= settings_.time_limit_s;
    return !report_.time_limit_hit;
}

bool AdaptiveRounds::record(const AdaptiveStep& step, uint64_t samples) {
    AdaptiveRound r;
    r.samples = samples;
    r.tiles_sampled = step.tiles_sampled;
    r.samples_per_tile = step.samples_per_tile;
    return record(r, step.converged_pixels) && step.more;
}

std::vector<uint64_t> spp_histogram(const std::vector<uint32_t>& counts) {
    std::vector<uint64_t> bins;
    for (uint32_t c : counts) {
        if (c == 0) continue;
        size_t k = static_cast<size_t>(floor_log2(c));
        if (bins.size() <= k) bins.resize(k + 1, 0);
        ++bins[k];
    }
    return bins;
}

void AdaptiveReport::describe_counts(const std::vector<uint32_t>& counts) {
    spp_histogram = pkrt::spp_histogram(counts);
    uint64_t total = 0;
    least_spp = counts.empty() ? 0 : UINT32_MAX;
    most_spp = 0;
    for (uint32_t c : counts) {
        total += c;
        least_spp = std::min(least_spp, c);
        most_spp = std::max(most_spp, c);
    }
    mean_spp = counts.empty() ? 0.0 : static_cast<double>(total) / static_cast<double>(counts.size());
}

uint64_t converged_pixels(int width, int height, const float* sums, const float* odd_sums, const uint32_t* counts,
                          const AdaptiveRule& rule) {
    const AllAndOddSums read{sums, odd_sums, counts};
    uint64_t n = static_cast<uint64_t>(width) * height, done = 0;
    for (size_t p = 0; p < n; ++p) {
        Vec3 all, odd;
        uint32_t count;
        read(p, &all, &odd, &count);
        done += pixel_converged(all, odd, count, rule) ? 1 : 0;
    }
    return done;
}

namespace {

// Matplotlib's viridis at nine stops (perceptually uniform, readable in grey and by the colour-blind).
Rgb viridis(float t) {
    static const float stops[9][3] = {{68, 1, 84},    {71, 44, 122}, {59, 81, 139},  {44, 113, 142}, {33, 144, 141},
                                      {39, 173, 129}, {92, 200, 99}, {170, 220, 50}, {253, 231, 37}};
    t = std::clamp(t, 0.0f, 1.0f) * 8.0f;
    int i = std::min(7, static_cast<int>(t));
    float f = t - static_cast<float>(i);
    auto mix = [&](int c) {
        return static_cast<unsigned char>(std::lround(stops[i][c] + (stops[i + 1][c] - stops[i][c]) * f));
    };
    return Rgb{mix(0), mix(1), mix(2)};
}

// The map's colour scale: viridis over log2 spp from min_spp to max_spp.
struct SppScale {
    double lo, hi;
    SppScale(int min_spp, int max_spp)
        : lo(std::log2(std::max(1, min_spp))), hi(std::log2(std::max(min_spp + 1, max_spp))) {}
    Rgb operator()(double spp) const {
        return viridis(static_cast<float>((std::log2(std::max(1.0, spp)) - lo) / (hi - lo)));
    }
};

}  // namespace

std::vector<uint8_t> spp_map_rgba(int width, int height, const std::vector<uint32_t>& counts, int min_spp,
                                  int max_spp) {
    if (counts.size() != static_cast<size_t>(width) * height) throw Error("internal: spp map of the wrong size");
    const SppScale colour(min_spp, max_spp);
    std::vector<uint8_t> out(4 * counts.size());
    for (size_t i = 0; i < counts.size(); ++i) {
        Rgb c = colour(counts[i]);
        out[4 * i] = c.r;
        out[4 * i + 1] = c.g;
        out[4 * i + 2] = c.b;
        out[4 * i + 3] = 255;
    }
    return out;
}

std::string spp_map_png(int width, int height, const std::vector<uint32_t>& counts, int min_spp, int max_spp) {
    if (counts.size() != static_cast<size_t>(width) * height) throw Error("internal: spp map of the wrong size");
    // The legend needs room for its labels whatever the image's size.
    const int legend_h = 64, canvas_w = std::max(width, 360);
    Canvas canvas(canvas_w, height + legend_h);
    const SppScale colour(min_spp, max_spp);
    const double lo = colour.lo, hi = colour.hi;
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) canvas.blend(x, y, colour(counts[static_cast<size_t>(y) * width + x]), 1.0f);
    // Legend: the colour ramp from min_spp to max_spp, ticks at powers of two, and what it shows.
    const float bar_x0 = 12, bar_x1 = static_cast<float>(canvas_w - 12), bar_y0 = static_cast<float>(height + 8),
                bar_y1 = bar_y0 + 14;
    for (int x = static_cast<int>(bar_x0); x < static_cast<int>(bar_x1); ++x) {
        double t = (x - bar_x0) / (bar_x1 - bar_x0 - 1);
        canvas.fill_rect(static_cast<float>(x), bar_y0, static_cast<float>(x + 1), bar_y1,
                         colour(std::exp2(lo + t * (hi - lo))));
    }
    const Rgb ink{0, 0, 0};
    int step = std::max(1, static_cast<int>(std::ceil((hi - lo) / 6.0)));  // at most about seven labels
    for (int k = static_cast<int>(std::ceil(lo)); k <= static_cast<int>(std::floor(hi)); k += step) {
        float x = bar_x0 + static_cast<float>((k - lo) / (hi - lo)) * (bar_x1 - bar_x0 - 1);
        canvas.fill_rect(x, bar_y1, x + 1, bar_y1 + 4, ink);
        std::string label = std::to_string(1u << k);
        canvas.text(std::round(std::clamp(x - Canvas::text_width(label, 2.0f) / 2, 0.0f,
                                          canvas_w - Canvas::text_width(label, 2.0f))),
                    bar_y1 + 6, label, ink, 2.0f);
    }
    canvas.text(bar_x0, bar_y1 + 26, "samples per pixel (log scale)", ink, 2.0f);
    return encode_png_rgb8(canvas_w, height + legend_h, canvas.pixels());
}

}  // namespace pkrt
