// pkrt-viewer end to end on the CPU backend, in a real window on a private Xvfb screen (Mesa's software
// OpenGL): batch screenshots, scripted camera input through the viewer's own handlers, scene loading,
// resizing, and every class of bad input. GPU variants are in test_viewer_gpu.cpp.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tests/viewer/test_viewer_util.h"

using namespace pkrt_test;

namespace {}  // namespace

TEST(Viewer, CpuFramesWriteANonBlankScreenshotOfTheWindowSize) {
    TempDir dir;
    RunResult r = run_viewer("--backend cpu --frames 8 --screenshot out.png --res 320x240", dir.path().string());
    SKIP_WITHOUT_XVFB(r);
    ASSERT_EQ(r.code, 0) << r.err;
    Png png = read_png(dir.file("out.png"));
    ASSERT_TRUE(png.ok()) << "no readable out.png; stderr: " << r.err;
    EXPECT_EQ(png.width, 320);
    EXPECT_EQ(png.height, 240);
    // The Cornell box: red and green walls, a lit ceiling, noise. A blank, flat or garbage-free-but-
    // constant frame has a handful of colours and no spread.
    EXPECT_GT(distinct_colors(png), 500u);
    EXPECT_GT(value_stddev(png), 10.0);
    // Not a leftover temporary file.
    for (const auto& e : dir.entries()) EXPECT_EQ(e.find(".tmp"), std::string::npos) << e;
}

// --spp-target stops accumulating at exactly that many samples per pixel, whatever the frames left:
// the last frame takes only what is missing, and later frames add nothing.
TEST(Viewer, SampleTargetStopsAccumulationExactly) {
    TempDir dir;
    RunResult r =
        run_viewer("--backend cpu --frames 12 --spp-per-frame 2 --spp-target 5 --screenshot out.png --res 160x120",
                   dir.path().string());
    SKIP_WITHOUT_XVFB(r);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("12 frames, 5 spp at"), std::string::npos) << r.err;
    RunResult all = run_viewer("--backend cpu --frames 12 --spp-per-frame 2 --screenshot all.png --res 160x120",
                               dir.path().string());
    ASSERT_EQ(all.code, 0) << all.err;
    EXPECT_NE(all.err.find("12 frames, 24 spp at"), std::string::npos) << all.err;
}

// Stop when converged: adaptive rounds, one a frame, until no tile needs samples; then the image stays.
// Its mean spp is below the max, and above the min. The samples-per-pixel map draws over the image.
TEST(Viewer, StopWhenConvergedEndsTheRoundsAndTheMapDrawsOverTheImage) {
    TempDir dir;
    RunResult r = run_viewer("--backend cpu --frames 60 --target-error 0.3 --screenshot out.png --res 64x48 --scale 1",
                             dir.path().string());
    SKIP_WITHOUT_XVFB(r);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("stop when converged: converged after"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("100.0% of pixels"), std::string::npos) << r.err;
    unsigned frames = 0, spp = 0;
    ASSERT_EQ(std::sscanf(r.err.substr(r.err.find("pkrt-viewer: 60 frames, ")).c_str(),
                          "pkrt-viewer: %u frames, %u spp", &frames, &spp),
              2)
        << r.err;
    EXPECT_GE(spp, 16u) << "min spp";
    EXPECT_LT(spp, 4096u) << "max spp";
    // The same view with and without the map, panels and all: the map changes the picture.
    dir.write("ui.txt", "frames 20\nscreenshot ui.png ui\n");
    RunResult plain =
        run_viewer("--backend cpu --target-error 0.3 --script ui.txt --res 320x240 --scale 0.25", dir.path().string());
    ASSERT_EQ(plain.code, 0) << plain.err;
    Png a = read_png(dir.file("ui.png"));
    RunResult map = run_viewer("--backend cpu --target-error 0.3 --spp-map --script ui.txt --res 320x240 --scale 0.25",
                               dir.path().string());
    ASSERT_EQ(map.code, 0) << map.err;
    Png b = read_png(dir.file("ui.png"));
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_GT(mean_abs_diff(a, b), 5.0) << "the map is not drawn";
}

