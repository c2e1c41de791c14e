// Adaptive sampling as the command line asks for it (`pkrt render --target-error E --min-spp --max-spp
// --time-limit`), what a backend reports of it, and its pictures. The rule itself, shared with the GPU,
// is kernels/adaptive.h.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/adaptive.h"

namespace pkrt {

// How the rounds give out samples. stop: a tile samples while a pixel of its halo is above the error
// (kernels/adaptive.h; every backend). proportional: after a pilot, each tile takes its share of the
// samples for the image's RMS error, in proportion to its error per sample, each round weighed so that
// the image stays unbiased (kernels/adaptive_weights.h; the CPU backend only, until the GPU's scan has it).
enum class AdaptiveMethod { stop, proportional };
const char* adaptive_method_name(AdaptiveMethod m);

// Why a GPU backend refuses the proportional rule (its rounds have only the stop rule so far).
inline constexpr const char* kProportionalCpuOnly =
    "--adaptive-rule proportional: the GPU's rounds have only the stop rule so far (issue 52); use --backend cpu "
    "or --adaptive-rule stop";

struct AdaptiveSettings {
    AdaptiveMethod method = AdaptiveMethod::stop;
    float target_error = 0.0f;  // stop: relative error per pixel; proportional: the image's RMS of it
    int min_spp = 16, max_spp = 4096;
    double time_limit_s = 0.0;  // 0: none; checked between rounds

    // min_spp rounded up and max_spp down to even counts (the error estimate halves them), min_spp at
    // least 2.
    AdaptiveRule rule() const;
    // The fewest and the most samples a pixel can take: min_spp and max_spp, even (proportional: the
    // pilot, min_spp rounded up to a power of two within max_spp, and max_spp rounded down to one).
    uint32_t least_spp() const;
    uint32_t most_spp() const;
    bool operator==(const AdaptiveSettings&) const = default;
};

// One line naming the flag on a bad value: E <= 0 or not finite, min > max, counts out of range, a
// negative or non-finite time limit.
void check_adaptive_settings(const AdaptiveSettings& a, int max_spp_limit);

// What an adaptive render did, round by round.
struct AdaptiveRound {
    double seconds = 0.0;           // since the render began, at the round's end
    uint64_t samples = 0;           // samples of every pixel so far
    uint32_t tiles_sampled = 0;     // tiles the round sampled
    uint32_t samples_per_tile = 0;  // samples the round gave each of them, per pixel
    double converged = 0.0;         // fraction of pixels at the target error or at max_spp, after it
};

struct AdaptiveReport {
    bool enabled = false;
    AdaptiveSettings settings;
    std::vector<AdaptiveRound> rounds;
    bool time_limit_hit = false;
    double converged = 0.0;  // the last round's
    // The outcome per pixel: spp_histogram() of the sample counts, their mean, least and most.
    std::vector<uint64_t> spp_histogram;
    double mean_spp = 0.0;
    uint32_t least_spp = 0, most_spp = 0;
    void describe_counts(const std::vector<uint32_t>& counts);
};

class Progress;

// What a round gave and what its scan found (Backend::end_adaptive_round).
struct AdaptiveStep {
    uint32_t tiles_sampled = 0;     // by the round
    uint32_t samples_per_tile = 0;  // its largest step
    uint64_t converged_pixels = 0;  // after it
    bool more = false;              // a next round has tiles to sample
};

// The bookkeeping every backend's rounds share: the report, the clock, the progress bar (it shows the
// most pixels ever converged: a tile taken up again can lose some) and the time limit.
class AdaptiveRounds {
public:
    AdaptiveRounds(const AdaptiveSettings& settings, AdaptiveReport& report, uint64_t pixels, Progress* progress);
    // Records the round just rendered (the caller sets its samples, tiles and step) with the pixels
    // converged after it; false when the time limit has passed and the rounds end.
    bool record(AdaptiveRound round, uint64_t converged_pixels);
    // The same for a round as a backend's step reports it, `samples` the render's so far; also false
    // when no tile needs more.
    bool record(const AdaptiveStep& step, uint64_t samples);

private:
    const AdaptiveSettings& settings_;
    AdaptiveReport& report_;
    uint64_t pixels_, shown_ = 0;
    Progress* progress_;
    std::chrono::steady_clock::time_point start_;
};

// Pixels per sample count in bins of powers of two: bin k holds counts in [2^k, 2^(k+1)).
std::vector<uint64_t> spp_histogram(const std::vector<uint32_t>& counts);
// Pixels that need no more samples (kernels/adaptive.h: pixel_converged).
uint64_t converged_pixels(int width, int height, const float* sums, const float* odd_sums, const uint32_t* counts,
                          const AdaptiveRule& rule);

// A false-colour map of samples per pixel (viridis, log scale, min_spp to max_spp) as RGBA8, row 0 at
// the top: the viewer's overlay.
std::vector<uint8_t> spp_map_rgba(int width, int height, const std::vector<uint32_t>& counts, int min_spp, int max_spp);
// The same map with a legend strip below the image, as PNG bytes.
std::string spp_map_png(int width, int height, const std::vector<uint32_t>& counts, int min_spp, int max_spp);

}  // namespace pkrt
