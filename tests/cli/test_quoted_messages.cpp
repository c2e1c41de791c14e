// Messages quote hostile text in part (issue 50, class 7): a name or value from a file or a flag appears with
// at most about 80 of its bytes and "...", so a forged 1 MB name is one readable line, not a megabyte of
// one. Before, a 1 MB map name, a 1 MB PLY element name and a 10 KB --aov value came back whole.
#include <gtest/gtest.h>

#include "tests/cli/test_cli_util.h"

using namespace pkrt_test;

namespace {

// One error line, short, with the quoted part cut and marked.
void expect_short_error(const TempDir& dir, const std::string& args, const std::string& needle) {
    SCOPED_TRACE(args.substr(0, 120));
    RunResult r = run_in("timeout -s KILL 120 " + shell_quote(PKRT_BINARY) + " " + args, dir.path().string());
    EXPECT_EQ(r.code, 1) << r.err.substr(0, 300);
    EXPECT_EQ(count_lines(r.err), 1) << r.err.substr(0, 300);
    EXPECT_LT(r.err.size(), 500u) << r.err.substr(0, 300);
    EXPECT_NE(r.err.find("..."), std::string::npos) << r.err.substr(0, 300);
    EXPECT_NE(r.err.find(needle), std::string::npos) << r.err.substr(0, 300);
}

const std::string kRender = " --backend cpu --res 8x8 --spp 1 -q -o out.png";
const std::string kQuad = "v 0 0 0\nv 1 0 0\nv 1 1 0\nvt 0 0\nvt 1 0\nvt 0 1\nusemtl a\nf 1/1 2/2 3/3\n";

}  // namespace

TEST(QuotedMessages, AMegabyteMapNameIsQuotedInPart) {
    TempDir dir;
    dir.write("in.mtl", "newmtl a\nmap_Kd " + std::string(1 << 20, 'a') + ".png\n");
    dir.write("in.obj", "mtllib in.mtl\n" + kQuad);
    expect_short_error(dir, "render in.obj" + kRender, "aaaa");
}

TEST(QuotedMessages, AMegabytePlyElementNameIsQuotedInPart) {
    TempDir dir;
    dir.write("in.ply",
              "ply\nformat ascii 1.0\nelement " + std::string(1 << 20, 'e') + " x\nproperty float x\nend_header\n");
    expect_short_error(dir, "render in.ply" + kRender, "element 'eeee");
}

TEST(QuotedMessages, ATenKilobyteFlagValueIsQuotedInPart) {
    TempDir dir;
    expect_short_error(dir,
                       "render " + shell_quote(std::string(PKRT_SCENES_DIR) + "/cornell.json") + kRender +
                           " --hdr out.exr --aov " + std::string(10000, 'z'),
                       "--aov zzzz");
}

// An EXR texture whose header carries a long forged attribute: whatever OpenEXR says of it, pkrt's line
// quotes the library's message in part.
TEST(QuotedMessages, AForgedExrAttributeIsQuotedInPart) {
    TempDir dir;
    const std::string name(100000, 'n');
    std::string exr("\x76\x2f\x31\x01\x02\x00\x00\x00", 8);
    exr += name + std::string("\0", 1) + "box2i" + std::string("\0", 1) + std::string("\x10\x00\x00\x00", 4) +
           std::string(16, '\0') + std::string("\0", 1);
    dir.write("in.exr", exr);
    dir.write("in.json", R"({"camera": {"eye": [0.5, 0.5, 2], "look_at": [0.5, 0.5, 0]},
        "materials": {"t": {"texture": "in.exr"}},
        "meshes": [{"quad": [[0,0,0],[1,0,0],[1,1,0],[0,1,0]], "material": "t"}]})");
    RunResult r = run_in(shell_quote(PKRT_BINARY) + " render in.json" + kRender, dir.path().string());
    EXPECT_EQ(r.code, 1) << r.err.substr(0, 300);
    EXPECT_EQ(count_lines(r.err), 1) << r.err.substr(0, 300);
    EXPECT_LT(r.err.size(), 500u) << r.err.substr(0, 300);
    EXPECT_NE(r.err.find("in.exr: cannot read EXR"), std::string::npos) << r.err.substr(0, 300);
}
