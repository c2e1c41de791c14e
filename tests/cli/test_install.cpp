// `cmake --install`: the installed pkrt (and pkrt-viewer) find their data beside them, in share/pkrt, from
// any working directory and after the installed tree is moved; the binaries of the build folder keep using
// the source tree.
#include <gtest/gtest.h>
#include <stb_image.h>

#include <filesystem>
#include <set>
#include <string>

#include "tests/test_util.h"

using namespace pkrt_test;
namespace fs = std::filesystem;

namespace {

constexpr bool kViewerBuilt = PKRT_VIEWER_BUILT != 0;

// What an installed pkrt renders by default and reports in `pkrt info`, under `prefix`.
void expect_renders_from(const fs::path& prefix, const TempDir& out) {
    SCOPED_TRACE("installed at " + prefix.string());
    const std::string data = (prefix / "share/pkrt").string();
    const std::string pkrt = shell_quote((prefix / "bin/pkrt").string());
    fs::remove(out.file("a.png"));
    // Run from a directory that holds nothing of pkrt's, so that nothing can be found relative to it.
    RunResult r =
        run_in(pkrt + " render --spp 1 --res 32x32 -o " + shell_quote(out.file("a.png")), out.path().string());
    ASSERT_EQ(r.code, 0) << r.err;
    int w = 0, h = 0, n = 0;
    ASSERT_TRUE(stbi_info(out.file("a.png").c_str(), &w, &h, &n)) << "not a PNG";
    EXPECT_EQ(w, 32);
    EXPECT_EQ(h, 32);
    EXPECT_NE(r.err.find("pkrt: " + data + "/scenes/cornell.json: "), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find(PKRT_SOURCE_DIR), std::string::npos) << "the source tree was used: " << r.err;

    r = run_in(pkrt + " info", out.path().string());
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("data directory: " + data + "\n"), std::string::npos) << r.out;

    if (kViewerBuilt) {
        // --help prints the default of --shaders without opening a window.
        r = run_in(shell_quote((prefix / "bin/pkrt-viewer").string()) + " --help", out.path().string());
        ASSERT_EQ(r.code, 0) << r.err;
        EXPECT_NE(r.out.find(data + "/shaders"), std::string::npos) << r.out;
    }
}

}  // namespace

TEST(Install, InstalledTreeFindsItsDataWhereverItIsMoved) {
    TempDir dir, out;
    // The temp folder may lie behind a symbolic link; the binary sees its own path with links resolved.
    const fs::path root = fs::canonical(dir.path());
    const fs::path prefix = root / "prefix";
    RunResult r = run_in(shell_quote(PKRT_CMAKE_COMMAND) + " --install " + shell_quote(PKRT_BUILD_DIR) + " --prefix " +
                             shell_quote(prefix.string()),
                         root.string());
    ASSERT_EQ(r.code, 0) << r.out << r.err;

    std::set<std::string> binaries;
    for (const auto& e : fs::directory_iterator(prefix / "bin")) binaries.insert(e.path().filename().string());
    std::set<std::string> expected = {"pkrt"};
    if (kViewerBuilt) expected.insert("pkrt-viewer");
    EXPECT_EQ(binaries, expected) << "the programs alone, no test binaries";

    const fs::path data = prefix / "share/pkrt";
    for (const char* file : {"scenes/cornell.json", "scenes/cornell.obj", "scenes/cornell.mtl",
                             "scenes/bench/crytek-sponza.json", "scenes/bench/cutout/checker.png"})
        EXPECT_TRUE(fs::is_regular_file(data / file)) << file;
    EXPECT_EQ(fs::exists(data / "shaders/display.vert"), kViewerBuilt);
    EXPECT_EQ(fs::exists(data / "shaders/display.frag"), kViewerBuilt);

    expect_renders_from(prefix, out);
    const fs::path moved = root / "moved";
    fs::rename(prefix, moved);
    expect_renders_from(moved, out);
}

TEST(Install, BuildFolderBinaryUsesTheSourceTree) {
    TempDir dir;
    RunResult r = run_pkrt("info", dir.path().string());
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("data directory: " + std::string(PKRT_SOURCE_DIR) + "\n"), std::string::npos) << r.out;
}