TEST(Viewer, ScriptedInputMovesTheCameraAndResetRestoresTheImageExactly) {
    TempDir dir;
    // Every move starts from the scene's camera and is undone with R. 640x480 keeps the events left of
    // the panel (docked at the right, at most half the width), where they reach the camera.
    dir.write("moves.txt",
              "frames 4\n"
              "screenshot start.png\n"
              "frames 4\n"
              "screenshot same.png             # no move: 8 frames of the same view\n"
              "drag 100 100 160 120 left       # orbit\n"
              "frames 4\n"
              "screenshot orbit.png\n"
              "key R\n"
              "frames 4\n"
              "screenshot reset.png\n"
              "key W 20                        # fly forward, held for 20 frames\n"
              "frames 3\n"
              "screenshot fly.png\n"
              "key R\n"
              "scroll 5 100 240                # dolly towards the target\n"
              "frames 4\n"
              "screenshot dolly.png\n"
              "key R\n"
              "drag 100 200 180 200 left shift # pan\n"
              "frames 4\n"
              "screenshot pan.png\n"
              "key R\n"
              "frames 4\n"
              "scroll 5                        # at the window's centre: on the panel's edge, so no dolly\n"
              "frames 4\n"
              "screenshot panel.png\n");
    RunResult r = run_viewer("--backend cpu --res 640x480 --scale 0.25 --spp-per-frame 4 --script moves.txt",
                             dir.path().string());
    SKIP_WITHOUT_XVFB(r);
    ASSERT_EQ(r.code, 0) << r.err;
    std::map<std::string, Png> img;
    for (const char* name : {"start", "same", "orbit", "reset", "fly", "dolly", "pan", "panel"}) {
        Png p = read_png(dir.file(std::string(name) + ".png"));
        ASSERT_TRUE(p.ok()) << name << ": " << r.err;
        // The image area: the window less the panel docked at its right (half of 640) and the menu bar.
        ASSERT_EQ(p.width, 320);
        ASSERT_GT(p.height, 440);
        ASSERT_LT(p.height, 480);
        if (!img.empty()) {
            ASSERT_EQ(p.height, img.begin()->second.height);
        }
        img[name] = std::move(p);
    }
    // The noise floor: the same view with twice the samples differs by ~2 steps on average. A move that
    // did nothing would leave its image that close to the start; each real one is ~15 steps away.
    double floor = mean_abs_diff(img["start"], img["same"]);
    EXPECT_GT(floor, 0.0);
    EXPECT_LT(floor, 4.0);
    for (const char* name : {"orbit", "fly", "dolly", "pan"})
        EXPECT_GT(mean_abs_diff(img["start"], img[name]), 3.0 * floor + 3.0) << name << " did not move the camera";
    // Samples are a function of (seed, pixel, sample index) and R restarts at sample 0 from the scene's
    // own camera: the same 4 frames give the very same pixels as at the start.
    EXPECT_EQ(mean_abs_diff(img["start"], img["reset"]), 0.0);
    // The wheel over the panel scrolls the panel, not the camera: the image just keeps accumulating
    // (4 + 4 frames of the start view, exactly like "same").
    EXPECT_EQ(mean_abs_diff(img["same"], img["panel"]), 0.0);
}

// After a camera move the first image is a preview: the view at a quarter of the resolution, each of
// its pixels a 4x4 block; the frame after it is the full image again.
TEST(Viewer, ACameraMoveShowsAPreviewFirst) {
    TempDir dir;
    dir.write("move.txt",
              "frames 2\ndrag 100 100 160 120 left\nframes 1\nscreenshot preview.png\nframes 1\nscreenshot full.png\n");
    RunResult r =
        run_viewer("--backend cpu --res 320x240 --scale 1 --preview 4 --script move.txt", dir.path().string());
    SKIP_WITHOUT_XVFB(r);
    ASSERT_EQ(r.code, 0) << r.err;
    Png preview = read_png(dir.file("preview.png")), full = read_png(dir.file("full.png"));
    ASSERT_TRUE(preview.ok() && full.ok());
    ASSERT_EQ(preview.width, 160);    // the window's width less the panel's (half of 320)
    auto blocky = [](const Png& p) {  // pixels that differ from their 4x4 block's first
        size_t differ = 0;
        for (int y = 0; y < p.height; ++y)
            for (int x = 0; x < p.width; ++x)
                for (int c = 0; c < 3; ++c)
                    differ += p.rgb[(static_cast<size_t>(y) * p.width + x) * 3 + c] !=
                              p.rgb[(static_cast<size_t>(y / 4 * 4) * p.width + x / 4 * 4) * 3 + c];
        return differ;
    };
    // (A handful of values may round the other way where the display samples a texel edge.)
    EXPECT_LT(blocky(preview), static_cast<size_t>(preview.width * preview.height * 3 / 1000));
    EXPECT_GT(blocky(full), static_cast<size_t>(full.width * full.height / 4))
        << "the full image has pixels of its own";
    EXPECT_LT(block_mean_diff(preview, full), 20.0) << "the same view";
}

