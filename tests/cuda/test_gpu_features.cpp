// Feature buffers on the GPU (kernels/features.h): in every mode, and on two workers sharing a frame, the
// albedo, normal and depth a pixel's samples wrote are the CPU's, as its radiance is. Skips without a
// CUDA device.
#include <gtest/gtest.h>

#include <cmath>
#include <deque>

#include "render/backend.h"
#include "render/devices.h"
#include "render/denoise/denoiser.h"
#include "render/image/aov.h"
#include "tests/test_render_util.h"
#include "tests/test_util.h"

#if defined(PKRT_HAVE_CUDA)
#include "render/cuda/cuda_backend.h"
#endif

using namespace pkrt;
using namespace pkrt_test;

namespace {

const std::string kScenes = PKRT_SCENES_DIR;

// A mirror between the camera and a wall behind it: features written after a specular bounce.
const char* kMirrorScene = R"({
  "camera": {"eye": [0.2, 0.1, 0], "look_at": [0, 0, -1], "up": [0, 1, 0], "fov": 50},
  "environment": {"type": "constant", "color": [0.5, 0.5, 0.5]},
  "materials": {"mirror": {"type": "conductor", "albedo": [0.9, 0.8, 0.5], "roughness": 0},
                "glass": {"type": "dielectric", "ior": 1.5, "roughness": 0},
                "wall": {"type": "diffuse", "albedo": [0.3, 0.6, 0.9]}},
  "meshes": [{"quad": [[-3, -3, -3], [3, -3, -3], [3, 3, -3], [-3, 3, -3]], "material": "mirror"},
             {"sphere": {"center": [0.5, 0, -2], "radius": 0.4, "subdivisions": 3}, "material": "glass"},
             {"quad": [[-9, -9, 2], [-9, 9, 2], [9, 9, 2], [9, -9, 2]], "material": "wall"}]
})";

// Per feature: the share of pixels that differ from the CPU's by more than `tol` in some channel, and
// the mean absolute difference.
struct FeatureDiff {
    double outside = 0.0, mean_abs = 0.0;
};
FeatureDiff compare(const Image& a, const Image& b, float tol) {
    FeatureDiff d;
    for (size_t i = 0; i < a.pixels.size(); ++i) {
        float worst = 0.0f;
        for (int c = 0; c < 3; ++c) {
            float e = std::fabs(a.pixels[i][c] - b.pixels[i][c]);
            worst = std::max(worst, e);
            d.mean_abs += e / 3.0;
        }
        d.outside += worst > tol ? 1.0 : 0.0;
    }
    d.outside /= static_cast<double>(a.pixels.size());
    d.mean_abs /= static_cast<double>(a.pixels.size());
    return d;
}

// `got` against the CPU's features for the same settings. Diffuse surfaces without textures agree to
// float rounding; a few pixels may see another triangle at an edge (FMA), and hardware texture filtering
// moves textured albedo by a few 8-bit steps.
void expect_features_match_cpu(const Scene& s, RenderSettings rs, const FeatureImages& got, float tol,
                               double max_outside, const std::string& what) {
    auto cpu = make_cpu_backend();
    rs.mode.reset();
    rs.features = true;
    FeatureImages ref = render_image(*cpu, s, rs, nullptr).features;
    ASSERT_FALSE(got.empty()) << what;
    struct {
        const char* name;
        const Image &a, &b;
        float tol;
    } layers[] = {{"albedo", got.albedo, ref.albedo, tol},
                  {"normal", got.normal, ref.normal, tol},
                  {"depth", got.depth, ref.depth, tol * 10.0f}};  // depths are metres, not unit quantities
    for (const auto& l : layers) {
        FeatureDiff d = compare(l.a, l.b, l.tol);
        EXPECT_LE(d.outside, max_outside) << what << " " << l.name << ": pixels off by more than " << l.tol;
        EXPECT_LT(d.mean_abs, l.tol * 0.1) << what << " " << l.name << ": mean absolute difference";
    }
}

}  // namespace

