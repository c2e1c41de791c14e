// The viewer's denoised view on the device (render/cuda/gpu_view_denoiser.h) gives the host's image
// (render/denoise/view_denoiser.h: read back, blended and filtered on the CPU) for the same frames: a
// first view, more samples of it, then a moved camera's view blended with its history. In persistent
// mode the framebuffer is resolved on the device and the result stays there for the display; in
// resident mode the image is the grid's snapshot in its slot in device memory, the grid's warps make the
// steps and the grid stays on the GPU. Skips without a CUDA device.
#include <gtest/gtest.h>

#include <cmath>
#include <deque>

#include "render/backend.h"
#include "render/denoise/denoiser.h"
#include "render/denoise/view_denoiser.h"
#include "render/devices.h"
#include "tests/test_render_util.h"

#if defined(PKRT_HAVE_CUDA)
#include "render/cuda/cuda_backend.h"
#endif

using namespace pkrt;
using namespace pkrt_test;

namespace {

#if defined(PKRT_HAVE_CUDA)
void expect_device_view_is_hosts(const GpuDevice& device, SchedulerMode mode) {
    Scene s = load_prepared(std::string(PKRT_SCENES_DIR) + "/cornell.json");
    const int w = 96, h = 64;
    const size_t n = static_cast<size_t>(w) * h;
    const bool resident = mode == SchedulerMode::kResident;
    auto gpu = make_cuda_backend(device);
    gpu->set_queue_ahead(resident);
    gpu->set_features(true);
    gpu->set_scene(s);
    gpu->reset(w, h);
    RenderSettings rs = settings(w, h, 1, 6, 3, mode);
    rs.features = true;
    std::unique_ptr<ViewDenoiser> on_device = gpu->make_view_denoiser();
    std::unique_ptr<ViewDenoiser> on_host = make_host_view_denoiser(make_cpu_denoiser());
    CameraSpec camera = s.camera;
    std::deque<FrameTicket> queued;
    uint32_t first = 0, generation = 0;
    auto frames = [&](uint32_t count) {
        RenderStats stats;
        for (uint32_t end = first + count; first < end || !queued.empty();) {
            for (; first < end && static_cast<int>(queued.size()) < gpu->capacity(rs); ++first)
                queued.push_back(submit_frame(*gpu, rs, first, 1, generation, first == 0));
            stats.merge(gpu->wait(queued.front()).stats);
            queued.pop_front();
        }
        return stats;
    };
    for (int step = 0; step < 4; ++step) {
        const bool moved = step == 2;
        if (moved) {  // about two pixels sideways at the back wall
            camera.eye.x += 30.0f;
            camera.look_at.x += 30.0f;
            gpu->set_camera(camera);
            ++generation;
            first = 0;
        }
        frames(2);
        ViewRefresh r;
        r.camera = camera;
        r.next_view = moved;
        r.restart = step == 0;
        ASSERT_TRUE(on_device->refresh(*gpu, r)) << on_device->why();
        ASSERT_TRUE(on_host->refresh(*gpu, r)) << on_host->why();
        EXPECT_NE(on_device->device().find("GPU"), std::string::npos) << on_device->device();
        EXPECT_GT(on_device->filter_ms(), 0.0);
        if (resident) {
            EXPECT_NE(on_device->finished_rgba(), nullptr) << "step " << step << ": a host image, for the copy engines";
        } else {
            EXPECT_TRUE(on_device->output_on_device()) << "step " << step << ": the result stays on the device";
        }
        std::vector<float> got(4 * n);
        on_device->copy_accumulation(got.data());
        const float* want = on_host->finished_rgba();
        size_t off = 0;
        for (size_t i = 0; i < 4 * n; ++i) off += std::fabs(got[i] - want[i]) > 1e-3f * (1.0f + std::fabs(want[i]));
        EXPECT_LE(off, 4 * n / 100) << "step " << step << ": channels unlike the host's";
        EXPECT_EQ(got[3], 1.0f) << "an image of means";
        EXPECT_NEAR(on_device->reused(), on_host->reused(), 0.005) << "step " << step;
        if (step >= 2) {
            EXPECT_GT(on_device->reused(), 0.5) << "step " << step << ": most of the box is seen from both views";
        } else {
            EXPECT_EQ(on_device->reused(), 0.0) << "step " << step << ": no view before this one";
        }
        if (resident && step > 0) {
            EXPECT_EQ(frames(1).kernel_launches, 0u) << "step " << step << ": the grid stayed on the GPU";
        }
    }
}
#endif

}  // namespace