// A batch run times each camera change to its first image on screen, and says where that time went:
// each change's parts come in their order, and so do their medians.
TEST(Viewer, CameraChangesAreTimedInPartsThatComeInOrder) {
    TempDir dir;
    std::string script;
    for (int i = 0; i < 5; ++i) script += "frames 3\ndrag 100 100 110 100 left\n";
    dir.write("drags.txt", script + "frames 2\n");
    RunResult r = run_viewer("--backend cpu --res 320x240 --scale 1 --spp-per-frame 1 --denoise --script drags.txt",
                             dir.path().string());
    SKIP_WITHOUT_XVFB(r);
    ASSERT_EQ(r.code, 0) << r.err;
    const CameraChangeLine c = read_camera_change_line(r.err);
    ASSERT_TRUE(c.ok) << r.err;
    const std::string& line = c.text;
    EXPECT_EQ(c.changes, 5) << line;
    EXPECT_GT(c.queued, 0.0) << line;
    EXPECT_LE(c.queued, c.done) << line;
    EXPECT_LT(c.done, c.uploaded) << line << " (the denoised view takes its time)";
    EXPECT_LE(c.uploaded, c.drawn) << line;
    EXPECT_LE(c.drawn, c.median) << line;
    EXPECT_LE(c.median, c.max) << line;
    EXPECT_EQ(c.pass, 1.0) << line << " (the first displayed frame after a change shows it)";
    EXPECT_LE(c.pass, c.latest_pass) << line;
}

TEST(Viewer, DragOverThePanelDoesNotMoveTheCamera) {
    TempDir dir;
    // Two runs of the same frames: one with a drag over the panel (right side) in the middle. If the
    // panel did not capture it, the camera would orbit and the images would differ.
    dir.write("panel.txt", "frames 3\ndrag 600 300 630 340 left\nframes 3\nscreenshot a.png\n");
    dir.write("plain.txt", "frames 6\nscreenshot b.png\n");
    RunResult r1 = run_viewer("--backend cpu --res 640x480 --scale 0.25 --script panel.txt", dir.path().string());
    SKIP_WITHOUT_XVFB(r1);
    ASSERT_EQ(r1.code, 0) << r1.err;
    RunResult r2 = run_viewer("--backend cpu --res 640x480 --scale 0.25 --script plain.txt", dir.path().string());
    ASSERT_EQ(r2.code, 0) << r2.err;
    Png a = read_png(dir.file("a.png")), b = read_png(dir.file("b.png"));
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(mean_abs_diff(a, b), 0.0);
}