TEST(GpuFeatures, EveryModeWritesTheCpusFeatures) {
    std::string why;
    std::vector<GpuDevice> gpus = cuda_devices(&why);
    if (gpus.empty()) GTEST_SKIP() << "no CUDA device: " << why;
#if defined(PKRT_HAVE_CUDA)
    TempDir dir;
    struct Case {
        std::string what;
        Scene scene;
        float tol;
        double max_outside;
    };
    std::vector<Case> cases;
    cases.push_back({"cornell", load_prepared(kScenes + "/cornell.json"), 1e-3f, 0.002});
    cases.push_back({"mirror and glass", load_prepared(dir.write("mirror.json", kMirrorScene)), 1e-3f, 0.01});
    const char* helmet = "gltf/DamagedHelmet/glTF-Binary/DamagedHelmet.glb";
    if (std::filesystem::exists(shared_scene(helmet)))
        cases.push_back({"DamagedHelmet", load_prepared(shared_scene(helmet)), 0.03f, 0.02});
    for (const Case& c : cases) {
        for (SchedulerMode mode : all_modes()) {
            std::string what = c.what + " " + mode_name(mode);
            auto gpu = make_cuda_backend(gpus[0]);
            RenderSettings rs = settings(64, 48, 4, 6, 11, mode);
            rs.features = true;
            RenderOutput out = render_image(*gpu, c.scene, rs, nullptr);
            expect_features_match_cpu(c.scene, rs, out.features, c.tol, c.max_outside, what);
            // Turned off, the next image keeps none, and turned on again they start from zero.
            rs.features = false;
            EXPECT_TRUE(render_image(*gpu, c.scene, rs, nullptr).features.empty()) << what;
            rs.features = true;
            RenderOutput again = render_image(*gpu, c.scene, rs, nullptr);
            expect_features_match_cpu(c.scene, rs, again.features, c.tol, c.max_outside, what + " (again)");
        }
    }
#endif
}

TEST(GpuFeatures, AdaptiveRoundsAndSharedFramesKeepThem) {
    std::string why;
    std::vector<GpuDevice> gpus = cuda_devices(&why);
    if (gpus.empty()) GTEST_SKIP() << "no CUDA device: " << why;
#if defined(PKRT_HAVE_CUDA)
    Scene s = load_prepared(kScenes + "/cornell.json");
    // Adaptive rounds write odd-numbered samples to the framebuffer's second half; their features go
    // to the pixel's one set.
    for (SchedulerMode mode : all_modes()) {
        auto gpu = make_cuda_backend(gpus[0]);
        RenderSettings rs = settings(40, 28, 32, 5, 7, mode);
        rs.features = true;
        rs.adaptive = adaptive_settings(1e-6f, 8, 32);
        RenderOutput out = render_image(*gpu, s, rs, nullptr);
        RenderSettings uniform = settings(40, 28, 32, 5, 7);
        expect_features_match_cpu(s, uniform, out.features, 1e-3f, 0.002, std::string("adaptive ") + mode_name(mode));
    }
    // Two workers on one device share a persistent frame's paths (and other modes' samples).
    for (SchedulerMode mode : {SchedulerMode::kPersistent, SchedulerMode::kRelaunch}) {
        auto two = make_multi_gpu_backend({gpus[0], gpus[0]});
        RenderSettings rs = settings(64, 64, 8, 6, 3, mode);
        rs.features = true;
        RenderOutput out = render_image(*two, s, rs, nullptr);
        expect_features_match_cpu(s, rs, out.features, 1e-3f, 0.002, std::string("two workers ") + mode_name(mode));
    }
#endif
}