TEST(GpuViewDenoiser, PersistentFramesDenoiseOnTheDeviceAsOnTheHost) {
    std::string why;
    std::vector<GpuDevice> gpus = cuda_devices(&why);
    if (gpus.empty()) GTEST_SKIP() << "no CUDA device: " << why;
#if defined(PKRT_HAVE_CUDA)
    expect_device_view_is_hosts(gpus[0], SchedulerMode::kPersistent);
#endif
}

TEST(GpuViewDenoiser, ResidentFramesDenoiseInTheGridAsOnTheHost) {
    std::string why;
    std::vector<GpuDevice> gpus = cuda_devices(&why);
    if (gpus.empty()) GTEST_SKIP() << "no CUDA device: " << why;
#if defined(PKRT_HAVE_CUDA)
    expect_device_view_is_hosts(gpus[0], SchedulerMode::kResident);
#endif
}

// The first refresh grows the denoiser's buffers, and every free in the process first ends the resident
// grids (render/cuda/device_memory.h), here with a frame still queued behind the one shown. That frame
// and the ones after it end whole: the frame protocol never loses a frame to a quit from elsewhere.
TEST(GpuViewDenoiser, ResidentFramesQueuedAcrossTheFirstRefreshAllEnd) {
    std::string why;
    std::vector<GpuDevice> gpus = cuda_devices(&why);
    if (gpus.empty()) GTEST_SKIP() << "no CUDA device: " << why;
#if defined(PKRT_HAVE_CUDA)
    Scene s = load_prepared(std::string(PKRT_SCENES_DIR) + "/cornell.json");
    const int w = 96, h = 64;
    auto gpu = make_cuda_backend(gpus[0]);
    gpu->set_queue_ahead(true);
    gpu->set_features(true);
    gpu->set_scene(s);
    gpu->reset(w, h);
    RenderSettings rs = settings(w, h, 1, 6, 3, SchedulerMode::kResident);
    rs.features = true;
    ASSERT_GE(gpu->capacity(rs), 2);
    std::unique_ptr<ViewDenoiser> view = gpu->make_view_denoiser();
    std::deque<FrameTicket> queued;
    uint32_t begun = 0, ended = 0;
    auto end_one = [&] {
        FrameResult r = gpu->wait(queued.front());
        queued.pop_front();
        ++ended;
        EXPECT_FALSE(r.cancelled) << "frame " << ended;
        EXPECT_EQ(r.stats.samples, uint64_t(w) * h) << "frame " << ended;
        // Each frame's queue records, across the quit and the relaunch too (no counter of another launch).
        EXPECT_LE(r.stats.enqueued, 16 * uint64_t(w) * h) << "frame " << ended;
        const float* rgba = gpu->finished_rgba();
        int short_pixels = rgba ? 0 : w * h;  // alpha: the pixel's samples
        for (int p = 0; rgba && p < w * h; ++p) short_pixels += rgba[4 * p + 3] != static_cast<float>(ended);
        EXPECT_EQ(short_pixels, 0) << "frame " << ended;
        return r;
    };
    for (; begun < 2; ++begun) queued.push_back(submit_frame(*gpu, rs, begun, 1, 0, begun == 0));
    end_one();
    ViewRefresh r;
    r.camera = s.camera;
    r.restart = true;
    ASSERT_TRUE(view->refresh(*gpu, r)) << view->why();  // a frame is queued behind the one it denoises
    queued.push_back(submit_frame(*gpu, rs, begun++, 1, 0, false));
    while (!queued.empty()) end_one();
    ASSERT_TRUE(view->refresh(*gpu, r)) << view->why();
    queued.push_back(submit_frame(*gpu, rs, begun++, 1, 0, false));
    EXPECT_EQ(end_one().stats.kernel_launches, 0u) << "the grid launched again once, and stays";
    gpu->drain();
    for (uint32_t c : gpu->sample_counts()) ASSERT_EQ(c, begun);
#endif
}