// Ctrl+left click focuses the thin lens on what the pixel shows: the Cornell box through a wide lens
// focused 200 units in front of the camera (everything blurred), then a click on the back wall, which is
// 800 + 559.2 units away along the view at every pixel (it faces the camera). The focus distance the
// viewer reports is that exactly, and the image changes well beyond the noise (walls and boxes sharpen);
// R restores the scene's camera, lens included: the first image bit for bit.
TEST(Viewer, CtrlClickFocusesTheLensOnThePointUnderTheCursor) {
    TempDir dir;
    dir.write("dof.json", std::string(R"({"camera": {"eye": [278, 273, -800], "look_at": [278, 273, 0], "up": [0, 1, 0],
                                                  "fov": 39.3, "aperture": 60, "focus_distance": 200},
                                       "meshes": [{"obj": ")") +
                              PKRT_SCENES_DIR + "/cornell.obj\"}]}");
    // (224, 144) in a 640x480 window: the back wall at x = 84, y = 467, above the tall box and below the light.
    dir.write("focus.txt",
              "frames 4\nscreenshot blurred.png\n"
              "frames 4\nscreenshot same.png\n"
              "click 224 144 left ctrl\nframes 4\nscreenshot focused.png\n"
              "key R\nframes 4\nscreenshot reset.png\n");
    RunResult r = run_viewer("--backend cpu --res 640x480 --scale 0.25 --spp-per-frame 4 --script focus.txt dof.json",
                             dir.path().string());
    SKIP_WITHOUT_XVFB(r);
    ASSERT_EQ(r.code, 0) << r.err;
    size_t at = r.err.find("pkrt-viewer: focus distance ");
    ASSERT_NE(at, std::string::npos) << r.err;
    double focus = std::stod(r.err.substr(at + std::string("pkrt-viewer: focus distance ").size()));
    EXPECT_NEAR(focus, 1359.2, 0.05);
    Png blurred = read_png(dir.file("blurred.png")), same = read_png(dir.file("same.png")),
        focused = read_png(dir.file("focused.png")), reset = read_png(dir.file("reset.png"));
    ASSERT_TRUE(blurred.ok() && same.ok() && focused.ok() && reset.ok()) << r.err;
    // Blocks of 8x8 render pixels (--scale 0.25): the lens's noise averages out, the sharpening does not.
    double floor = block_mean_diff(blurred, same, 32);
    EXPECT_GT(block_mean_diff(blurred, focused, 32), 3.0 * floor + 3.0) << "the click did not refocus";
    EXPECT_EQ(mean_abs_diff(blurred, reset), 0.0);
}

TEST(Viewer, OpensScenesAndSurvivesABadOne) {
    TempDir dir;
    dir.write("bad.obj", "v 0 0 0\nf 1 2 3\n");  // indexes vertices that do not exist
    dir.write("open.txt",
              "frames 2\nscreenshot cornell.png\n"
              "open bad.obj\nframes 2\nscreenshot still.png\n"
              "open " +
                  std::string(PKRT_SCENES_DIR) +
                  "/spheres.json\nframes 2\nscreenshot spheres.png\n"
                  "key F\nframes 2\nscreenshot framed.png\n");
    // 640 wide: the image area beside the panel is 320 wide, as the window alone was before the panel
    // was docked beside it.
    RunResult r = run_viewer("--backend cpu --res 640x260 --script open.txt", dir.path().string());
    SKIP_WITHOUT_XVFB(r);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("pkrt-viewer: warning: cannot open"), std::string::npos) << r.err;
    Png cornell = read_png(dir.file("cornell.png")), still = read_png(dir.file("still.png")),
        spheres = read_png(dir.file("spheres.png")), framed = read_png(dir.file("framed.png"));
    ASSERT_TRUE(cornell.ok() && still.ok() && spheres.ok() && framed.ok()) << r.err;
    EXPECT_LT(mean_abs_diff(cornell, still), 6.0);   // same scene, more samples
    EXPECT_GT(mean_abs_diff(still, spheres), 20.0);  // a different scene (sky, spheres)
    EXPECT_GT(mean_abs_diff(spheres, framed), 3.0);  // F moved the camera to frame the whole ground plane
}

TEST(Viewer, ResizeFollowsTheWindow) {
    TempDir dir;
    dir.write("resize.txt", "frames 2\nresize 400 300\nframes 2\nscreenshot small.png\n");
    RunResult r = run_viewer("--backend cpu --res 320x240 --script resize.txt", dir.path().string());
    SKIP_WITHOUT_XVFB(r);
    ASSERT_EQ(r.code, 0) << r.err;
    Png p = read_png(dir.file("small.png"));
    ASSERT_TRUE(p.ok()) << r.err;
    EXPECT_EQ(p.width, 200);   // 400 less the panel (half of the window)
    EXPECT_GT(p.height, 260);  // 300 less the menu bar
    EXPECT_LT(p.height, 300);
    EXPECT_GT(value_stddev(p), 10.0);
}

TEST(Viewer, CompareRunsAndReportsTheTable) {
    TempDir dir;
    dir.write("compare.txt", "frames 2\ncompare 3\nframes 1\nscreenshot ui.png ui\n");
    RunResult r = run_viewer("--backend cpu --res 640x480 --scale 0.25 --script compare.txt", dir.path().string());
    SKIP_WITHOUT_XVFB(r);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("3 frames per mode"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("pkrt-viewer:   cpu-threads"), std::string::npos) << r.err;
    Png ui = read_png(dir.file("ui.png"));
    EXPECT_TRUE(ui.ok());
}