// The GPU's denoiser runs the CPU's steps (kernels/denoise.h): the same image to float rounding (the
// device's expf and powf), and its filter time is measured.
TEST(GpuFeatures, TheDenoiserIsTheCpus) {
    std::string why;
    std::vector<GpuDevice> gpus = cuda_devices(&why);
    if (gpus.empty()) GTEST_SKIP() << "no CUDA device: " << why;
#if defined(PKRT_HAVE_CUDA)
    Scene s = load_prepared(kScenes + "/cornell.json");
    auto cpu = make_cpu_backend();
    RenderSettings rs = settings(96, 64, 4, 8, 5);
    rs.features = true;
    RenderOutput out = render_image(*cpu, s, rs, nullptr);
    Image on_cpu = make_cpu_denoiser()->denoise(out.image, out.features);
    auto gpu = make_cuda_backend(gpus[0]);
    std::unique_ptr<Denoiser> d = gpu->make_denoiser();
    EXPECT_NE(d->device().find("GPU"), std::string::npos) << d->device();
    Image on_gpu = d->denoise(out.image, out.features);
    EXPECT_GT(d->last_device_ms(), 0.0);
    ASSERT_EQ(on_gpu.pixels.size(), on_cpu.pixels.size());
    size_t off = 0;
    for (size_t i = 0; i < on_cpu.pixels.size(); ++i)
        for (int c = 0; c < 3; ++c)
            off += std::fabs(on_gpu.pixels[i][c] - on_cpu.pixels[i][c]) > 1e-3f * (1.0f + on_cpu.pixels[i][c]);
    EXPECT_LE(off, on_cpu.pixels.size() / 1000) << "channels off by more than 0.1%";
    // Twice in a row (buffers kept), and a larger image after a smaller one.
    Image again = d->denoise(out.image, out.features);
    EXPECT_EQ(again.pixels[100].y, on_gpu.pixels[100].y);
#endif
}

// Resident mode, frames queued ahead as the viewer runs them: the kernel packs each frame's features
// with its image (the live buffers already hold the next frame's samples), and the denoiser's steps run
// as a job of the resident grid, which stays on the GPU: the same image as the launched kernels give.
TEST(GpuFeatures, ResidentFramesCarryTheirFeaturesAndTheGridDenoises) {
    std::string why;
    std::vector<GpuDevice> gpus = cuda_devices(&why);
    if (gpus.empty()) GTEST_SKIP() << "no CUDA device: " << why;
#if defined(PKRT_HAVE_CUDA)
    Scene s = load_prepared(kScenes + "/cornell.json");
    const int w = 96, h = 64;
    const uint32_t frames = 4;
    auto gpu = make_cuda_backend(gpus[0]);
    gpu->set_queue_ahead(true);
    gpu->set_features(true);
    gpu->set_scene(s);
    gpu->reset(w, h);
    RenderSettings rs = settings(w, h, 1, 6, 3, SchedulerMode::kResident);
    rs.features = true;
    std::deque<FrameTicket> queued;
    uint32_t begun = 0;
    auto run_frames = [&](uint32_t n) {
        RenderStats stats;
        for (uint32_t end = begun + n; begun < end || !queued.empty();) {
            for (; begun < end && static_cast<int>(queued.size()) < gpu->capacity(rs); ++begun)
                queued.push_back(submit_frame(*gpu, rs, begun, 1, 1, begun == 0));
            stats.merge(gpu->wait(queued.front()).stats);
            queued.pop_front();
        }
        return stats;
    };
    run_frames(frames);
    ASSERT_NE(gpu->finished_rgba(), nullptr) << "resident frames queued ahead show their packed images";
    Accumulation acc;
    gpu->accumulation(acc);
    ASSERT_EQ(acc.features.size(), kFeatureFloats * static_cast<size_t>(w) * h);
    FeatureImages f = resolve_features(acc);
    RenderSettings cpu_rs = settings(w, h, frames, 6, 3);
    expect_features_match_cpu(s, cpu_rs, f, 1e-3f, 0.002, "resident snapshot");
    const Image color = resolve_accumulation(acc);

    std::unique_ptr<Denoiser> d = gpu->make_denoiser();
    const Image launched = d->denoise(color, f);  // its buffers are allocated with no grid on the GPU
    EXPECT_EQ(run_frames(1).kernel_launches, 1u) << "the first frame after the allocation starts the grid again";
    for (int round = 0; round < 3; ++round) {
        const Image by_grid = d->denoise(color, f);
        EXPECT_GT(d->last_device_ms(), 0.0);
        size_t off = 0;
        for (size_t i = 0; i < launched.pixels.size(); ++i)
            for (int c = 0; c < 3; ++c)
                off += std::fabs(by_grid.pixels[i][c] - launched.pixels[i][c]) > 1e-5f * (1.0f + launched.pixels[i][c]);
        EXPECT_EQ(off, 0u) << "round " << round << ": channels unlike the launched kernels'";
        EXPECT_EQ(run_frames(2).kernel_launches, 0u) << "round " << round << ": the grid stayed on the GPU";
    }
    for (uint32_t c : gpu->sample_counts()) ASSERT_EQ(c, frames + 7) << "every frame's samples, none lost";
#endif
}
