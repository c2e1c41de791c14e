// The viewer's outputs under pkrt render's rules (issue 50, classes 1 and 2): a screenshot (--frames,
// a script's, P's) and the bookmarks file never replace a device, a FIFO or a socket, nor any file the
// run reads (the scene's textures, the --env map, the script); a refused name is one error line.
#include <gtest/gtest.h>

#include "render/image/image.h"
#include "tests/special_files.h"
#include "tests/viewer/test_viewer_util.h"

using namespace pkrt_test;

namespace {

const std::string kFlags = " --backend cpu --res 32x24 --scale 1 -q";

int lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

#define EXPECT_ONE_ERROR_LINE(r, needle)                                             \
    do {                                                                             \
        EXPECT_EQ((r).code, 1) << (r).err;                                           \
        EXPECT_EQ(lines((r).err), 1) << (r).err;                                     \
        EXPECT_NE((r).err.find("error: "), std::string::npos) << (r).err;            \
        EXPECT_NE((r).err.find(needle), std::string::npos) << "stderr: " << (r).err; \
    } while (0)

// A quad textured with tex.png under the sky.
void textured_scene(const TempDir& dir) {
    pkrt::Image tex;
    tex.width = tex.height = 4;
    tex.pixels.assign(16, pkrt::Vec3{0.5f, 0.25f, 0.125f});
    pkrt::write_image(dir.file("tex.png"), tex);
    dir.write("s.json", R"({"camera": {"eye": [0.5, 0.5, 2], "look_at": [0.5, 0.5, 0]},
        "materials": {"t": {"texture": "tex.png"}},
        "meshes": [{"quad": [[0,0,0],[1,0,0],[1,1,0],[0,1,0]], "material": "t"}]})");
}

}  // namespace

TEST(ViewerOutputs, ScreenshotsAndBookmarksNeverReplaceNodes) {
    for (const SpecialNode& node : special_nodes()) {
        TempDir dir;
        const std::string cwd = dir.path().string();
        textured_scene(dir);
        if (!make_node(dir.file("node.png"), node.kind)) continue;  // a character device needs root
        ASSERT_TRUE(make_node(dir.file("node.json"), node.kind));
        fs::create_symlink("node.png", dir.file("link.png"));
        SCOPED_TRACE(node.name);
        RunResult r = run_viewer("s.json" + kFlags + " --frames 1 --screenshot node.png", cwd);
        SKIP_WITHOUT_XVFB(r);
        EXPECT_ONE_ERROR_LINE(r, std::string("node.png: is ") + node.name + ", not a regular file");
        r = run_viewer("s.json" + kFlags + " --frames 1 --screenshot link.png", cwd);
        EXPECT_ONE_ERROR_LINE(r, std::string("link.png: is ") + node.name);
        // A script's screenshot, which no flag announces: refused when it runs.
        dir.write("in.txt", "frames 1\nscreenshot link.png\n");
        r = run_viewer("s.json" + kFlags + " --script in.txt", cwd);
        EXPECT_ONE_ERROR_LINE(r, std::string("link.png: is ") + node.name);
        // The bookmarks file is refused at start, before it could be written.
        r = run_viewer("s.json" + kFlags + " --frames 1 --bookmarks node.json", cwd);
        EXPECT_ONE_ERROR_LINE(r, std::string("node.json: is ") + node.name);
        EXPECT_TRUE(is_node(dir.file("node.png"), node.kind)) << "replaced";
        EXPECT_TRUE(is_node(dir.file("node.json"), node.kind)) << "replaced";
    }
}

TEST(ViewerOutputs, ScreenshotsNeverReplaceTheRunsInputs) {
    TempDir dir;
    const std::string cwd = dir.path().string();
    textured_scene(dir);
    pkrt::Image sky;
    sky.width = 8;
    sky.height = 4;
    sky.pixels.assign(32, pkrt::Vec3{1.0f, 1.0f, 1.0f});
    pkrt::write_image(dir.file("sky.exr"), sky);
    const std::string tex = read_text(dir.file("tex.png")), env = read_text(dir.file("sky.exr"));
    // --screenshot naming an input fails before the window opens, as pkrt render's -o does.
    RunResult r = run_viewer("s.json" + kFlags + " --frames 1 --env sky.exr --screenshot sky.exr", cwd);
    SKIP_WITHOUT_XVFB(r);
    EXPECT_ONE_ERROR_LINE(r, "--screenshot sky.exr: is the input");
    r = run_viewer("s.json" + kFlags + " --frames 1 --screenshot tex.png", cwd);
    EXPECT_ONE_ERROR_LINE(r, "--screenshot tex.png: is the input");
    // A script's screenshot over the texture the scene reads, by another name (a hard link), and over
    // the --env map.
    fs::create_hard_link(dir.file("tex.png"), dir.file("hard.png"));
    dir.write("in.txt", "frames 1\nscreenshot hard.png\n");
    r = run_viewer("s.json" + kFlags + " --script in.txt", cwd);
    EXPECT_ONE_ERROR_LINE(r, "in.txt:2: hard.png: is the input");  // the script's file and line, as it ran
    dir.write("in2.txt", "frames 1\nscreenshot sky.exr\n");
    r = run_viewer("s.json" + kFlags + " --env sky.exr --script in2.txt", cwd);
    EXPECT_ONE_ERROR_LINE(r, "sky.exr: is the input");
    // The bookmarks file may not be an input either.
    fs::create_hard_link(dir.file("s.json"), dir.file("marks.json"));
    r = run_viewer("s.json" + kFlags + " --frames 1 --bookmarks marks.json", cwd);
    EXPECT_ONE_ERROR_LINE(r, "--bookmarks marks.json: is the input");
    EXPECT_EQ(read_text(dir.file("tex.png")), tex);
    EXPECT_EQ(read_text(dir.file("sky.exr")), env);
    // And a screenshot that replaces nothing of the run is written.
    r = run_viewer("s.json" + kFlags + " --frames 1 --screenshot out.png", cwd);
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(read_png(dir.file("out.png")).ok());
}

// A script's screenshot is written as its extension says: "a.bmp" was a PNG under another name (class 8).
TEST(ViewerOutputs, ScriptScreenshotsNameTheirFormat) {
    TempDir dir;
    const std::string cwd = dir.path().string();
    textured_scene(dir);
    dir.write("in.txt", "frames 1\nscreenshot a.bmp\n");
    RunResult r = run_viewer("s.json" + kFlags + " --script in.txt", cwd);
    SKIP_WITHOUT_XVFB(r);
    EXPECT_ONE_ERROR_LINE(r, "in.txt:2: screenshot: PATH must end in .png or .exr");
    EXPECT_FALSE(fs::exists(dir.file("a.bmp")));
}
