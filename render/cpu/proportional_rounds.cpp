#include "render/cpu/proportional_rounds.h"

#include "render/cpu/parallel.h"

namespace pkrt {

ProportionalRounds::ProportionalRounds(int width, int height, const AdaptiveRule& rule)
    : width_(width), height_(height), tiles_x_(adaptive_tiles(width)), tiles_y_(adaptive_tiles(height)),
      rule_(proportional_rule(rule)) {
    const size_t tiles = static_cast<size_t>(tiles_x_) * tiles_y_, pixels = static_cast<size_t>(width) * height;
    rounds_.assign(tiles, TileRounds{rule_.pilot_level, 0.0f});
    weight_.assign(tiles, -1.0f);
    samples_.assign(tiles, pilot_samples());
    folded_.assign(tiles, 0.0f);
    error_.assign(tiles, 0.0f);
    weighted_.assign(pixels, splat(0.0f));
    last_.assign(pixels, splat(0.0f));
}

size_t ProportionalRounds::tile_of(size_t p) const {
    const size_t x = p % static_cast<size_t>(width_), y = p / static_cast<size_t>(width_);
    return (y / kAdaptiveTile) * static_cast<size_t>(tiles_x_) + x / kAdaptiveTile;
}

uint64_t ProportionalRounds::end_round(const AllAndOddSums& sums, const uint32_t* rays, std::vector<uint32_t>& next,
                                       unsigned threads) {
    const size_t tiles = rounds_.size();
    auto tile_pixels = [&](size_t t) {
        const int x0 = static_cast<int>(t % tiles_x_) * kAdaptiveTile,
                  y0 = static_cast<int>(t / tiles_x_) * kAdaptiveTile;
        return (std::min(kAdaptiveTile, width_ - x0)) * (std::min(kAdaptiveTile, height_ - y0));
    };
    std::vector<float> term(tiles);  // s sqrt(c), of the image's mean
    parallel_chunks(
        tiles, 64,
        [&](unsigned, size_t b, size_t e) {
            for (size_t t = b; t < e; ++t) {
                const int tx = static_cast<int>(t % tiles_x_), ty = static_cast<int>(t / tiles_x_);
                const float s = tile_error_per_sample(tx, ty, width_, height_, sums),
                            c = tile_cost_of(tx, ty, width_, height_, rays, sums.counts);
                error_[t] = plan_factor(s, c);
                term[t] = mean_factor(s, c);
            }
        },
        threads);
    unsigned long long terms = 0;
    for (size_t t = 0; t < tiles; ++t) terms += tile_error_term(term[t], tile_pixels(t));
    const float mean_s = mean_tile_error(terms, static_cast<unsigned long long>(width_) * height_);
    auto plan = [&](float s) { return tile_plan_level(s, mean_s, rule_.target, rule_.pilot_level, rule_.max_level); };
    if (pilot_) {
        // The pilot's weight, now that the neighbours' errors are known (its own samples do not enter it).
        for (size_t t = 0; t < tiles; ++t) {
            const float ring = neighbours_error(static_cast<int>(t % tiles_x_), static_cast<int>(t / tiles_x_),
                                                tiles_x_, tiles_y_, error_.data());
            const float w = pilot_weight(rule_.pilot_level, plan(ring), rule_.max_level);
            rounds_[t].used = w >= 1.0f ? 1.0f : w;
            weight_[t] = w;
        }
        pilot_ = false;
    }
    // The round's samples of each pixel: its sum less the sum at the last fold.
    parallel_chunks(
        tiles, 64,
        [&](unsigned, size_t b, size_t e) {
            for (size_t t = b; t < e; ++t) {
                if (weight_[t] < 0.0f) continue;
                const float w = weight_[t] / static_cast<float>(samples_[t]);
                const int x0 = static_cast<int>(t % tiles_x_) * kAdaptiveTile,
                          y0 = static_cast<int>(t / tiles_x_) * kAdaptiveTile;
                for (int y = y0; y < std::min(y0 + kAdaptiveTile, height_); ++y)
                    for (int x = x0; x < std::min(x0 + kAdaptiveTile, width_); ++x) {
                        const size_t p = static_cast<size_t>(y) * width_ + x;
                        const Vec3 sum{sums.all[3 * p], sums.all[3 * p + 1], sums.all[3 * p + 2]};
                        weighted_[p] += (sum - last_[p]) * w;
                        last_[p] = sum;
                    }
                folded_[t] += weight_[t];
            }
        },
        threads);
    next.clear();
    uint64_t done = 0;
    for (size_t t = 0; t < tiles; ++t) {
        if (rounds_done(rounds_[t])) {
            weight_[t] = -1.0f;
            done += static_cast<uint64_t>(tile_pixels(t));
            continue;
        }
        samples_[t] = 1u << rounds_[t].level;
        weight_[t] = take_round(rounds_[t], plan(error_[t]), rule_.max_level);
        next.push_back(static_cast<uint32_t>(t));
    }
    return done;
}

Vec3 ProportionalRounds::estimate(size_t p, Vec3 sum, uint32_t count) const {
    const float used = folded_[tile_of(p)];
    if (used > 0.0f) return weighted_[p] * (1.0f / used);
    return count ? sum * (1.0f / static_cast<float>(count)) : splat(0.0f);
}

void ProportionalRounds::finish(std::vector<Vec3>& sum, std::vector<Vec3>& odd,
                                const std::vector<uint32_t>& count) const {
    for (size_t p = 0; p < sum.size(); ++p) {
        const float n = static_cast<float>(count[p]);
        const Vec3 e = estimate(p, sum[p], count[p]) * n;
        // Radiance is never negative: a channel whose sum is 0 had only zeros, and its estimate is 0.
        odd[p] = Vec3{sum[p].x > 0.0f ? odd[p].x * (e.x / sum[p].x) : odd[p].x,
                      sum[p].y > 0.0f ? odd[p].y * (e.y / sum[p].y) : odd[p].y,
                      sum[p].z > 0.0f ? odd[p].z * (e.z / sum[p].z) : odd[p].z};
        sum[p] = e;
    }
}

}  // namespace pkrt
