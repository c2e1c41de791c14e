// GPU schedulers (CTest label `gpu`): conservation of samples and queue records, agreement with the
// CPU backend sample for sample, a tiny queue, extreme grid sizes, cancellation and statistics.
// Without a CUDA device every test skips with the reason.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <set>
#include <tuple>
#include <cmath>
#include <fstream>
#include <future>
#include <thread>

#include "render/backend.h"
#include "render/devices.h"
#include "render/error.h"
#include "render/image/image.h"
#include "render/scene/scene.h"
#include "render/sequence.h"
#if defined(PKRT_HAVE_CUDA)
#include <cuda_runtime.h>
#endif
#include "tests/test_render_util.h"
#include "tests/test_util.h"

#if defined(PKRT_HAVE_CUDA)
#include "kernels/gpu/gpu_records.h"
#include "render/cuda/cuda_backend.h"
#endif

using namespace pkrt;

namespace {

const std::string kScenes = PKRT_SCENES_DIR;
const SchedulerMode kModes[] = {SchedulerMode::kPersistent, SchedulerMode::kRelaunch, SchedulerMode::kGraph,
                                SchedulerMode::kMegakernel, SchedulerMode::kResident};

#define REQUIRE_GPU()                                        \
    std::string why_no_gpu;                                  \
    std::vector<GpuDevice> gpus = cuda_devices(&why_no_gpu); \
    if (gpus.empty()) GTEST_SKIP() << "no CUDA device: " << why_no_gpu;

using pkrt_test::load_prepared;
using pkrt_test::mean;
using pkrt_test::rms_difference;
using pkrt_test::settings;
using pkrt_test::submit_frame;

#if defined(PKRT_HAVE_CUDA)
std::unique_ptr<Backend> gpu_backend(const GpuDevice& d, SchedulerOptions o = {}) { return make_cuda_backend(d, o); }
#endif

// The GPU image with the CPU's seed must sit far closer to the CPU image than two CPU images with
// different seeds sit to each other: the paths are the same ones, only float rounding (FMA, hardware
// texture filtering) lets a few diverge. And the means agree within 1%. From the scene's camera, or
// `camera`; returns the GPU's render.
// `got` against the CPU's render of `view` with the settings' seed (their mode ignored), as above.
void expect_image_matches_cpu(const Scene& scene, const CameraSpec& view, RenderSettings rs, const Image& got,
                              const std::string& what) {
    auto cpu = make_cpu_backend();
    rs.mode.reset();
    Image ref = render_view(*cpu, scene, view, rs, nullptr).image;
    rs.seed += 1000;
    Image noise = render_view(*cpu, scene, view, rs, nullptr).image;
    double noise_rms = rms_difference(ref, noise);
    double diff_rms = rms_difference(ref, got);
    double rel_mean = std::fabs(mean(got) - mean(ref)) / mean(ref);
    EXPECT_LT(diff_rms, 0.3 * noise_rms) << what << ": GPU-vs-CPU rms " << diff_rms << ", CPU seed-to-seed rms "
                                         << noise_rms;
    EXPECT_LT(rel_mean, 0.01) << what << ": mean " << mean(got) << " vs CPU " << mean(ref);
}

RenderOutput expect_matches_cpu(const Scene& scene, Backend& gpu, const RenderSettings& rs, const std::string& what,
                                const CameraSpec* camera = nullptr) {
    const CameraSpec& view = camera ? *camera : scene.camera;
    RenderOutput g = render_view(gpu, scene, view, rs, nullptr);
    expect_image_matches_cpu(scene, view, rs, g.image, what);
    std::vector<uint32_t> counts = gpu.sample_counts();
    for (uint32_t c : counts) EXPECT_EQ(c, static_cast<uint32_t>(rs.spp)) << what;
    return g;
}

#if defined(PKRT_HAVE_CUDA)
// expect_matches_cpu in every mode, each on a fresh backend; `rs` without its mode.
void expect_every_mode_matches_cpu(const Scene& scene, const GpuDevice& d, RenderSettings rs, const std::string& what) {
    for (SchedulerMode mode : kModes) {
        auto gpu = gpu_backend(d);
        rs.mode = mode;
        expect_matches_cpu(scene, *gpu, rs, what + " " + mode_name(mode));
    }
}
#endif

}  // namespace

TEST(Gpu, EveryModeMatchesTheCpuOnTheCornellBox) {
    REQUIRE_GPU();
#if defined(PKRT_HAVE_CUDA)
    for (BvhLayout layout : all_bvh_layouts()) {  // each layout's GPU builds against the CPU's traversal
        Scene s = load_scene(kScenes + "/cornell.json");
        prepare_scene(s, layout);
        expect_every_mode_matches_cpu(s, gpus[0], settings(64, 64, 16, 8, 1), "cornell " + bvh_layout_name(layout));
    }
#endif
}

// An importance-sampled environment map (a small bright spot over a gradient, rotated) lighting a
// conductor and a diffuse floor: the map's texels and CDFs as uploaded, its lookups and samples on the
// device, against the CPU sample for sample.
TEST(Gpu, EveryModeMatchesTheCpuUnderAnEnvironmentMap) {
    REQUIRE_GPU();
#if defined(PKRT_HAVE_CUDA)
    pkrt_test::TempDir dir;
    Image map;
    map.width = 64;
    map.height = 32;
    for (int y = 0; y < map.height; ++y)
        for (int x = 0; x < map.width; ++x)
            map.pixels.push_back(x >= 20 && x < 23 && y >= 8 && y < 10
                                     ? Vec3{400, 300, 200}
                                     : Vec3{0.1f + x / 64.0f, 0.2f + (32 - y) / 32.0f, 0.4f});
    write_exr(dir.file("map.exr"), map);
    dir.write("s.json", R"({"camera": {"eye": [0, 1.5, 4], "look_at": [0, 0.5, 0], "fov": 45},
        "environment": {"type": "map", "file": "map.exr", "rotation": 30, "intensity": 0.5},
        "materials": {"clay": {"albedo": [0.8, 0.6, 0.4]}, "gold": {"type": "conductor", "albedo": [1, 0.8, 0.4], "roughness": 0.3}},
        "meshes": [{"sphere": {"center": [0, 1, 0], "radius": 1, "subdivisions": 3}, "material": "gold"},
                   {"quad": [[-3, 0, -3], [-3, 0, 3], [3, 0, 3], [3, 0, -3]], "material": "clay"}]})");
    Scene s = load_prepared(dir.file("s.json"));
    expect_every_mode_matches_cpu(s, gpus[0], settings(48, 48, 16, 6, 1), "environment map");
#endif
}

TEST(Gpu, EveryModeMatchesTheCpuOnDabrovicSponza) {
    REQUIRE_GPU();
#if defined(PKRT_HAVE_CUDA)
    REQUIRE_SHARED_SCENE("dabrovic-sponza/sponza.obj");
    Scene s = load_scene(pkrt_test::shared_scene("dabrovic-sponza/sponza.obj"));
    s.camera.eye = {-14, 3, 0};  // the camera the scene's README suggests
    s.camera.look_at = {10, 5, 0};
    s.camera.vfov_degrees = 60;
    for (BvhLayout layout : all_bvh_layouts()) {
        Scene p = s;
        prepare_scene(p, layout);
        expect_every_mode_matches_cpu(p, gpus[0], settings(64, 48, 16, 6, 3), "sponza " + bvh_layout_name(layout));
    }
#endif
}

