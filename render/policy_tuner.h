// Picks, per configuration (scene, frame size, samples, depth), the fastest of a few scheduling policies of
// the persistent kernel by timing real frames. Which policy wins depends on the scene as much as on the
// frame: queued shadow rays win on Crytek Sponza and lose on the Cornell box, 48 registers win on Sponza
// and 64 on the Cornell box (BENCHMARKS.md). The first frames of a configuration try each candidate in
// turn; every later frame uses the one with the lowest GPU time. All policies trace the same paths, so
// trial frames are ordinary frames of the image.
#pragma once

#include <string>
#include <vector>

namespace pkrt {

struct PersistentPolicy {
    int blocks_per_sm = 0;    // the kernel build: resident blocks per SM
    int queue_shadows = 1;    // 1 queued, 0 traced where cast
    int sort_stragglers = 0;  // 1 a warp's last live paths pooled, and only empty warps take new ones
    bool operator==(const PersistentPolicy&) const = default;
};

class PolicyTuner {
public:
    // The policy for the next frame of configuration `key` (trial frames restart whenever the key or
    // the candidates change). *trial says whether its time should be record()ed.
    PersistentPolicy next(const std::string& key, const std::vector<PersistentPolicy>& candidates, bool* trial);
    // Cost (GPU time, or time per path where frames differ in size) of the trial frame last handed out. A trial that is never recorded (a cancelled frame) is
    // simply handed out again.
    void record(float cost);
    // The same for a frame that ran `ran` (one of the candidates): for schedulers whose frames overlap,
    // where the frame measured is not always the one last handed out. Another policy is ignored.
    void record(const PersistentPolicy& ran, float cost);

    // Trials per configuration: each candidate twice when there are two at most (small frames are
    // noisy), else once.
    static int trials_for(size_t candidates) {
        return candidates <= 2 ? 2 * static_cast<int>(candidates) : static_cast<int>(candidates);
    }

private:
    std::string key_;
    std::vector<PersistentPolicy> candidates_;
    std::vector<float> best_;  // lowest ms per candidate
    int recorded_ = 0;
    int chosen_ = -1;
};

}  // namespace pkrt
