// Every GPU mode through the same frame protocol calls (render/backend.h), with frames queued ahead as
// the viewer runs them: tickets end in order, done() agrees with wait(), every pixel holds exactly the
// samples of the frames ended, a cancelled older view gives way to the new one, drain() leaves nothing
// outstanding. Skips without a CUDA device.
#include <gtest/gtest.h>

#include <deque>

#include "render/backend.h"
#include "render/devices.h"
#include "tests/test_render_util.h"

#if defined(PKRT_HAVE_CUDA)
#include "render/cuda/cuda_backend.h"
#endif

using namespace pkrt;
using namespace pkrt_test;

namespace {

const std::string kScenes = PKRT_SCENES_DIR;
const SchedulerMode kModes[] = {SchedulerMode::kPersistent, SchedulerMode::kRelaunch, SchedulerMode::kGraph,
                                SchedulerMode::kMegakernel, SchedulerMode::kResident};

}  // namespace

TEST(GpuProtocol, EveryModeThroughTheSameCalls) {
    std::string why;
    std::vector<GpuDevice> gpus = cuda_devices(&why);
    if (gpus.empty()) GTEST_SKIP() << "no CUDA device: " << why;
#if defined(PKRT_HAVE_CUDA)
    Scene s = load_prepared(kScenes + "/cornell.json");
    const int w = 64, h = 48;
    const uint32_t frames = 8;
    for (SchedulerMode mode : kModes) {
        const std::string what = mode_name(mode);
        auto gpu = make_cuda_backend(gpus[0]);
        gpu->set_queue_ahead(true);
        gpu->set_scene(s);
        gpu->reset(w, h);
        RenderSettings rs = settings(w, h, 1, 6, 3, mode);
        const int cap = gpu->capacity(rs);
        ASSERT_GE(cap, 1) << what;
        std::deque<FrameTicket> queued;
        uint32_t begun = 0, ended = 0;
        FrameTicket last = 0;
        while (ended < frames) {
            for (; begun < frames && static_cast<int>(queued.size()) < cap; ++begun)
                queued.push_back(submit_frame(*gpu, rs, begun, 1, 1, begun == 0));
            FrameTicket t = queued.front();
            queued.pop_front();
            EXPECT_GT(t, last) << what << ": tickets count up";
            last = t;
            FrameResult r = gpu->wait(t);
            ++ended;
            EXPECT_TRUE(gpu->done(t)) << what << ": a waited-for frame is done";
            EXPECT_EQ(r.ticket, t) << what;
            EXPECT_FALSE(r.cancelled) << what;
            EXPECT_TRUE(r.gpu_timed) << what;
            EXPECT_EQ(r.stats.samples, uint64_t(w) * h) << what;
            if (const float* rgba = gpu->finished_rgba())
                for (int p = 0; p < w * h; ++p) ASSERT_EQ(rgba[4 * p + 3], static_cast<float>(ended)) << what;
        }
        for (uint32_t c : gpu->sample_counts()) ASSERT_EQ(c, frames) << what;
        // A new view: the old one's frames are cancelled, the new image has the new frames' samples only.
        FrameTicket old = submit_frame(*gpu, settings(w, h, 64, 6, 3, mode), frames, 64, 1);
        gpu->cancel(2);
        FrameResult ro;
        if (cap == 1) ro = gpu->wait(old);  // a queue of one: the old frame ends first
        FrameTicket fresh = submit_frame(*gpu, rs, 0, 2, 2, true);
        if (cap > 1) ro = gpu->wait(old);  // queued behind it, without waiting
        EXPECT_EQ(ro.generation, 1u) << what;
        FrameResult r = gpu->wait(fresh);
        EXPECT_FALSE(r.cancelled) << what;
        for (uint32_t c : gpu->sample_counts()) ASSERT_EQ(c, 2u) << what << ": the new view's samples only";
        submit_frame(*gpu, rs, 2, 1, 2);
        gpu->drain();
        EXPECT_EQ(gpu->outstanding(), 0) << what;
        for (uint32_t c : gpu->sample_counts()) ASSERT_EQ(c, 3u) << what << ": a drained frame still ran";
    }
#endif
}
