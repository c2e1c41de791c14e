// The one set-up (render/setup.h) and the one definition of every limit (render/scene/render_limits.h):
// pkrt render, pkrt bench and pkrt-viewer build a render the same way, and a limit broken anywhere gives
// the same message.
#include <gtest/gtest.h>

#include <functional>

#include "render/error.h"
#include "render/scene/render_limits.h"
#include "render/setup.h"
#include "tests/cli/test_cli_util.h"
#include "tests/test_util.h"

using namespace pkrt;
using namespace pkrt_test;

namespace {

SetupOptions cpu_options() {
    SetupOptions o;
    o.backend.kind = "cpu";
    o.backend.cpu_threads = 1;
    return o;
}

}  // namespace

TEST(Setup, ReadyRenderOfTheDefaultScene) {
    ReadyRender r = setup_render(cpu_options());
    EXPECT_EQ(r.scene_path, default_scene_path());
    ASSERT_TRUE(r.backend);
    EXPECT_EQ(r.backend->name(), "cpu");
    EXPECT_FALSE(r.why.empty());
    EXPECT_GT(r.scene.bvh.node_count(), 0u) << "the BVH is built";
    EXPECT_EQ(r.settings.width, r.scene.defaults.width);
    EXPECT_EQ(r.settings.height, r.scene.defaults.height);
    EXPECT_EQ(r.settings.spp, r.scene.defaults.spp);
    EXPECT_EQ(r.settings.max_depth, r.scene.defaults.max_depth);
    EXPECT_FALSE(r.settings.mode);
}

TEST(Setup, OverridesAndTheBvhChoice) {
    SetupOptions o = cpu_options();
    o.width = 40;
    o.height = 30;
    o.spp = 3;
    o.max_depth = 0;
    o.seed = 7;
    o.aperture = 0.25f;
    o.bvh = {BvhLayout::kCwbvh, 0.0f, false};
    bool before = false;
    o.before_build = [&](const Scene& s) {
        before = true;
        EXPECT_EQ(s.bvh.node_count(), 0u) << "before_build runs before the BVH build";
        EXPECT_EQ(s.camera.aperture_radius, 0.25f);
    };
    ReadyRender r = setup_render(o);
    EXPECT_TRUE(before);
    EXPECT_EQ(r.scene.bvh.layout, BvhLayout::kCwbvh);
    EXPECT_EQ(r.settings.width, 40);
    EXPECT_EQ(r.settings.height, 30);
    EXPECT_EQ(r.settings.spp, 3);
    EXPECT_EQ(r.settings.max_depth, 0);
    EXPECT_EQ(r.settings.seed, 7u);
}

// The bench builds each scene with setup_scene and each point of its matrix with setup_settings: the
// same options give the settings that setup_render (pkrt render, the viewer) gives.
TEST(Setup, RenderAndBenchGiveTheSameSettings) {
    SetupOptions o = cpu_options();
    o.scene = std::string(PKRT_SCENES_DIR) + "/cornell.json";
    o.width = 64;
    o.height = 48;
    o.max_depth = 5;
    o.spp = 2;
    ReadyRender render = setup_render(o);
    Scene bench_scene = setup_scene(o, o.scene, nullptr);
    RenderSettings bench = setup_settings(o, bench_scene, std::nullopt);
    EXPECT_EQ(bench.width, render.settings.width);
    EXPECT_EQ(bench.height, render.settings.height);
    EXPECT_EQ(bench.spp, render.settings.spp);
    EXPECT_EQ(bench.max_depth, render.settings.max_depth);
    EXPECT_EQ(bench_scene.tris.size(), render.scene.tris.size());
    EXPECT_EQ(bench_scene.bvh.node_count(), render.scene.bvh.node_count());
}

TEST(Setup, BadLimitsFailBeforeLoading) {
    SetupOptions o = cpu_options();
    o.scene = "/nonexistent/scene.json";  // never opened: the checks come first
    o.max_depth = limits::kMaxDepth + 1;
    EXPECT_EQ(error_of([&] { setup_render(o); }),
              limits::range_error("--max-depth", limits::kMaxDepth + 1, 0, limits::kMaxDepth));
    o.max_depth.reset();
    o.spp = 0;
    EXPECT_EQ(error_of([&] { setup_render(o); }), limits::range_error("--spp", 0, 1, limits::kMaxSpp));
    o.spp.reset();
    o.mode = "sideways";
    EXPECT_NE(error_of([&] { setup_render(o); }).find("--mode sideways"), std::string::npos);
}

TEST(Limits, OneWordingOfRangeErrors) {
    EXPECT_EQ(limits::range_error("--max-depth", 2000, 0, 1024), "--max-depth 2000: must be between 0 and 1024");
    EXPECT_EQ(error_of([] { limits::check_range("--spp", 5, 1, 4); }), "--spp 5: must be between 1 and 4");
    EXPECT_EQ(error_of([] { limits::check_range("--spp", 4, 1, 4); }), "");
}

// The depth limit is one number: the flags of render and bench and the scene file's render.max_depth all
// stop at it, with the same range in the message.
TEST(Limits, DepthLimitIsTheSameEverywhere) {
    TempDir dir;
    const std::string over = std::to_string(limits::kMaxDepth + 1);
    const std::string message = limits::range_error("--max-depth", limits::kMaxDepth + 1, 0, limits::kMaxDepth);
    const std::string scene = shell_quote(std::string(PKRT_SCENES_DIR) + "/cornell.json");
    expect_clean_failure(dir, "render " + scene + " --backend cpu --max-depth " + over + " -o out.png", 1, message);
    expect_clean_failure(dir, "bench " + scene + " --backend cpu --max-depth " + over + " -q", 1, message);
    dir.write("in_deep.json", R"({"render": {"max_depth": )" + over + R"(}, "meshes": [{"sphere": {}}]})");
    expect_clean_failure(dir, "render in_deep.json --backend cpu -o out.png", 1,
                         "render.max_depth: must be between 0 and " + std::to_string(limits::kMaxDepth));
    // And the deepest allowed path is accepted.
    SetupOptions o = cpu_options();
    o.max_depth = limits::kMaxDepth;
    o.width = o.height = 8;
    EXPECT_EQ(setup_render(o).settings.max_depth, limits::kMaxDepth);
}