// glTF's material inputs through the device's texture objects (address modes, sRGB or linear, the uv
// transform, tangent-space normal maps, textured emission and metal-rough) against the CPU's software
// sampling, under the automatic camera and sky.
TEST(Gpu, EveryModeMatchesTheCpuOnGltfModels) {
    REQUIRE_GPU();
#if defined(PKRT_HAVE_CUDA)
    for (const char* rel : {"gltf/TextureTransformTest/glTF/TextureTransformTest.gltf",
                            "gltf/NormalTangentMirrorTest/glTF/NormalTangentMirrorTest.gltf",
                            "gltf/DamagedHelmet/glTF-Binary/DamagedHelmet.glb"}) {
        REQUIRE_SHARED_SCENE(rel);
        Scene s = load_scene(pkrt_test::shared_scene(rel));
        prepare_scene(s);
        expect_every_mode_matches_cpu(s, gpus[0], settings(64, 64, 16, 6, 5), rel);
    }
#endif
}

// Scenes as exporters write them: a cut-out leaf (map_d), a normal-mapped floor and a bump-mapped wall
// through backslash paths of the wrong case, in both BVH layouts; then glTF's alpha modes (MASK at three
// cut-offs, BLEND) and its texture encodings. The coverage test runs in traversal on both sides.
TEST(Gpu, EveryModeMatchesTheCpuOnCutoutsAndMaterialMaps) {
    REQUIRE_GPU();
#if defined(PKRT_HAVE_CUDA)
    pkrt_test::TempDir dir;
    std::string path = pkrt_test::write_cutout_scene(dir.path().string());
    for (BvhLayout layout : all_bvh_layouts()) {
        Scene s = load_scene(path);
        ASSERT_TRUE(needs_full_shading(s));
        prepare_scene(s, layout);
        expect_every_mode_matches_cpu(s, gpus[0], settings(64, 64, 32, 6, 7), "cut-outs " + bvh_layout_name(layout));
    }
    for (const char* rel : {"gltf/AlphaBlendModeTest/glTF-Binary/AlphaBlendModeTest.glb",
                            "gltf/TextureEncodingTest/glTF-Binary/TextureEncodingTest.glb"}) {
        REQUIRE_SHARED_SCENE(rel);
        Scene s = load_scene(pkrt_test::shared_scene(rel));
        prepare_scene(s);
        expect_every_mode_matches_cpu(s, gpus[0], settings(96, 64, 16, 6, 9), rel);
    }
#endif
}

TEST(Gpu, ConservationOfSamplesAndQueueRecords) {
    REQUIRE_GPU();
#if defined(PKRT_HAVE_CUDA)
    Scene s = load_prepared(kScenes + "/cornell.json");
    const int w = 96, h = 64, spp = 8, depth = 12;
    for (SchedulerMode mode : kModes) {
        SCOPED_TRACE(mode_name(mode));
        auto gpu = gpu_backend(gpus[0]);
        RenderOutput out = render_image(*gpu, s, settings(w, h, spp, depth, 9, mode), nullptr);
        const RenderStats& st = out.stats;
        uint64_t n = static_cast<uint64_t>(w) * h * spp;
        EXPECT_EQ(st.paths_generated, n);
        EXPECT_EQ(st.paths_completed, n);
        EXPECT_EQ(st.samples, n);
        EXPECT_EQ(st.enqueued, st.dequeued);
        EXPECT_EQ(st.extension_rays_by_depth[0], n) << "one camera ray per sample";
        for (uint32_t c : gpu->sample_counts()) ASSERT_EQ(c, static_cast<uint32_t>(spp));
        if (mode == SchedulerMode::kPersistent) {
            EXPECT_EQ(st.kernel_launches, st.frames) << "one launch per frame";
            EXPECT_GT(st.enqueued, n) << "bounces and shadow rays go through the queues";
        } else if (mode == SchedulerMode::kRelaunch) {
            EXPECT_EQ(st.kernel_launches, st.frames * (1 + 3 * (depth + 1)));
        } else {
            EXPECT_EQ(st.kernel_launches, st.frames);
        }
    }
#endif
}

// Two workers on one GPU (`--devices 0,0`) render the image of one worker with the same seed: every
// pixel's count equal, its sums equal up to the order of float additions. Persistent frames share their
// paths through the device's chunk counter, with grids of one block per SM so that both run at once and
// both take chunks; relaunch frames share samples through the host.
TEST(Gpu, TwoWorkersOnOneDeviceRenderTheImageOfOne) {
    REQUIRE_GPU();
#if defined(PKRT_HAVE_CUDA)
    Scene scene = load_prepared(kScenes + "/cornell.json");
    for (SchedulerMode mode : {SchedulerMode::kPersistent, SchedulerMode::kRelaunch}) {
        const std::string what = mode_name(mode);
        RenderSettings rs = settings(256, 256, 16, 8, 7, mode);
        SchedulerOptions o;
        o.grid_blocks = gpus[0].multiprocessors;
        auto one = gpu_backend(gpus[0], o);
        RenderOutput single = render_view(*one, scene, scene.camera, rs, nullptr, false);
        auto two = make_multi_gpu_backend({gpus[0], gpus[0]}, o);
        RenderOutput shared = render_view(*two, scene, scene.camera, rs, nullptr, false);
        const Accumulation &a = single.accumulation, &b = shared.accumulation;
        ASSERT_EQ(a.counts.size(), b.counts.size()) << what;
        for (size_t i = 0; i < a.counts.size(); ++i) ASSERT_EQ(b.counts[i], 16u) << what << " pixel " << i;
        double worst = 0.0;
        for (size_t i = 0; i < a.sums.size(); ++i)
            worst = std::max(worst, std::fabs(a.sums[i] - b.sums[i]) / (1.0 + std::fabs(a.sums[i])));
        EXPECT_LT(worst, 1e-4) << what << ": the largest per-pixel difference of the sums";
        const RenderStats& st = shared.stats;
        ASSERT_EQ(st.devices.size(), 2u) << what;
        EXPECT_EQ(st.devices[0].samples + st.devices[1].samples, 256u * 256u * 16u) << what;
        EXPECT_GT(st.devices[0].samples, 0u) << what << ": the first worker took no work";
        EXPECT_GT(st.devices[1].samples, 0u) << what << ": the second worker took no work";
        EXPECT_EQ(st.paths_completed, 256u * 256u * 16u) << what;
        EXPECT_EQ(st.work_sharing, mode == SchedulerMode::kPersistent ? "paths in chunks from a device counter"
                                                                      : "samples in chunks from the host")
            << what;
    }
#endif
}

