// One way to read every flag (issue 50, class 8): in pkrt render, pkrt bench and pkrt-viewer alike, a value
// is never empty (an empty value was "not given": --hdr "" wrote nothing and exited 0), never padded, a
// number decimal and whole (--exposure 0x10 was 16 stops, --spp 010 was 8), a list without empty items,
// and the viewer's limits are pkrt render's (it took --scale 0 and --max-depth -1).
#include <gtest/gtest.h>

#include "tests/cli/test_cli_util.h"

using namespace pkrt_test;

namespace {

const std::string kRender = "render " + shell_quote(std::string(PKRT_SCENES_DIR) + "/cornell.json") +
                            " --backend cpu --res 8x8 --spp 1 -q -o out.png";

// Exit 2 (command-line syntax) or 1 (a value out of range), one line naming the flag, no output.
void expect_refused(const std::string& program, const std::string& args, const std::string& needle) {
    TempDir dir;
    SCOPED_TRACE(args);
    RunResult r = run_in("timeout -s KILL 60 env -u DISPLAY " + shell_quote(program) + " " + args, dir.path().string());
    EXPECT_TRUE(r.code == 1 || r.code == 2) << r.code << " " << r.err;
    EXPECT_EQ(count_lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("error: "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << "stderr: " << r.err;
    EXPECT_TRUE(dir.entries().empty()) << "left a file behind";
}

}  // namespace

TEST(StrictFlags, EmptyValuesAreErrorsNotDefaults) {
    for (const std::string flag : {"--hdr", "--aov", "--exposure", "--tone-map", "--log-level", "--env", "--checkpoint",
                                   "--camera", "--stats", "--resume", "--mode", "--devices", "--set", "--spp"}) {
        expect_refused(PKRT_BINARY, kRender + " " + flag + " ''", flag + ": an empty value");
    }
    expect_refused(PKRT_BINARY, kRender + " --hdr=", "--hdr: ");  // CLI11: "1 required TEXT missing"
}

TEST(StrictFlags, NumbersAreDecimalWholeAndUnpadded) {
    expect_refused(PKRT_BINARY, kRender + " --exposure 0x10", "--exposure: '0x10' is neither 'auto' nor a number");
    expect_refused(PKRT_BINARY, kRender + " --exposure inf", "--exposure: 'inf'");
    expect_refused(PKRT_BINARY, kRender + " --res ' 16x16'", "--res: ' 16x16' has blanks around it");
    expect_refused(PKRT_BINARY, kRender + " --max-depth 010", "--max-depth: '010' is not a whole number");
    expect_refused(PKRT_BINARY, kRender + " --max-depth 0x3", "--max-depth: '0x3' is not a whole number");
    expect_refused(PKRT_BINARY, kRender + " --max-depth +3", "--max-depth: '+3' is not a whole number");
    expect_refused(PKRT_BINARY, kRender + " --seed -1", "--seed: '-1' is not a whole number");
    expect_refused(PKRT_BINARY, kRender + " --aperture 0x1p-3", "--aperture: '0x1p-3' is not a decimal number");
    expect_refused(PKRT_BINARY, kRender + " --aperture 1e", "--aperture: '1e' is not a decimal number");
    // nan and inf are numbers that every float flag's own range check refuses, in its words.
    for (const std::string flag :
         {"--aperture", "--focus-distance", "--target-error", "--time-limit", "--checkpoint", "--bvh-splits"}) {
        expect_refused(PKRT_BINARY, kRender + " " + flag + " nan", flag);
        expect_refused(PKRT_BINARY, kRender + " " + flag + " -inf", flag);
    }
    expect_refused(PKRT_BINARY, kRender + " -j ' 2'", "' 2' has blanks around it");
    // What is well formed still works.
    TempDir dir;
    RunResult r = run_pkrt(kRender + " --exposure -1.5 --max-depth 3 --aperture 0 --seed 0", dir.path().string());
    EXPECT_EQ(r.code, 0) << r.err;
}

TEST(StrictFlags, ListsHaveNoEmptyItems) {
    const std::string bench = "bench " + shell_quote(std::string(PKRT_SCENES_DIR) + "/cornell.json") +
                              " --backend cpu --repeat 1 --warmup 0 -q";
    expect_refused(PKRT_BINARY, bench + " --res 16x16,,8x8", "--res 16x16,,8x8: a list with an empty item");
    expect_refused(PKRT_BINARY, bench + " --res=16x16,", "--res 16x16,: a list with an empty item");
    expect_refused(PKRT_BINARY, bench + " --max-depth ,2", "--max-depth ,2: a list with an empty item");
    expect_refused(PKRT_BINARY, bench + " --res 0x10", "--res 0x10: each side must be between");
    expect_refused(PKRT_BINARY, kRender + " --aov albedo,,depth --hdr o.exr",
                   "--aov albedo,,depth: '' is not a feature");
}

#ifdef PKRT_VIEWER_BINARY
// The viewer reads its flags as pkrt render does (checked before any window opens, so no display is needed).
TEST(StrictFlags, TheViewerReadsFlagsAsPkrtDoes) {
    const std::string v = std::string(PKRT_VIEWER_BINARY);
    const std::string scene =
        shell_quote(std::string(PKRT_SCENES_DIR) + "/cornell.json") + " --backend cpu --frames 1 ";
    expect_refused(v, scene + "--scale 0", "--scale: must be between 0.05 and 1");
    expect_refused(v, scene + "--max-depth -1", "--max-depth");
    expect_refused(v, scene + "--camera ''", "--camera: an empty value");
    expect_refused(v, scene + "--env ''", "--env: an empty value");
    expect_refused(v, scene + "--exposure 0x10", "--exposure: '0x10' is neither");
    expect_refused(v, scene + "--res ' 64x48'", "has blanks around it");
    expect_refused(v, scene + "--spp-per-frame 010", "--spp-per-frame: '010' is not a whole number");
    for (const std::string flag : {"--scale", "--target-error", "--bvh-splits"}) {
        expect_refused(v, scene + flag + " nan", flag);
        expect_refused(v, scene + flag + " inf", flag);
    }
    expect_refused(v, scene + "--screenshot ''", "--screenshot: an empty value");
}
#endif