// What the viewer shows is what pkrt render writes: with the same samples (frames of one sample each on
// the CPU, seed 0) the screenshot equals the CLI's PNG within one 8-bit step per channel, for every tone
// curve, a fixed exposure and the automatic one (metered on the GPU side by shaders/exposure.frag, on the
// host by render/image/look.cpp). The looks differ from each other, so the comparison can fail.
TEST(Viewer, ScreenshotEqualsPkrtRenderForEveryLook) {
    TempDir dir;
    const std::string scene = shell_quote(std::string(PKRT_SCENES_DIR) + "/spheres.json");
    std::map<std::string, Png> cli;
    for (const std::string look : {"--tone-map clamp", "--tone-map aces", "--tone-map agx --exposure 1.5",
                                   "--tone-map agx --exposure auto", "--exposure auto"}) {
        SCOPED_TRACE(look);
        RunResult v = run_viewer(
            scene + " --backend cpu --frames 6 --spp-per-frame 1 --scale 1 --res 96x64 " + look + " --screenshot v.png",
            dir.path().string());
        SKIP_WITHOUT_XVFB(v);
        ASSERT_EQ(v.code, 0) << v.err;
        RunResult c = run_in(shell_quote(PKRT_BINARY) + " render " + scene + " --backend cpu --spp 6 --res 96x64 " +
                                 look + " -q -o c.png",
                             dir.path().string());
        ASSERT_EQ(c.code, 0) << c.err;
        Png vp = read_png(dir.file("v.png")), cp = read_png(dir.file("c.png"));
        ASSERT_TRUE(vp.ok() && cp.ok());
        ASSERT_EQ(vp.rgb.size(), cp.rgb.size());
        EXPECT_LE(max_abs_diff(vp, cp), 1) << "largest difference in 8-bit steps";
        for (const auto& [other, png] : cli) EXPECT_GT(mean_abs_diff(png, cp), 2.0) << look << " against " << other;
        cli[look] = cp;
    }
}

// Automatic exposure between screenshots is metered without waiting for GL: the pass and its read-back
// are queued, and the value is taken up frames later. Once the image stops changing (--spp-target), that
// value is the one a screenshot meters at once (the same pass over the same texture), and some came.
TEST(Viewer, ExposureMeteredWithoutWaitingIsTheOneMeteredAtOnce) {
    TempDir dir;
    const std::string scene = shell_quote(std::string(PKRT_SCENES_DIR) + "/spheres.json");
    RunResult v = run_viewer(scene +
                                 " --backend cpu --frames 40 --spp-per-frame 1 --spp-target 4 --scale 1 --res 96x64 "
                                 "--exposure auto --screenshot v.png -v",
                             dir.path().string());
    SKIP_WITHOUT_XVFB(v);
    ASSERT_EQ(v.code, 0) << v.err;
    std::vector<double> queued, at_once;
    std::istringstream lines(v.err);
    for (std::string line; std::getline(lines, line);) {
        double stops = 0.0;
        if (std::sscanf(line.c_str(), "pkrt-viewer: debug: exposure metered: %lf", &stops) == 1)
            queued.push_back(stops);
        if (std::sscanf(line.c_str(), "pkrt-viewer: debug: exposure metered, waited for: %lf", &stops) == 1)
            at_once.push_back(stops);
    }
    ASSERT_GE(queued.size(), 3u) << v.err;
    ASSERT_GE(at_once.size(), 2u) << v.err;  // the first frame's, and the screenshot's
    EXPECT_NEAR(queued.back(), at_once.back(), 1e-5) << v.err;
    EXPECT_NE(at_once.back(), 0.0);
}