// The phase breakdown (the viewer's "persistent phase" table) times one warp iteration in eight and
// scales it up: the phases every frame passes through are charged, and no more cycles than the grid's
// warps can have spent in the frame.
TEST(Gpu, PersistentPhasesAccountForTheFrame) {
    REQUIRE_GPU();
#if defined(PKRT_HAVE_CUDA)
    Scene s = load_prepared(kScenes + "/cornell.json");
    // One wave of the latency build (1,024 paths), and many waves of a throughput build (262,144 paths:
    // more than the latency build's 67,584 lanes on the H200; 256x256 would still be one wave).
    for (int res : {32, 512}) {
        SCOPED_TRACE(res);
        auto gpu = gpu_backend(gpus[0]);
        RenderOutput out = render_image(*gpu, s, settings(res, res, 1, 8, 3, SchedulerMode::kPersistent), nullptr);
        const RenderStats& st = out.stats;
        ASSERT_EQ(st.phase_cycles.size(), static_cast<size_t>(kPhaseCount));
        EXPECT_GT(st.phase_cycles[kPhaseTrace], 0u);
        EXPECT_GT(st.phase_cycles[kPhaseShade], 0u);
        EXPECT_GT(st.phase_cycles[kPhaseFetch], 0u);
        double total = 0.0, gpu_ms = 0.0;
        for (uint64_t c : st.phase_cycles) total += static_cast<double>(c);
        for (double ms : st.frame_gpu_ms) gpu_ms += ms;
        // Every warp of the grid for the whole frame at 3 GHz (the H200 runs at most 1.98), twice over
        // for the sampling's noise.
        double bound = 2.0 * st.grid_blocks * (st.block_threads / 32) * gpu_ms * 1e-3 * 3e9;
        EXPECT_LT(total, bound);
    }
#endif
}

TEST(Gpu, TinyQueueRendersTheSameImage) {
    REQUIRE_GPU();
#if defined(PKRT_HAVE_CUDA)
    Scene s = load_prepared(kScenes + "/cornell.json");
    SchedulerOptions tiny;
    tiny.queue_capacity = 64;
    tiny.shadow_rays = ShadowRays::kQueued;  // so that shadow rays traced at once can only mean a full queue
    auto small = gpu_backend(gpus[0], tiny);
    auto normal = gpu_backend(gpus[0]);
    RenderSettings rs = settings(64, 64, 8, 8, 4, SchedulerMode::kPersistent);
    RenderOutput a = render_image(*small, s, rs, nullptr);
    RenderOutput b = render_image(*normal, s, rs, nullptr);
    EXPECT_EQ(a.stats.paths_completed, 64u * 64u * 8u);
    EXPECT_EQ(a.stats.enqueued, a.stats.dequeued);
    EXPECT_LE(a.stats.peak_queue, 128u) << "never more than capacity per queue";
    EXPECT_GT(a.stats.kept_paths + a.stats.inline_shadows, 0u) << "a 64-entry queue must overflow and fall back";
    for (uint32_t c : small->sample_counts()) ASSERT_EQ(c, 8u);
    // Same paths, same seed: the images agree up to float accumulation order.
    EXPECT_LT(rms_difference(a.image, b.image), 1e-3 * (1.0 + mean(b.image)));
#endif
}

TEST(Gpu, SingleBlockAndFullGridBothTerminate) {
    REQUIRE_GPU();
#if defined(PKRT_HAVE_CUDA)
    Scene s = load_prepared(kScenes + "/cornell.json");
    SchedulerOptions one;
    one.grid_blocks = 1;
    auto single = gpu_backend(gpus[0], one);
    RenderOutput a = render_image(*single, s, settings(32, 32, 4, 8, 2, SchedulerMode::kPersistent), nullptr);
    EXPECT_EQ(a.stats.grid_blocks, 1);
    EXPECT_EQ(a.stats.paths_completed, 32u * 32u * 4u);
    auto full = gpu_backend(gpus[0]);
    RenderOutput b = render_image(*full, s, settings(32, 32, 4, 8, 2, SchedulerMode::kPersistent), nullptr);
    EXPECT_GT(b.stats.grid_blocks, gpus[0].multiprocessors - 1);
    EXPECT_EQ(b.stats.paths_completed, 32u * 32u * 4u);
    EXPECT_LT(rms_difference(a.image, b.image), 1e-3 * (1.0 + mean(b.image)));
    // One block more than can be co-resident is refused with the reason.
    SchedulerOptions too_many;
    too_many.grid_blocks = b.stats.grid_blocks + 1;
    try {
        gpu_backend(gpus[0], too_many);
        ADD_FAILURE() << "an oversized persistent grid must be refused";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("co-resident"), std::string::npos) << e.what();
    }
#endif
}

TEST(Gpu, PersistentVariantsAlsoMatch) {
    REQUIRE_GPU();
#if defined(PKRT_HAVE_CUDA)
    Scene s = load_prepared(kScenes + "/cornell.json");
    SchedulerOptions direct;
    direct.shadow_rays = ShadowRays::kInline;  // shadow rays traced where they are cast
    direct.fetch_threshold = 32;
    auto b = gpu_backend(gpus[0], direct);
    expect_matches_cpu(s, *b, settings(64, 64, 16, 8, 1, SchedulerMode::kPersistent), "persistent, shadow rays inline");
    SchedulerOptions sorted;
    sorted.stragglers = Stragglers::kSorted;  // pooled; new camera paths only into empty warps
    auto d = gpu_backend(gpus[0], sorted);
    expect_matches_cpu(s, *d, settings(64, 64, 16, 8, 1, SchedulerMode::kPersistent), "persistent, sorted pooling");
    for (int v : persistent_builds()) {
        SchedulerOptions fixed;
        fixed.blocks_per_sm = v;
        auto g = gpu_backend(gpus[0], fixed);
        RenderSettings rs = settings(64, 64, 16, 8, 1, SchedulerMode::kPersistent);
        expect_matches_cpu(s, *g, rs, "persistent, blocks_per_sm " + std::to_string(v));
        RenderStats st;
        g->accumulate(rs, 0, 1, st);
        EXPECT_EQ(st.blocks_per_sm, v);
    }
    // Automatic: the latency variant while a frame's paths fit in its lanes, the throughput one beyond.
    auto a4 = gpu_backend(gpus[0]);
    RenderOutput small = render_image(*a4, s, settings(32, 32, 1, 8, 1, SchedulerMode::kPersistent), nullptr);
    EXPECT_EQ(small.stats.blocks_per_sm, 4);
    RenderOutput large = render_image(*a4, s, settings(640, 480, 1, 8, 1, SchedulerMode::kPersistent), nullptr);
    EXPECT_EQ(large.stats.blocks_per_sm, 10);
    EXPECT_GT(large.stats.grid_blocks, small.stats.grid_blocks) << "more resident blocks of the smaller variant";
#endif
}

// Bounce rays traced in bin order (ray_order=binned) are the same paths: the image is the CPU's, in both
// wavefront modes and both layouts, and with waves smaller than the frame (slots past a bounce's count
// must sort last, wave after wave).
TEST(Gpu, BinnedRayOrderMatchesTheCpu) {
    REQUIRE_GPU();
#if defined(PKRT_HAVE_CUDA)
    for (BvhLayout layout : all_bvh_layouts()) {
        Scene s = load_scene(kScenes + "/cornell.json");
        prepare_scene(s, layout);
        for (SchedulerMode mode : {SchedulerMode::kRelaunch, SchedulerMode::kGraph}) {
            for (uint32_t wave : {1u << 21, 1000u}) {
                SchedulerOptions binned;
                binned.ray_order = RayOrder::kBinned;
                binned.wave_capacity = wave;
                auto g = gpu_backend(gpus[0], binned);
                expect_matches_cpu(s, *g, settings(64, 64, 16, 8, 1, mode),
                                   std::string("binned ") + mode_name(mode) + " " + bvh_layout_name(layout) +
                                       ", waves of " + std::to_string(wave));
            }
        }
    }
#endif
}

