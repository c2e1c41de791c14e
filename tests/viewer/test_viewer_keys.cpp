// The viewer's conveniences (issue 31, part 5), under Xvfb on the CPU backend: --seed, --env and
// --camera as pkrt render takes them, EXR screenshots of the accumulation, camera bookmarks, Tab hiding
// the panels.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "render/image/aov.h"
#include "render/image/image.h"
#include "tests/viewer/test_viewer_util.h"

using namespace pkrt_test;

namespace {

const std::string kCornell = shell_quote(std::string(PKRT_SCENES_DIR) + "/cornell.json");

}  // namespace

// The viewer's EXR is the accumulation itself: pkrt render's EXR of the same samples (to float rounding:
// the viewer adds them frame by frame), and with --denoise its Noisy Image is that too.
TEST(ViewerKeys, ExrScreenshotIsTheAccumulation) {
    TempDir dir;
    const std::string cwd = dir.path().string();
    RunResult v = run_viewer(kCornell +
                                 " --backend cpu --frames 3 --spp-per-frame 2 --scale 1 --res 64x48 --seed 7 "
                                 "--screenshot v.exr",
                             cwd);
    SKIP_WITHOUT_XVFB(v);
    ASSERT_EQ(v.code, 0) << v.err;
    RunResult c = run_in(
        shell_quote(PKRT_BINARY) + " render " + kCornell + " --backend cpu --spp 6 --res 64x48 --seed 7 -q -o c.exr",
        cwd);
    ASSERT_EQ(c.code, 0) << c.err;
    pkrt::Image vi = pkrt::read_exr(dir.file("v.exr")), ci = pkrt::read_exr(dir.file("c.exr"));
    ASSERT_EQ(vi.pixels.size(), ci.pixels.size());
    for (size_t i = 0; i < vi.pixels.size(); ++i)
        ASSERT_NEAR(vi.pixels[i].y, ci.pixels[i].y, 1e-5f * (1 + ci.pixels[i].y)) << i;
    // Another seed is another image.
    RunResult s0 = run_viewer(kCornell +
                                  " --backend cpu --frames 3 --spp-per-frame 2 --scale 1 --res 64x48 "
                                  "--screenshot s0.exr",
                              cwd);
    ASSERT_EQ(s0.code, 0) << s0.err;
    pkrt::Image si = pkrt::read_exr(dir.file("s0.exr"));
    int differ = 0;
    for (size_t i = 0; i < si.pixels.size(); ++i) differ += si.pixels[i].y != vi.pixels[i].y;
    EXPECT_GT(differ, static_cast<int>(si.pixels.size()) / 2);
    // Denoised: R, G, B as pkrt render --denoise writes them, the render kept beside them.
    RunResult d = run_viewer(kCornell +
                                 " --backend cpu --frames 3 --spp-per-frame 2 --scale 1 --res 64x48 --seed 7 "
                                 "--denoise --screenshot d.exr",
                             cwd);
    ASSERT_EQ(d.code, 0) << d.err;
    pkrt::Image noisy = pkrt::read_noisy_layer(dir.file("d.exr"), 64, 48);
    for (size_t i = 0; i < noisy.pixels.size(); ++i)
        ASSERT_NEAR(noisy.pixels[i].y, ci.pixels[i].y, 1e-5f * (1 + ci.pixels[i].y)) << i;
    std::string bytes = read_text(dir.file("d.exr"));
    EXPECT_NE(bytes.find("Denoising Albedo.R"), std::string::npos);
}

// --env and --camera reach the scene as in pkrt render: the viewer's screenshot is its PNG (Cameras.gltf
// has one camera, so --camera 0 is its default; the sky is what changes the image).
TEST(ViewerKeys, EnvAndCameraAreThoseOfPkrtRender) {
    TempDir dir;
    const std::string cwd = dir.path().string();
    const std::string gltf = shell_quote(shared_scene("gltf/Cameras/glTF/Cameras.gltf"));
    if (!have_shared_scene("gltf/Cameras/glTF/Cameras.gltf")) GTEST_SKIP() << "no shared Cameras.gltf";
    std::string env = dir.file("sky.hdr");
    pkrt::Image sky;
    sky.width = 8;
    sky.height = 4;
    for (int i = 0; i < 32; ++i) sky.pixels.push_back(pkrt::Vec3{0.2f + 0.1f * (i % 8), 0.5f, 1.0f - 0.2f * (i / 8)});
    pkrt::write_image(env, sky);
    const std::string flags = " --backend cpu --res 64x48 --camera 0 --env sky.hdr";
    RunResult v = run_viewer(gltf + flags + " --frames 2 --spp-per-frame 1 --scale 1 --screenshot v.png", cwd);
    SKIP_WITHOUT_XVFB(v);
    ASSERT_EQ(v.code, 0) << v.err;
    RunResult c = run_in(shell_quote(PKRT_BINARY) + " render " + gltf + flags + " --spp 2 -q -o c.png", cwd);
    ASSERT_EQ(c.code, 0) << c.err;
    RunResult other =
        run_in(shell_quote(PKRT_BINARY) + " render " + gltf + " --backend cpu --res 64x48 --spp 2 -q -o o.png", cwd);
    ASSERT_EQ(other.code, 0) << other.err;
    Png vp = read_png(dir.file("v.png")), cp = read_png(dir.file("c.png")), op = read_png(dir.file("o.png"));
    ASSERT_TRUE(vp.ok() && cp.ok() && op.ok());
    EXPECT_LE(max_abs_diff(vp, cp), 1);
    EXPECT_GT(mean_abs_diff(cp, op), 2.0) << "the sky changed nothing";
    // A camera the file does not have is pkrt render's error.
    RunResult bad = run_viewer(gltf + " --backend cpu --frames 1 --camera 3", cwd);
    EXPECT_EQ(bad.code, 1);
    EXPECT_TRUE(has_one_error_line(bad.err)) << bad.err;
    EXPECT_NE(bad.err.find("--camera 3: "), std::string::npos) << bad.err;
}