TEST(Viewer, BrokenOrMissingShadersFailWithOneLine) {
    TempDir dir;
    RunResult r =
        run_viewer("--backend cpu --frames 1 --shaders " + shell_quote(dir.file("nowhere")), dir.path().string());
    SKIP_WITHOUT_XVFB(r);
    EXPECT_EQ(r.code, 1);
    EXPECT_TRUE(has_one_error_line(r.err)) << r.err;
    EXPECT_NE(r.err.find("display.vert"), std::string::npos) << r.err;

    fs::create_directories(dir.file("broken"));
    fs::copy_file(std::string(PKRT_SOURCE_DIR) + "/shaders/display.vert", dir.file("broken/display.vert"));
    dir.write("broken/display.frag", "#version 330 core\nout vec4 c;\nvoid main() { c = vec4(undefined_thing); }\n");
    r = run_viewer("--backend cpu --frames 1 --shaders " + shell_quote(dir.file("broken")), dir.path().string());
    EXPECT_EQ(r.code, 1);
    EXPECT_TRUE(has_one_error_line(r.err)) << r.err;
    EXPECT_NE(r.err.find("display.frag: shader does not compile"), std::string::npos) << r.err;
}

// Bad input that is caught before any window opens: no X server needed.
TEST(ViewerCli, BadFlagsAndFilesGiveOneErrorLine) {
    TempDir dir;
    struct Case {
        std::string args, expect;
        int code;
    };
    dir.write("bad.txt", "frames 2\nwiggle 3\n");
    // Hostile input (issue 14): a 16-bit PGM texture crashed the viewer in stb_image; a script that is
    // not a regular file would hang it; the limit flags apply to the viewer's scenes too.
    dir.write("grey.pgm", "P5\n1024 1024\n65535\n" + std::string(2u * 1024 * 1024, '\x7f'));
    dir.write(
        "pgm.json",
        R"({"materials": {"t": {"texture": "grey.pgm"}}, "meshes": [{"quad": [[0,0,0],[1,0,0],[1,1,0],[0,1,0]], "material": "t"}]})");
    dir.write("big.json", R"({"meshes": [{"sphere": {"subdivisions": 7}}]})");
    std::vector<Case> cases = {
        {shell_quote(dir.file("pgm.json")), "grey.pgm: unsupported texture format", 1},
        {"--backend cpu --script /dev/zero", "/dev/zero: is not a regular file", 1},
        {"--max-triangles 1000 " + shell_quote(dir.file("big.json")), "raise it with --max-triangles", 1},
        {"--res 10x10", "--res 10x10", 2},
        {"--res banana", "expected WIDTHxHEIGHT", 2},
        {"--frames", "--frames", 2},
        {"--no-such-flag", "no-such-flag", 2},
        {"--backend gpu", "--backend gpu: must be auto, cpu or cuda", 1},
        {"--backend cpu --mode persistent", "the CPU backend has no scheduler modes", 1},
        {"--mode sideways", "--mode sideways: 'sideways' is not a mode", 1},
        {"--interop pbo", "--interop pbo: must be texture or buffer", 1},
        {"--tone-map filmic", "--tone-map: 'filmic' is not a tone curve (clamp, aces or agx)", 1},
        {"--exposure bright", "--exposure: 'bright' is neither 'auto' nor a number of stops", 1},
        {"--set grid_blocks=x", "--set grid_blocks=x: grid_blocks must be", 1},
        {"--set sideways=1", "--set sideways=1", 1},
        {"--preview 0", "--preview 0: must be between 1", 1},
        {"--preview 65", "--preview 65", 1},
        {"--spp-per-frame -3", "--spp-per-frame", 1},
        {"--spp-per-frame 0", "--spp-per-frame 0: must be between 1", 1},
        {"--spp-target -1", "--spp-target -1: must be between 0", 1},
        {"--target-error -0.5", "--target-error -0.5: must be a relative error greater than 0", 1},
        {"--target-error nan", "--target-error", 1},
        {"--bvh-splits 9", "--bvh-splits", 2},
        {"--sbvh --bvh-splits 1", "--sbvh and --bvh-splits exclude each other", 1},
        {"--frames 0", "--frames 0: must be between 1", 1},
        {"--max-depth 5000", "--max-depth", 1},
        {"--scale 3", "--scale", 1},
        {"--screenshot out.jpg --frames 1", "--screenshot", 1},
        {"--bookmarks marks.txt --frames 1", "--bookmarks marks.txt: must name a .json file", 1},
        {"--camera 2 --frames 1", "--camera 2: ", 1},
        {"--env " + shell_quote(dir.file("nowhere.hdr")) + " --frames 1", "nowhere.hdr", 1},
        {"--seed -1", "--seed", 2},
        {shell_quote(dir.file("missing.json")), "missing.json: no such file", 1},
        {shell_quote(dir.file("bad.txt")), "unknown scene type", 1},
        {"--backend cpu --script bad.txt", "bad.txt:2: unknown command 'wiggle'", 1},
        {"--backend cpu --script nothere.txt", "nothere.txt: cannot read the script", 1},
    };
    for (const auto& c : cases) {
        RunResult r = run_viewer(c.args, dir.path().string(), false);
        EXPECT_EQ(r.code, c.code) << c.args << "\n" << r.err;
        EXPECT_TRUE(has_one_error_line(r.err)) << c.args << "\n" << r.err;
        EXPECT_NE(r.err.find(c.expect), std::string::npos) << c.args << "\n" << r.err;
    }
    EXPECT_FALSE(fs::exists(dir.file("out.jpg")));
}