TEST(Gpu, CancellingALongFrameReturnsQuickly) {
    REQUIRE_GPU();
#if defined(PKRT_HAVE_CUDA)
    Scene s = load_prepared(kScenes + "/spheres.json");
    auto gpu = gpu_backend(gpus[0]);
    gpu->set_scene(s);
    gpu->reset(1920, 1080);
    RenderSettings rs = settings(1920, 1080, 512, 64, 1, SchedulerMode::kPersistent);
    RenderStats st;
    auto t0 = std::chrono::steady_clock::now();
    auto done = std::async(std::launch::async, [&] { gpu->accumulate(rs, 0, 512, st); });
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    ASSERT_EQ(done.wait_for(std::chrono::milliseconds(0)), std::future_status::timeout) << "the frame must be long";
    auto cancel_at = std::chrono::steady_clock::now();
    gpu->interrupt();
    done.get();
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - cancel_at).count();
    EXPECT_LT(ms, 100.0) << "cancel took " << ms << " ms";
    // The backend is usable afterwards: a fresh frame completes and conserves samples.
    gpu->reset(32, 32);
    RenderStats st2;
    gpu->accumulate(settings(32, 32, 2, 8, 1, SchedulerMode::kPersistent), 0, 2, st2);
    for (uint32_t c : gpu->sample_counts()) ASSERT_EQ(c, 2u);
    (void)t0;
#endif
}

// submit() only queues the frame (the viewer draws meanwhile); wait() waits for it. The
// split frame is the same frame: same samples, same statistics.
TEST(Gpu, BegunFramesRunWhileTheHostWorksAndEndTheSame) {
    REQUIRE_GPU();
#if defined(PKRT_HAVE_CUDA)
    using clock = std::chrono::steady_clock;
    auto ms = [](clock::time_point a, clock::time_point b) {
        return std::chrono::duration<double, std::milli>(b - a).count();
    };
    Scene s = load_prepared(kScenes + "/spheres.json");
    for (SchedulerMode mode : kModes) {
        auto gpu = gpu_backend(gpus[0]);
        gpu->set_scene(s);
        // 1.8 M paths: one wave (earlier waves of a larger frame are waited for inside begin).
        RenderSettings rs = settings(1280, 720, 2, 16, 5, mode);
        gpu->reset(1280, 720);
        RenderStats whole;
        gpu->accumulate(rs, 0, 2, whole);  // also warms up (graph capture, first launches)
        Image a = gpu->resolve();
        gpu->reset(1280, 720);
        auto t0 = clock::now();
        FrameTicket ticket = submit_frame(*gpu, rs, 0, 2);
        auto t1 = clock::now();
        RenderStats split;
        split.merge(gpu->wait(ticket).stats);
        auto t2 = clock::now();
        EXPECT_LT(ms(t0, t1), 0.5 * ms(t0, t2))
            << mode_name(mode) << ": begin took " << ms(t0, t1) << " of " << ms(t0, t2) << " ms";
        EXPECT_EQ(split.samples, whole.samples) << mode_name(mode);
        EXPECT_EQ(split.total_rays(), whole.total_rays()) << mode_name(mode);
        for (uint32_t c : gpu->sample_counts()) ASSERT_EQ(c, 2u) << mode_name(mode);
        Image b = gpu->resolve();
        EXPECT_LT(rms_difference(a, b), 1e-3 * (1.0 + mean(a))) << mode_name(mode);
        // A frame still in flight when the framebuffer changes is finished first, not torn.
        submit_frame(*gpu, rs, 2, 2);
        gpu->reset(64, 64);
        RenderStats after;
        gpu->accumulate(settings(64, 64, 2, 8, 1, mode), 0, 2, after);
        for (uint32_t c : gpu->sample_counts()) ASSERT_EQ(c, 2u) << mode_name(mode);
    }
#endif
}

// The automatic policy (render/policy_tuner.h) times its candidates on a configuration's first frames,
// then keeps the fastest, and starts again when the configuration changes. All policies trace the same
// paths.
TEST(Gpu, SchedulingPolicyIsMeasuredPerConfiguration) {
    REQUIRE_GPU();
#if defined(PKRT_HAVE_CUDA)
    Scene s = load_prepared(kScenes + "/cornell.json");
    auto gpu = gpu_backend(gpus[0]);
    gpu->set_scene(s);
    using Policy = std::tuple<int, int, int, bool>;  // variant, shadows queued, pooling, trial
    auto frames = [&](int w, int h, int n) {
        gpu->reset(w, h);
        std::vector<Policy> policy;
        std::vector<uint64_t> rays;
        for (int i = 0; i < n; ++i) {
            RenderStats st;
            gpu->accumulate(settings(w, h, 1, 8, 1, SchedulerMode::kPersistent), 0, 1,
                            st);  // the same samples every frame
            policy.emplace_back(st.blocks_per_sm, st.shadows_queued, st.stragglers_sorted, st.policy_trial);
            rays.push_back(st.total_rays());
        }
        return std::make_pair(policy, rays);
    };
    // A small frame: the 128-register variant, shadow rays queued or in place, each tried twice.
    auto [p1, r1] = frames(96, 96, 6);
    EXPECT_EQ(p1[0], Policy(4, 1, 0, true));
    EXPECT_EQ(p1[1], Policy(4, 0, 0, true));
    EXPECT_EQ(p1[2], Policy(4, 1, 0, true));
    EXPECT_EQ(p1[3], Policy(4, 0, 0, true));
    EXPECT_FALSE(std::get<3>(p1[4]));
    EXPECT_EQ(p1[5], p1[4]);
    for (uint64_t r : r1) EXPECT_EQ(r, r1[0]) << "every policy traces the same rays";
    // A large frame: 48 or 64 registers, shadows queued or not, stragglers kept or sorted: 8 trials.
    auto [p2, r2] = frames(640, 480, 10);
    std::set<Policy> tried(p2.begin(), p2.begin() + 8);
    EXPECT_EQ(tried.size(), 8u);
    for (int i = 0; i < 8; ++i) EXPECT_TRUE(std::get<3>(p2[i])) << i;
    EXPECT_FALSE(std::get<3>(p2[8]));
    EXPECT_EQ(p2[9], p2[8]);
    EXPECT_TRUE(tried.count(Policy(std::get<0>(p2[8]), std::get<1>(p2[8]), std::get<2>(p2[8]), true)));
    for (uint64_t r : r2) EXPECT_EQ(r, r2[0]) << "every policy traces the same rays";
    // Fixed options leave nothing to try.
    SchedulerOptions fixed;
    fixed.shadow_rays = ShadowRays::kInline;
    fixed.stragglers = Stragglers::kKept;
    auto direct = gpu_backend(gpus[0], fixed);
    RenderOutput o = render_image(*direct, s, settings(64, 64, 2, 8, 1, SchedulerMode::kPersistent), nullptr);
    EXPECT_EQ(o.stats.shadows_queued, 0);
    EXPECT_FALSE(o.stats.policy_trial);
    EXPECT_EQ(o.stats.inline_shadows, o.stats.shadow_rays) << "every shadow ray traced where cast";
#endif
}