// Ctrl+1 keeps the view in the bookmarks file; after R, 1 brings it back: the same samples of the same
// camera, the same pixels. The file holds the camera as a scene writes it.
TEST(ViewerKeys, BookmarksSaveAndRecallTheView) {
    TempDir dir;
    dir.write("marks.txt",
              "drag 100 100 160 120 left\n"
              "frames 3\n"
              "screenshot moved.png\n"
              "key 1 ctrl\n"
              "key R\n"
              "frames 3\n"
              "screenshot reset.png\n"
              "key 1\n"
              "frames 3\n"
              "screenshot recalled.png\n"
              "key 2\n"
              "frames 1\n");
    RunResult r =
        run_viewer(kCornell + " --backend cpu --res 320x240 --scale 0.25 --script marks.txt --bookmarks b.json",
                   dir.path().string());
    SKIP_WITHOUT_XVFB(r);
    ASSERT_EQ(r.code, 0) << r.err;
    Png moved = read_png(dir.file("moved.png")), reset = read_png(dir.file("reset.png")),
        recalled = read_png(dir.file("recalled.png"));
    ASSERT_TRUE(moved.ok() && reset.ok() && recalled.ok());
    EXPECT_EQ(mean_abs_diff(moved, recalled), 0.0);
    EXPECT_GT(mean_abs_diff(moved, reset), 3.0) << "the drag did not move the camera";
    auto j = nlohmann::json::parse(read_text(dir.file("b.json")));
    ASSERT_TRUE(j["bookmarks"].contains("1"));
    EXPECT_FALSE(j["bookmarks"].contains("2"));
    for (const char* key : {"eye", "look_at", "up", "fov"}) EXPECT_TRUE(j["bookmarks"]["1"].contains(key)) << key;
    // A broken bookmarks file is one line at start-up.
    dir.write("bad.json", "{\"bookmarks\": {\"1\": {\"eye\": [0, 0]}}}");
    RunResult bad = run_viewer(kCornell + " --backend cpu --frames 1 --bookmarks bad.json", dir.path().string());
    EXPECT_EQ(bad.code, 1);
    EXPECT_TRUE(has_one_error_line(bad.err)) << bad.err;
    EXPECT_NE(bad.err.find("bad.json: bookmark 1.eye: expected [x, y, z]"), std::string::npos) << bad.err;
}

// Tab hides the panels: a screenshot with the UI is then the image alone, over the whole window. (The
// image restarts at the window's size: the frames after Tab let it reach --spp-target again.)
TEST(ViewerKeys, TabHidesThePanels) {
    TempDir dir;
    dir.write("tab.txt",
              "frames 2\n"
              "screenshot plain.png\n"
              "screenshot with_panels.png ui\n"
              "frames 1\n"
              "key TAB\n"
              "frames 4\n"
              "screenshot hidden.png ui\n"
              "frames 1\n"
              "screenshot plain2.png\n"
              "key F1\n"
              "frames 1\n"
              "screenshot help.png ui\n"
              "frames 1\n");
    RunResult r = run_viewer(kCornell + " --backend cpu --res 480x320 --scale 0.5 --spp-target 2 --script tab.txt",
                             dir.path().string());
    SKIP_WITHOUT_XVFB(r);
    ASSERT_EQ(r.code, 0) << r.err;
    Png plain = read_png(dir.file("plain2.png")), with = read_png(dir.file("with_panels.png")),
        hidden = read_png(dir.file("hidden.png")), help = read_png(dir.file("help.png"));
    ASSERT_TRUE(plain.ok() && with.ok() && hidden.ok() && help.ok());
    EXPECT_EQ(mean_abs_diff(hidden, plain), 0.0) << "the panels were still drawn";
    EXPECT_GT(mean_abs_diff(with, plain), 1.0) << "the panels were never drawn";
    EXPECT_GT(mean_abs_diff(help, plain), 0.5) << "F1 drew no help";
}
