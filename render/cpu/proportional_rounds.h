// `--adaptive-rule proportional` on the CPU (kernels/adaptive_weights.h): after a pilot, each tile doubles
// its samples round by round until its plan (its share of the samples for the image's target error in the
// least time, from its error and cost per sample), and the image is each round's mean weighed by a weight
// fixed before the round. The backend renders the rounds into its sums as it renders any frame; this
// keeps the plans, the weights and the weighted image beside them.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/adaptive_weights.h"

namespace pkrt {

class ProportionalRounds {
public:
    ProportionalRounds(int width, int height, const AdaptiveRule& rule);
    // Samples of every pixel in the first round.
    uint32_t pilot_samples() const { return 1u << rule_.pilot_level; }
    // After a round: its samples folded into the image, and the next round planned, the tiles it
    // samples in `next` (each doubles the samples it has); `rays`: per pixel, its samples' rays (the
    // cost). Returns the pixels of tiles that are done.
    uint64_t end_round(const AllAndOddSums& sums, const uint32_t* rays, std::vector<uint32_t>& next, unsigned threads);
    // Pixel p's image so far (the raw mean before the pilot is folded in).
    Vec3 estimate(size_t p, Vec3 sum, uint32_t count) const;
    // The sums as the image has them: sum = estimate * count, and the odd-numbered samples' sum scaled
    // alike per channel (their relative error estimate unchanged).
    void finish(std::vector<Vec3>& sum, std::vector<Vec3>& odd, const std::vector<uint32_t>& count) const;

private:
    size_t tile_of(size_t p) const;
    int width_, height_, tiles_x_, tiles_y_;
    ProportionalRule rule_;
    bool pilot_ = true;
    std::vector<TileRounds> rounds_;     // per tile, the rounds planned so far
    std::vector<float> weight_;          // per tile: the weight of the round rendered last (< 0: not in it)
    std::vector<uint32_t> samples_;      // per tile: that round's samples
    std::vector<float> folded_;          // per tile: the weight folded into the image
    std::vector<float> error_;           // per tile: its plan factor, s / sqrt(c)
    std::vector<Vec3> weighted_, last_;  // per pixel: the weighted image, and the sum at the last fold
};

}  // namespace pkrt