// Dropped NaN contributions are counted on the GPU exactly as on the CPU: the same paths drop the same
// contributions (a handful may differ where float rounding changes a hit).
TEST(Gpu, NonFiniteContributionsAreCountedLikeTheCpu) {
    REQUIRE_GPU();
#if defined(PKRT_HAVE_CUDA)
    Scene s = load_prepared(kScenes + "/cornell.json");
    for (size_t i = 0; i < s.material_names.size(); ++i)
        if (s.material_names[i] == "light") s.materials[i].emission = splat(std::nanf(""));
    auto cpu = make_cpu_backend();
    RenderOutput ref = render_image(*cpu, s, settings(48, 48, 4, 4, 1), nullptr);
    ASSERT_GT(ref.stats.nonfinite_samples, 48u * 48u);
    for (SchedulerMode mode : kModes) {
        auto gpu = gpu_backend(gpus[0]);
        RenderOutput out = render_image(*gpu, s, settings(48, 48, 4, 4, 1, mode), nullptr);
        EXPECT_NEAR(static_cast<double>(out.stats.nonfinite_samples), static_cast<double>(ref.stats.nonfinite_samples),
                    0.01 * static_cast<double>(ref.stats.nonfinite_samples))
            << mode_name(mode);
        for (const auto& p : out.image.pixels)
            for (int c = 0; c < 3; ++c) ASSERT_TRUE(std::isfinite(p[c])) << mode_name(mode);
    }
#endif
}

TEST(Gpu, StatisticsDescribeTheFrame) {
    REQUIRE_GPU();
#if defined(PKRT_HAVE_CUDA)
    Scene s = load_prepared(kScenes + "/spheres.json");
    SchedulerOptions queued;
    queued.shadow_rays = ShadowRays::kQueued;  // so that the queues see traffic whichever policy a trial would pick
    auto gpu = gpu_backend(gpus[0], queued);
    // Two frames: the second's timeline interval is set from the first's duration.
    RenderStats st;
    gpu->set_scene(s);
    gpu->reset(640, 360);
    RenderSettings rs = settings(640, 360, 4, 12, 1, SchedulerMode::kPersistent);
    gpu->accumulate(rs, 0, 2, st);
    RenderStats last;
    gpu->accumulate(rs, 2, 2, last);
    EXPECT_GE(last.timeline.size(), 256u) << "queue-depth timeline points in one frame";
    ASSERT_EQ(last.rays_per_sm.size(), static_cast<size_t>(gpus[0].multiprocessors));
    uint64_t sum = 0;
    int busy = 0;
    for (uint64_t r : last.rays_per_sm) {
        sum += r;
        busy += r > 0;
    }
    EXPECT_EQ(sum, last.total_rays()) << "every ray is counted on some SM";
    EXPECT_EQ(busy, gpus[0].multiprocessors) << "the persistent grid covers every SM";
    EXPECT_GT(last.frame_gpu_ms.at(0), 0.0);
    EXPECT_GT(last.peak_queue, 0u);
    EXPECT_GT(last.warp_iterations, 0u);
#endif
}

// ---- Resident mode: one kernel, many frames ----

#if defined(PKRT_HAVE_CUDA)
size_t resident_set_kib() {
    std::ifstream statm("/proc/self/statm");
    size_t pages = 0, rss = 0;
    statm >> pages >> rss;
    return rss * 4;
}
#endif

TEST(Gpu, ResidentKernelServesThousandsOfFramesWithOneLaunch) {
    REQUIRE_GPU();
#if defined(PKRT_HAVE_CUDA)
    Scene s = load_prepared(kScenes + "/cornell.json");
    auto gpu = gpu_backend(gpus[0]);
    gpu->set_scene(s);
    gpu->reset(16, 16);
    RenderSettings rs = settings(16, 16, 1, 6, 1, SchedulerMode::kResident);
    RenderStats warm;
    for (uint32_t i = 0; i < 100; ++i) gpu->accumulate(rs, i, 1, warm);
    size_t free_before = 0, total = 0, rss_before = resident_set_kib();
    cudaMemGetInfo(&free_before, &total);
    RenderStats st;
    const uint32_t frames = 10000;
    for (uint32_t i = 100; i < 100 + frames; ++i) gpu->accumulate(rs, i, 1, st);
    size_t free_after = 0;
    cudaMemGetInfo(&free_after, &total);
    EXPECT_EQ(warm.kernel_launches, 1u) << "the first frame launches the kernel";
    EXPECT_EQ(st.kernel_launches, 0u) << "no frame after it launches anything";
    EXPECT_EQ(st.frames, frames);
    EXPECT_EQ(st.samples, uint64_t(frames) * 16 * 16);
    EXPECT_EQ(st.paths_generated, st.samples);
    EXPECT_EQ(st.enqueued, st.dequeued);
    for (uint32_t c : gpu->sample_counts()) ASSERT_EQ(c, 100u + frames);
    EXPECT_EQ(free_after, free_before) << "device memory does not grow with commands";
    EXPECT_LT(resident_set_kib(), rss_before + 2048) << "host memory does not grow with commands";
    for (double ms : st.frame_gpu_ms) ASSERT_GT(ms, 0.0);
#endif
}

// The resident kernel's shadow policy is per job: a configuration's first jobs time both (queued,
// traced where cast), later ones run the faster, and the kernel is launched once for all of them.
TEST(Gpu, ResidentJobsTimeBothShadowPolicies) {
    REQUIRE_GPU();
#if defined(PKRT_HAVE_CUDA)
    Scene s = load_prepared(kScenes + "/cornell.json");
    auto gpu = gpu_backend(gpus[0]);
    gpu->set_scene(s);
    gpu->reset(96, 96);
    RenderSettings rs = settings(96, 96, 1, 8, 1, SchedulerMode::kResident);
    std::vector<std::pair<int, bool>> policy;  // shadows queued, trial
    std::vector<uint64_t> rays;
    uint64_t launches = 0;
    for (int i = 0; i < 6; ++i) {
        RenderStats st;
        gpu->accumulate(rs, 0, 1, st);  // the same samples every frame
        policy.emplace_back(st.shadows_queued, st.policy_trial);
        rays.push_back(st.total_rays());
        launches += st.kernel_launches;
        if (st.shadows_queued == 0)
            EXPECT_EQ(st.inline_shadows, st.shadow_rays) << i << ": every shadow ray traced where cast";
        else EXPECT_LT(st.inline_shadows, st.shadow_rays) << i << ": shadow rays through the queue";
    }
    EXPECT_EQ(policy[0], std::make_pair(1, true));
    EXPECT_EQ(policy[1], std::make_pair(0, true));
    EXPECT_EQ(policy[2], std::make_pair(1, true));
    EXPECT_EQ(policy[3], std::make_pair(0, true));
    EXPECT_FALSE(policy[4].second);
    EXPECT_EQ(policy[5], policy[4]);
    EXPECT_EQ(launches, 1u);
    for (uint64_t r : rays) EXPECT_EQ(r, rays[0]) << "both policies trace the same rays";
#endif
}