TEST(ViewerCli, NoDisplayIsAClearError) {
    TempDir dir;
    RunResult r = run_viewer("--backend cpu --frames 1", dir.path().string(), false);
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_TRUE(has_one_error_line(r.err)) << r.err;
    EXPECT_NE(r.err.find("cannot open a window"), std::string::npos) << r.err;
}

TEST(ViewerCli, HelpListsTheFlags) {
    TempDir dir;
    RunResult r = run_viewer("--help", dir.path().string(), false);
    EXPECT_EQ(r.code, 0);
    for (const char* flag :
         {"--backend", "--mode", "--res", "--spp-per-frame", "--max-depth", "--frames", "--screenshot", "--shaders",
          "--script", "--max-triangles", "--max-texels", "--max-polygon-corners"})
        EXPECT_NE(r.out.find(flag), std::string::npos) << flag;
}

// The denoised view is pkrt render --denoise's image: the same samples, the same denoiser, the same look.
TEST(Viewer, DenoisedScreenshotEqualsPkrtRenderDenoise) {
    TempDir dir;
    const std::string scene = shell_quote(std::string(PKRT_SCENES_DIR) + "/cornell.json");
    RunResult v = run_viewer(scene +
                                 " --backend cpu --frames 4 --spp-per-frame 2 --scale 1 --res 96x64 --denoise "
                                 "--screenshot v.png",
                             dir.path().string());
    SKIP_WITHOUT_XVFB(v);
    ASSERT_EQ(v.code, 0) << v.err;
    // A batch run says what its refreshes of the denoised view cost.
    const char* line = std::strstr(v.err.c_str(), "denoised view: ");
    ASSERT_NE(line, nullptr) << v.err;
    int refreshes = 0;
    double ms = 0.0, filter_ms = 0.0, upload_ms = 0.0;
    ASSERT_EQ(std::sscanf(
                  line,
                  "denoised view: %d refreshes, median %lf ms each (resolve, temporal reuse, filter, display upload), "
                  "of which %lf ms filtering and %lf ms the display's upload; filtered on the CPU",
                  &refreshes, &ms, &filter_ms, &upload_ms),
              4)
        << line;
    EXPECT_GE(refreshes, 1);
    EXPECT_GT(filter_ms, 0.0);
    EXPECT_GT(upload_ms, 0.0);
    EXPECT_GE(ms, filter_ms);  // each refresh's parts are within it, and so are their medians
    EXPECT_GE(ms, upload_ms);
    const std::string cli = shell_quote(PKRT_BINARY) + " render " + scene + " --backend cpu --spp 8 --res 96x64 -q";
    ASSERT_EQ(run_in(cli + " --denoise -o d.png", dir.path().string()).code, 0);
    ASSERT_EQ(run_in(cli + " -o n.png", dir.path().string()).code, 0);
    Png vp = read_png(dir.file("v.png")), dp = read_png(dir.file("d.png")), np = read_png(dir.file("n.png"));
    ASSERT_TRUE(vp.ok() && dp.ok() && np.ok());
    EXPECT_LE(max_abs_diff(vp, dp), 1) << "largest difference in 8-bit steps";
    EXPECT_GT(mean_abs_diff(vp, np), 1.0) << "the noisy image differs from the denoised one";
}
