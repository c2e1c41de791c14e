#include "render/policy_tuner.h"

#include <algorithm>
#include <cmath>

namespace pkrt {

PersistentPolicy PolicyTuner::next(const std::string& key, const std::vector<PersistentPolicy>& candidates,
                                   bool* trial) {
    if (key != key_ || candidates != candidates_) {
        key_ = key;
        candidates_ = candidates;
        best_.assign(candidates.size(), INFINITY);
        recorded_ = 0;
        chosen_ = candidates.size() == 1 ? 0 : -1;
    }
    if (candidates_.empty()) {
        *trial = false;
        return PersistentPolicy{};
    }
    if (chosen_ >= 0) {
        *trial = false;
        return candidates_[chosen_];
    }
    *trial = true;
    return candidates_[recorded_ % candidates_.size()];
}

void PolicyTuner::record(float ms) {
    if (chosen_ >= 0 || candidates_.empty()) return;
    record(candidates_[recorded_ % candidates_.size()], ms);
}

void PolicyTuner::record(const PersistentPolicy& ran, float ms) {
    if (chosen_ >= 0 || candidates_.empty()) return;
    size_t i = std::find(candidates_.begin(), candidates_.end(), ran) - candidates_.begin();
    if (i == candidates_.size()) return;
    if (ms < best_[i]) best_[i] = ms;
    if (++recorded_ < trials_for(candidates_.size())) return;
    chosen_ = 0;
    for (size_t c = 1; c < best_.size(); ++c)
        if (best_[c] < best_[chosen_]) chosen_ = static_cast<int>(c);
}

}  // namespace pkrt