// A frame of another view after a frame of view A is a render of that view alone: no sample of A
// reaches it (frames are jobs of one kernel, and the framebuffer was cleared between them).
TEST(Gpu, ResidentFramesOfANewViewDoNotBlendTheOldOne) {
    REQUIRE_GPU();
#if defined(PKRT_HAVE_CUDA)
    Scene s = load_prepared(kScenes + "/cornell.json");
    auto gpu = gpu_backend(gpus[0]);
    RenderSettings rs = settings(48, 48, 8, 6, 2, SchedulerMode::kResident);
    render_image(*gpu, s, rs, nullptr);  // view A
    CameraSpec b = s.camera;
    b.eye = b.eye + Vec3{150.0f, -40.0f, 0.0f};
    RenderOutput switched = expect_matches_cpu(s, *gpu, rs, "view B after view A", &b);
    EXPECT_EQ(switched.stats.kernel_launches, 0u) << "the same kernel rendered both views";
#endif
}

TEST(Gpu, ResidentKernelQuitsWithinAHundredMilliseconds) {
    REQUIRE_GPU();
#if defined(PKRT_HAVE_CUDA)
    Scene s = load_prepared(kScenes + "/spheres.json");
    auto gpu = gpu_backend(gpus[0]);
    RenderSettings rs = settings(256, 256, 4, 8, 1, SchedulerMode::kResident);
    render_image(*gpu, s, rs, nullptr);
    // Leaving the mode quits the kernel; the next persistent frame then has the GPU.
    auto t0 = std::chrono::steady_clock::now();
    RenderStats st;
    gpu->accumulate(settings(256, 256, 1, 8, 1, SchedulerMode::kPersistent), 0, 1, st);
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_LT(ms, 100.0) << "quit and a small persistent frame took " << ms << " ms";
    // Destroying the backend quits a running kernel too.
    render_image(*gpu, s, rs, nullptr);
    t0 = std::chrono::steady_clock::now();
    gpu.reset();
    ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_LT(ms, 100.0) << "quit took " << ms << " ms";
#endif
}

// Settings the resident kernel cannot honour (its build and its bounces are fixed for its life) are
// refused with the reason, not passed to a kernel that would ignore them; the backend stays usable.
TEST(Gpu, ResidentModeRefusesSettingsItCannotHonour) {
    REQUIRE_GPU();
#if defined(PKRT_HAVE_CUDA)
    Scene s = load_prepared(kScenes + "/cornell.json");
    SchedulerOptions sorted;
    sorted.stragglers = Stragglers::kSorted;
    SchedulerOptions four;
    four.blocks_per_sm = 4;
    for (auto [opt, why] : {std::pair{sorted, "stragglers=sorted"}, std::pair{four, "blocks_per_sm 4"}}) {
        auto gpu = gpu_backend(gpus[0], opt);
        try {
            render_image(*gpu, s, settings(16, 16, 1, 4, 1, SchedulerMode::kResident), nullptr);
            ADD_FAILURE() << why << " must be refused in resident mode";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
        }
        RenderOutput ok = render_image(*gpu, s, settings(16, 16, 1, 4, 1, SchedulerMode::kPersistent), nullptr);
        EXPECT_EQ(ok.stats.paths_completed, 16u * 16u);
    }
#endif
}

