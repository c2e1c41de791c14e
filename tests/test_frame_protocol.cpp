// The frame protocol (render/backend.h) on the CPU backend: a queue of one, tickets in order,
// done() and wait() in agreement, cancel() by generation, results kept until waited for.
#include <gtest/gtest.h>

#include "render/backend.h"
#include "render/error.h"
#include "tests/test_render_util.h"

using namespace pkrt;
using namespace pkrt_test;

namespace {

const std::string kScenes = PKRT_SCENES_DIR;

std::unique_ptr<Backend> cpu_on(const Scene& s, int w, int h) {
    auto b = make_cpu_backend(2);
    b->set_scene(s);
    b->reset(w, h);
    return b;
}

}  // namespace

TEST(FrameProtocol, CpuHasAQueueOfOneAndTicketsCountUp) {
    Scene s = load_prepared(kScenes + "/cornell.json");
    auto b = cpu_on(s, 16, 12);
    RenderSettings rs = settings(16, 12, 1, 4, 3);
    EXPECT_EQ(b->capacity(rs), 1);
    EXPECT_EQ(b->outstanding(), 0);
    EXPECT_EQ(b->oldest(), 0u);
    FrameTicket t1 = submit_frame(*b, rs, 0, 1);
    EXPECT_EQ(b->outstanding(), 1);
    EXPECT_EQ(b->oldest(), t1);
    EXPECT_THROW(submit_frame(*b, rs, 1, 1), Error) << "a queue of one takes no second frame";
    FrameResult r1 = b->wait(t1);
    EXPECT_EQ(r1.ticket, t1);
    EXPECT_EQ(r1.stats.samples, 16u * 12u);
    EXPECT_FALSE(r1.cancelled);
    EXPECT_FALSE(r1.gpu_timed);
    EXPECT_TRUE(b->done(t1)) << "an ended frame is done";
    EXPECT_THROW(b->wait(t1), Error) << "a result is taken once";
    FrameTicket t2 = submit_frame(*b, rs, 1, 1);
    EXPECT_GT(t2, t1);
    EXPECT_TRUE(b->done(t2)) << "the CPU runs a frame when it is waited for: nothing blocks";
    FrameResult r2 = b->wait(t2);
    EXPECT_EQ(r2.stats.samples, 16u * 12u);
    for (uint32_t c : b->sample_counts()) ASSERT_EQ(c, 2u);
    EXPECT_EQ(b->outstanding(), 0);
}

// Frames through submit/wait are the frames of accumulate(): the same samples, the same image.
TEST(FrameProtocol, SubmittedFramesEqualAccumulate) {
    Scene s = load_prepared(kScenes + "/cornell.json");
    RenderSettings rs = settings(24, 16, 1, 5, 7);
    auto a = cpu_on(s, 24, 16);
    RenderStats st;
    for (uint32_t k = 0; k < 3; ++k) a->accumulate(rs, k, 1, st);
    auto b = cpu_on(s, 24, 16);
    uint64_t samples = 0;
    for (uint32_t k = 0; k < 3; ++k) samples += b->wait(submit_frame(*b, rs, k, 1)).stats.samples;
    EXPECT_EQ(samples, st.samples);
    Image ia = a->resolve(), ib = b->resolve();
    ASSERT_EQ(ia.pixels.size(), ib.pixels.size());
    for (size_t i = 0; i < ia.pixels.size(); ++i) ASSERT_EQ(ia.pixels[i].y, ib.pixels[i].y);
}

// A request with clear starts a new image; cancel() marks the frames of older generations, and only
// those; drain() leaves nothing outstanding.
TEST(FrameProtocol, ClearCancelAndDrain) {
    Scene s = load_prepared(kScenes + "/cornell.json");
    RenderSettings rs = settings(16, 16, 1, 4, 3);
    auto b = cpu_on(s, 16, 16);
    b->wait(submit_frame(*b, rs, 0, 2, 1));
    FrameTicket fresh = submit_frame(*b, rs, 0, 1, 2, true);
    b->cancel(2);  // generation 2 is current: not cancelled
    FrameResult r = b->wait(fresh);
    EXPECT_FALSE(r.cancelled);
    EXPECT_EQ(r.generation, 2u);
    for (uint32_t c : b->sample_counts()) ASSERT_EQ(c, 1u) << "the clear dropped the older image";
    FrameTicket old = submit_frame(*b, rs, 1, 1, 2);
    b->cancel(3);
    EXPECT_TRUE(b->wait(old).cancelled) << "a frame of an older generation is cancelled";
    FrameTicket dropped = submit_frame(*b, rs, 2, 1, 3);
    b->drain();
    EXPECT_EQ(b->outstanding(), 0);
    EXPECT_TRUE(b->done(dropped));
    EXPECT_THROW(b->wait(dropped), Error) << "drain() drops the results";
    for (uint32_t c : b->sample_counts()) ASSERT_EQ(c, 3u) << "drained frames still ran";
}

// begin_adaptive()'s rounds go through the same queue: each a frame, its result's step says whether
// another follows.
TEST(FrameProtocol, AdaptiveRoundsAreFrames) {
    Scene s = load_prepared(kScenes + "/cornell.json");
    RenderSettings rs = settings(32, 32, 1, 4, 3);
    auto b = cpu_on(s, 32, 32);
    b->begin_adaptive(rs, adaptive_settings(0.05f, 4, 64));
    FrameRequest round;
    round.settings = rs;
    round.adaptive_round = true;
    int rounds = 0;
    for (bool more = true; more && rounds < 64; ++rounds) {
        FrameResult r = b->wait(b->submit(round));
        EXPECT_GT(r.step.tiles_sampled, 0u);
        more = r.step.more;
    }
    b->end_adaptive();
    EXPECT_GT(rounds, 1);
    for (uint32_t c : b->sample_counts()) ASSERT_GE(c, 4u);
}
