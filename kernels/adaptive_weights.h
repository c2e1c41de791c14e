// Rounds whose samples go where the error is, without bias (issue 52; measured before it was built by
// tools/adaptive/allocation_study.py, its rule prop-wtd, BENCHMARKS.md session 30). Not yet used by the
// backends: the GPU's rounds are to fold each round into a weighted image with these weights.
//
// After a pilot, each tile has a plan: the samples that give it its share of a target mean relMSE T when
// samples go in proportion to each tile's relative error per sample s (minimising the total for the
// mean: n = s * mean(s) / T), rounded up to a power of two. Rounds double a tile's samples until its
// plan, which is made again after every round from everything seen so far.
//
// A tile whose samples stop early because its estimate missed rare bright paths would be dark if its
// image were the plain mean of its samples (the stop rule was, on the bokeh). So each round's mean of
// fresh samples gets a weight fixed before the round, from the plan as it then stood: the round's share
// of the samples the plan had left, times the weight left. The last round (its plan reached) takes all
// that is left, so the weights sum to 1; each weight is independent of the samples it weighs, so the
// weighted image is unbiased whatever the plans; and when no plan changes it is the plain mean.
#pragma once

#include "kernels/adaptive.h"

namespace pkrt {

// A tile's rounds so far: 2^level samples, `used` of the image's weight given to them.
struct TileRounds {
    uint32_t level;
    float used;
};

// The plan's level for relative error per sample s, the image's mean of it mean_s, and target mean
// relMSE `target`, within [min_level, max_level].
PKRT_HD uint32_t tile_plan_level(float s, float mean_s, float target, uint32_t min_level, uint32_t max_level) {
    float want = s * mean_s / target;
    uint32_t level = min_level;
    while (level < max_level && static_cast<float>(1u << level) < want) ++level;
    return level;
}

// The weight of the round that doubles the tile's samples, from its plan before the round: at least that
// doubling while weight is left, and all that is left when the round reaches the plan or max_level.
PKRT_HD float round_weight(const TileRounds& t, uint32_t plan_level, uint32_t max_level) {
    uint32_t next = t.level + 1;
    uint32_t plan = plan_level > next ? plan_level : next;
    float left = 1.0f - t.used;
    if (plan == next || next >= max_level) return left;
    float round = static_cast<float>(1u << t.level), to_plan = static_cast<float>((1u << plan) - (1u << t.level));
    return left * round / to_plan;
}

// The pilot's weight (its 2^pilot_level samples), before any of its own samples are seen: from a plan
// that may use other tiles' samples only (they are independent of this tile's), with room for at least
// one more round.
PKRT_HD float pilot_weight(uint32_t pilot_level, uint32_t plan_level) {
    uint32_t plan = plan_level > pilot_level + 1 ? plan_level : pilot_level + 1;
    return static_cast<float>(1u << pilot_level) / static_cast<float>(1u << plan);
}

}  // namespace pkrt