TEST(Gpu, CancellingAResidentFrameKeepsTheKernel) {
    REQUIRE_GPU();
#if defined(PKRT_HAVE_CUDA)
    Scene s = load_prepared(kScenes + "/spheres.json");
    auto gpu = gpu_backend(gpus[0]);
    gpu->set_scene(s);
    gpu->reset(1920, 1080);
    RenderStats st;
    auto done = std::async(std::launch::async, [&] {
        gpu->accumulate(settings(1920, 1080, 512, 64, 1, SchedulerMode::kResident), 0, 512, st);
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    ASSERT_EQ(done.wait_for(std::chrono::milliseconds(0)), std::future_status::timeout) << "the frame must be long";
    auto cancel_at = std::chrono::steady_clock::now();
    gpu->interrupt();
    done.get();
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - cancel_at).count();
    EXPECT_LT(ms, 100.0) << "cancel took " << ms << " ms";
    RenderStats next;
    gpu->reset(1920, 1080);
    gpu->accumulate(settings(1920, 1080, 1, 4, 1, SchedulerMode::kResident), 0, 1, next);
    EXPECT_EQ(next.kernel_launches, 0u) << "the kernel survived the cancel";
    EXPECT_EQ(next.samples, 1920u * 1080u);
#endif
}

// ---- Resident mode with frames queued ahead (the viewer, image sequences) ----

// View A is cancelled mid-frame and view B queued behind it, with the clear between them made by the
// kernel: the image is B's alone, sample for sample the CPU's render of B, with no path of A in it.
TEST(Gpu, ResidentQueuedViewChangeLeavesNoSampleOfTheOldView) {
    REQUIRE_GPU();
#if defined(PKRT_HAVE_CUDA)
    Scene s = load_prepared(kScenes + "/cornell.json");
    auto gpu = gpu_backend(gpus[0]);
    gpu->set_queue_ahead(true);
    gpu->set_scene(s);
    const int w = 512, h = 512;
    RenderSettings a = settings(w, h, 256, 8, 3, SchedulerMode::kResident);
    RenderSettings b = settings(w, h, 4, 8, 9, SchedulerMode::kResident);
    ASSERT_EQ(gpu->capacity(a), 2);
    gpu->reset(w, h);
    RenderStats warm;
    warm.merge(gpu->wait(submit_frame(*gpu, b, 0, 1)).stats);  // the kernel is up
    CameraSpec view_b = s.camera;
    view_b.eye = view_b.eye + Vec3{150.0f, -40.0f, 0.0f};
    gpu->reset(w, h);
    FrameTicket ta = submit_frame(*gpu, a, 0, 256, 1);  // 67 M paths: far longer than the wait below
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ASSERT_FALSE(gpu->done(ta)) << "view A must still be rendering";
    gpu->cancel(2);
    gpu->set_camera(view_b);
    gpu->reset(w, h);
    FrameTicket tb = submit_frame(*gpu, b, 0, 4, 2);  // queued behind A, without waiting for it
    RenderStats st_a, st_b;
    FrameResult ra = gpu->wait(ta);
    EXPECT_TRUE(ra.cancelled) << "A was cancelled";
    st_a.merge(ra.stats);
    st_b.merge(gpu->wait(tb).stats);
    EXPECT_LT(st_a.samples, uint64_t(w) * h * 256) << "A stopped early";
    EXPECT_EQ(st_b.samples, uint64_t(w) * h * 4);
    EXPECT_EQ(st_b.kernel_launches, 0u);
    for (uint32_t c : gpu->sample_counts()) ASSERT_EQ(c, 4u) << "B's samples only";
    expect_image_matches_cpu(s, view_b, b, gpu->resolve(), "view B after a cancelled view A");
#endif
}

// Two frames in flight at all times, as the viewer runs them: each ended frame's image is whole (every
// pixel holds exactly the samples of the frames ended so far) while the next one renders, and the
// sum of N one-sample frames is the CPU's N-sample render.
TEST(Gpu, ResidentQueuedFramesEachShowAWholeImage) {
    REQUIRE_GPU();
#if defined(PKRT_HAVE_CUDA)
    Scene s = load_prepared(kScenes + "/cornell.json");
    auto gpu = gpu_backend(gpus[0]);
    gpu->set_queue_ahead(true);
    gpu->set_scene(s);
    const int w = 96, h = 96;
    const uint32_t frames = 24;
    RenderSettings rs = settings(w, h, 1, 8, 4, SchedulerMode::kResident);
    gpu->reset(w, h);
    uint32_t begun = 0;
    RenderStats st;
    std::deque<FrameTicket> tickets;
    for (uint32_t ended = 0; ended < frames;) {
        while (begun < frames && begun - ended < 2) tickets.push_back(submit_frame(*gpu, rs, begun, 1)), ++begun;
        RenderStats one;
        one.merge(gpu->wait(tickets.front()).stats);
        tickets.pop_front();
        ++ended;
        st.merge(one);
        const float* rgba = gpu->finished_rgba();
        ASSERT_NE(rgba, nullptr);
        for (int p = 0; p < w * h; ++p)
            ASSERT_EQ(rgba[4 * p + 3], static_cast<float>(ended)) << "pixel " << p << " after frame " << ended;
    }
    EXPECT_EQ(st.samples, uint64_t(frames) * w * h);
    EXPECT_EQ(st.kernel_launches, 1u);
    expect_image_matches_cpu(s, s.camera, settings(w, h, frames, 8, 4), gpu->resolve(), "24 queued one-sample frames");
#endif
}

// A preview (the viewer's first frame after a camera move) renders the image at a quarter of its size
// and shows each pixel as a 4x4 block, in every mode and every way the image is read: through the
// display pack (resolve, counts) and, queued ahead in resident mode, through the kernel's own pack.
TEST(Gpu, PreviewsShowTheSmallerImageAsBlocks) {
    REQUIRE_GPU();
#if defined(PKRT_HAVE_CUDA)
    Scene s = load_prepared(kScenes + "/cornell.json");
    const int w = 66, h = 47;  // the preview: 17 x 12
    for (SchedulerMode m : {SchedulerMode::kPersistent, SchedulerMode::kRelaunch, SchedulerMode::kResident}) {
        for (bool queued : {false, true}) {
            if (queued && m != SchedulerMode::kResident) continue;
            std::string what = std::string(mode_name(m)) + (queued ? ", queued ahead" : "");
            auto gpu = gpu_backend(gpus[0]);
            RenderOutput ref = render_image(*gpu, s, settings(17, 12, 1, 4, 5, m), nullptr);
            gpu->set_queue_ahead(queued);
            gpu->set_scene(s);
            gpu->reset(w, h);
            RenderSettings rs = settings(w, h, 1, 4, 5, m);
            rs.preview = 4;
            RenderStats st;
            st.merge(gpu->wait(submit_frame(*gpu, rs, 0, 1)).stats);
            EXPECT_EQ(st.samples, 17u * 12u) << what;
            Image img = gpu->resolve();
            std::vector<uint32_t> counts = gpu->sample_counts();
            ASSERT_EQ(img.pixels.size(), static_cast<size_t>(w) * h) << what;
            if (queued) {
                ASSERT_NE(gpu->finished_rgba(), nullptr) << what;
            }
            for (int y = 0; y < h; ++y) {
                for (int x = 0; x < w; ++x) {
                    size_t i = static_cast<size_t>(y) * w + x;
                    const Vec3& want = ref.image.at(x / 4, y / 4);
                    ASSERT_EQ(counts[i], 1u) << what << " at " << x << "," << y;
                    for (int c = 0; c < 3; ++c)
                        ASSERT_NEAR(img.pixels[i][c], want[c], 1e-5f * (1.0f + std::fabs(want[c])))
                            << what << " at " << x << "," << y;
                    if (queued) {
                        ASSERT_EQ(gpu->finished_rgba()[4 * i + 3], 1.0f) << what;
                    }
                }
            }
        }
    }
#endif
}

// A resident sequence queues each frame behind the last; every frame is still the single render of
// its camera and seed (the CPU's, sample for sample), and the whole sequence launches one kernel.
TEST(Gpu, ResidentSequenceFramesEqualSingleRenders) {
    REQUIRE_GPU();
#if defined(PKRT_HAVE_CUDA)
    Scene s = load_prepared(kScenes + "/cornell.json");
    CameraPath path = parse_camera_path("orbit:60", s.camera);
    RenderSettings rs = settings(64, 64, 8, 8, 11, SchedulerMode::kResident);
    auto gpu = gpu_backend(gpus[0]);
    std::vector<Image> frames;
    RenderStats total =
        render_sequence(*gpu, s, rs, path, 5, nullptr, [&](const SequenceFrame& f, const RenderOutput& out) {
            EXPECT_EQ(f.index, static_cast<int>(frames.size()));
            frames.push_back(out.image);
        });
    ASSERT_EQ(frames.size(), 5u);
    EXPECT_EQ(total.samples, 5u * 64u * 64u * 8u);
    EXPECT_EQ(total.kernel_launches, 1u);
    for (int i = 0; i < 5; ++i) {
        RenderSettings one = rs;
        one.seed = rs.seed + i;
        expect_image_matches_cpu(s, camera_at(path, i, 5), one, frames[i], "sequence frame " + std::to_string(i));
    }
#endif
}

namespace {

RenderOutput render_adaptive_with(Backend& b, const Scene& scene, int w, int h, int depth, uint32_t seed,
                                  AdaptiveSettings a, std::optional<SchedulerMode> mode) {
    RenderSettings rs = settings(w, h, a.max_spp, depth, seed, mode);
    rs.adaptive = a;
    return render_view(b, scene, scene.camera, rs, nullptr, false);
}

}  // namespace

// A target no pixel reaches: rounds through the device's work lists up to max_spp hold the samples of
// a uniform render at max_spp, which the CPU makes from the same sample streams; the odd sums too.
TEST(Gpu, AdaptiveRoundsHoldTheCpusSamplesInEveryMode) {
    REQUIRE_GPU();
#if defined(PKRT_HAVE_CUDA)
    Scene s = load_prepared(kScenes + "/cornell.json");
    const AdaptiveSettings a = pkrt_test::adaptive_settings(1e-6f, 8, 32);
    auto cpu = make_cpu_backend();
    RenderOutput ref = render_adaptive_with(*cpu, s, 40, 28, 5, 7, a, std::nullopt);
    auto gpu = gpu_backend(gpus[0]);
    for (SchedulerMode m : all_modes()) {
        std::string what = mode_name(m);
        RenderOutput g = render_adaptive_with(*gpu, s, 40, 28, 5, 7, a, m);
        ASSERT_EQ(g.accumulation.counts, ref.accumulation.counts) << what;
        EXPECT_EQ(g.stats.adaptive.rounds.size(), ref.stats.adaptive.rounds.size()) << what;
        EXPECT_EQ(g.stats.samples, 40u * 28u * 32u) << what;
        ASSERT_EQ(g.accumulation.odd_sums.size(), ref.accumulation.odd_sums.size()) << what;
        Image got = resolve_accumulation(g.accumulation);
        RenderSettings uniform = settings(40, 28, 32, 5, 7);
        expect_image_matches_cpu(s, s.camera, uniform, got, what);
        double odd_gpu = 0, odd_cpu = 0, diff = 0;
        for (size_t i = 0; i < ref.accumulation.odd_sums.size(); ++i) {
            odd_gpu += g.accumulation.odd_sums[i];
            odd_cpu += ref.accumulation.odd_sums[i];
            diff += std::fabs(g.accumulation.odd_sums[i] - ref.accumulation.odd_sums[i]);
        }
        EXPECT_NEAR(odd_gpu / odd_cpu, 1.0, 1e-3) << what << ": the odd-numbered samples' sums";
        EXPECT_LT(diff / odd_cpu, 0.02) << what << ": per pixel, the odd sums are the CPU's";
    }
#endif
}

// --adaptive-rule proportional is the CPU's only (issue 52): every mode refuses it with one line that
// names the flag, and the backend renders the stop rule's rounds after it.
TEST(Gpu, ProportionalRuleIsRefusedWithOneLine) {
    REQUIRE_GPU();
#if defined(PKRT_HAVE_CUDA)
    Scene s = load_prepared(kScenes + "/cornell.json");
    AdaptiveSettings a = pkrt_test::adaptive_settings(0.1f, 8, 32);
    a.method = AdaptiveMethod::proportional;
    auto gpu = gpu_backend(gpus[0]);
    for (SchedulerMode m : all_modes()) {
        try {
            render_adaptive_with(*gpu, s, 16, 16, 4, 1, a, m);
            ADD_FAILURE() << mode_name(m) << ": the proportional rule must be refused";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("--adaptive-rule proportional"), std::string::npos) << e.what();
        }
    }
    a.method = AdaptiveMethod::stop;
    RenderOutput ok = render_adaptive_with(*gpu, s, 16, 16, 4, 1, a, SchedulerMode::kPersistent);
    EXPECT_GE(ok.stats.samples, 16u * 16u * 8u);
#endif
}

