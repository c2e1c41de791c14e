// The per-configuration policy tuner of the persistent kernel (host logic, no GPU needed).
#include <gtest/gtest.h>

#include <set>
#include <tuple>

#include "render/policy_tuner.h"

using namespace pkrt;

namespace {

const PersistentPolicy kQueued{4, 1, 0}, kInPlace{4, 0, 0};

}  // namespace

TEST(PolicyTuner, TwoCandidatesAreEachTriedTwiceThenTheFasterIsKept) {
    PolicyTuner t;
    std::vector<PersistentPolicy> c{kQueued, kInPlace};
    const float ms[] = {2.0f, 1.5f, 1.9f, 1.6f};  // in place faster
    for (int i = 0; i < 4; ++i) {
        bool trial = false;
        EXPECT_EQ(t.next("a", c, &trial), c[i % 2]) << i;
        EXPECT_TRUE(trial);
        t.record(ms[i]);
    }
    for (int i = 0; i < 3; ++i) {
        bool trial = true;
        EXPECT_EQ(t.next("a", c, &trial), kInPlace);
        EXPECT_FALSE(trial);
    }
}

TEST(PolicyTuner, TheMinimumDecidesNotTheLastTime) {
    PolicyTuner t;
    std::vector<PersistentPolicy> c{kQueued, kInPlace};
    const float ms[] = {1.0f, 1.2f, 5.0f, 1.1f};  // one slow outlier of the queued policy
    bool trial = false;
    for (float m : ms) {
        t.next("a", c, &trial);
        t.record(m);
    }
    EXPECT_EQ(t.next("a", c, &trial), kQueued);
}

TEST(PolicyTuner, ManyCandidatesAreTriedOnceEach) {
    PolicyTuner t;
    std::vector<PersistentPolicy> c;
    for (int pool : {0, 2})
        for (int v : {10, 8})
            for (int q : {1, 0}) c.push_back({v, q, pool});
    ASSERT_EQ(PolicyTuner::trials_for(c.size()), 8);
    std::set<std::tuple<int, int, int>> seen;
    bool trial = false;
    for (int i = 0; i < 8; ++i) {
        PersistentPolicy p = t.next("big", c, &trial);
        EXPECT_TRUE(trial);
        seen.insert({p.blocks_per_sm, p.queue_shadows, p.sort_stragglers});
        t.record(p == PersistentPolicy{8, 0, 2} ? 3.0f : 4.0f);
    }
    EXPECT_EQ(seen.size(), 8u);
    PersistentPolicy chosen = t.next("big", c, &trial);
    EXPECT_FALSE(trial);
    EXPECT_EQ(chosen, (PersistentPolicy{8, 0, 2}));
}

TEST(PolicyTuner, ANewConfigurationIsMeasuredAfresh) {
    PolicyTuner t;
    std::vector<PersistentPolicy> c{kQueued, kInPlace};
    bool trial = false;
    for (int i = 0; i < 4; ++i) {
        t.next("a", c, &trial);
        t.record(i % 2 ? 1.0f : 2.0f);
    }
    EXPECT_EQ(t.next("a", c, &trial), kInPlace);
    EXPECT_EQ(t.next("b", c, &trial), kQueued);
    EXPECT_TRUE(trial);
    // Other candidates for the same key (an option changed) restart too.
    std::vector<PersistentPolicy> only{kQueued};
    EXPECT_EQ(t.next("b", only, &trial), kQueued);
    EXPECT_FALSE(trial) << "one candidate needs no trials";
}

TEST(PolicyTuner, AnUnrecordedTrialIsHandedOutAgain) {
    PolicyTuner t;
    std::vector<PersistentPolicy> c{kQueued, kInPlace};
    bool trial = false;
    EXPECT_EQ(t.next("a", c, &trial), kQueued);  // cancelled: never recorded
    EXPECT_EQ(t.next("a", c, &trial), kQueued);
    t.record(1.0f);
    EXPECT_EQ(t.next("a", c, &trial), kInPlace);
}

// Resident mode hands out the next frame's policy before the last frame is measured: each time goes to
// the policy its frame ran, not to the one the tuner would hand out next.
TEST(PolicyTuner, OverlappingFramesAreCreditedToThePolicyTheyRan) {
    PolicyTuner t;
    std::vector<PersistentPolicy> c{kQueued, kInPlace};
    bool trial = false;
    PersistentPolicy first = t.next("a", c, &trial), second = t.next("a", c, &trial);
    EXPECT_EQ(first, kQueued);
    EXPECT_EQ(second, kQueued);  // nothing measured yet
    t.record(first, 2.0f);
    PersistentPolicy third = t.next("a", c, &trial);
    EXPECT_EQ(third, kInPlace);
    t.record(second, 2.1f);
    t.record(PersistentPolicy{6, 1, 1}, 0.1f);  // not a candidate: ignored
    PersistentPolicy fourth = t.next("a", c, &trial);
    t.record(third, 1.0f);  // in place, measured while the tuner hands out queued again
    t.record(fourth, 2.2f);
    EXPECT_EQ(t.next("a", c, &trial), kInPlace);
    EXPECT_FALSE(trial);
}