TEST(Gpu, AdaptiveEveryPixelEndsAtTheTargetOrAtMaxSpp) {
    REQUIRE_GPU();
#if defined(PKRT_HAVE_CUDA)
    Scene s = load_prepared(kScenes + "/cornell.json");
    const AdaptiveSettings a = pkrt_test::adaptive_settings(0.08f, 16, 512);
    auto gpu = gpu_backend(gpus[0]);
    for (SchedulerMode m : all_modes()) {
        std::string what = mode_name(m);
        RenderOutput g = render_adaptive_with(*gpu, s, 48, 40, 6, 1, a, m);
        const Accumulation& acc = g.accumulation;
        ASSERT_EQ(acc.odd_sums.size(), acc.sums.size()) << what;
        uint64_t total = 0;
        uint32_t least = UINT32_MAX;
        for (size_t p = 0; p < acc.counts.size(); ++p) {
            Vec3 sum{acc.sums[3 * p], acc.sums[3 * p + 1], acc.sums[3 * p + 2]};
            Vec3 odd{acc.odd_sums[3 * p], acc.odd_sums[3 * p + 1], acc.odd_sums[3 * p + 2]};
            uint32_t n = acc.counts[p];
            EXPECT_TRUE(n == 512u || pixel_error(sum, odd, n) <= a.target_error)
                << what << " pixel " << p << ": " << n << " spp";
            total += n;
            least = std::min(least, n);
        }
        EXPECT_EQ(total, g.stats.samples) << what << ": every sample counted is in a pixel";
        EXPECT_LT(least, 512u) << what;
        EXPECT_DOUBLE_EQ(g.stats.adaptive.converged, 1.0) << what;
    }
#endif
}

// A time limit ends the rounds after the round that passes it. Resident mode has queued rounds
// behind it, blind: they still run, and each is reported; every sample counted is in a pixel.
TEST(Gpu, AdaptiveTimeLimitReportsEveryRoundThatRan) {
    REQUIRE_GPU();
#if defined(PKRT_HAVE_CUDA)
    Scene s = load_prepared(kScenes + "/cornell.json");
    AdaptiveSettings a = pkrt_test::adaptive_settings(1e-6f, 4, 4096);
    a.time_limit_s = 1e-9;
    auto gpu = gpu_backend(gpus[0]);
    for (SchedulerMode m : {SchedulerMode::kPersistent, SchedulerMode::kResident}) {
        std::string what = mode_name(m);
        RenderOutput g = render_adaptive_with(*gpu, s, 64, 48, 4, 5, a, m);
        const AdaptiveReport& report = g.stats.adaptive;
        EXPECT_TRUE(report.time_limit_hit) << what;
        ASSERT_GE(report.rounds.size(), 1u) << what;
        if (m == SchedulerMode::kPersistent) {
            EXPECT_EQ(report.rounds.size(), 1u) << what;
        }
        EXPECT_LE(report.rounds.size(), 3u) << what << ": at most the rounds the ring holds";
        uint64_t total = 0;
        uint32_t most = 0;
        for (uint32_t c : g.accumulation.counts) {
            total += c;
            most = std::max(most, c);
        }
        EXPECT_EQ(total, g.stats.samples) << what;
        EXPECT_EQ(report.rounds.back().samples, g.stats.samples)
            << what << ": the last round reported is the last that ran";
        // 4 samples, then 2 a round (a quarter of 4 or 6, rounded to a power of two, at least 2).
        EXPECT_EQ(most, 4u + 2u * static_cast<uint32_t>(report.rounds.size() - 1)) << what;
    }
#endif
}

// Resident mode scans inside the kernel and queues rounds ahead, blind; the rounds past the last are
// empty. Its rounds and counts are persistent mode's, which scans between launches (with a target no
// pixel with light reaches, only black tiles stop early); and a frame after the adaptive render is a
// plain one again.
TEST(Gpu, ResidentAdaptiveRoundsAreThoseOfTheScanBetweenLaunches) {
    REQUIRE_GPU();
#if defined(PKRT_HAVE_CUDA)
    Scene s = load_prepared(kScenes + "/cornell.json");
    const AdaptiveSettings a = pkrt_test::adaptive_settings(1e-6f, 4, 64);  // no pixel converges: the counts are exact
    auto gpu = gpu_backend(gpus[0]);
    RenderOutput p = render_adaptive_with(*gpu, s, 72, 40, 4, 3, a, SchedulerMode::kPersistent);
    RenderOutput r = render_adaptive_with(*gpu, s, 72, 40, 4, 3, a, SchedulerMode::kResident);
    EXPECT_EQ(r.accumulation.counts, p.accumulation.counts);
    ASSERT_EQ(r.stats.adaptive.rounds.size(), p.stats.adaptive.rounds.size());
    for (size_t i = 0; i < p.stats.adaptive.rounds.size(); ++i) {
        EXPECT_EQ(r.stats.adaptive.rounds[i].samples, p.stats.adaptive.rounds[i].samples) << "round " << i;
        EXPECT_EQ(r.stats.adaptive.rounds[i].tiles_sampled, p.stats.adaptive.rounds[i].tiles_sampled) << "round " << i;
        EXPECT_EQ(r.stats.adaptive.rounds[i].samples_per_tile, p.stats.adaptive.rounds[i].samples_per_tile)
            << "round " << i;
    }
    uint64_t total = 0;
    for (uint32_t c : r.accumulation.counts) total += c;
    EXPECT_EQ(r.stats.samples, total);
    EXPECT_EQ(r.stats.samples, p.stats.samples);
    EXPECT_GT(total, 72u * 40u * 32u);
    RenderOutput plain =
        render_view(*gpu, s, s.camera, settings(72, 40, 8, 4, 3, SchedulerMode::kResident), nullptr, false);
    EXPECT_EQ(plain.stats.samples, 72u * 40u * 8u);
    for (uint32_t c : plain.accumulation.counts) ASSERT_EQ(c, 8u);
#endif
}
