// What an output may replace (issue 50, class 1): a regular file or nothing. An output that names a
// device, a FIFO or a socket, directly or through a symbolic link, is refused with one error line and
// the node is left as it was, in every program that writes (pkrt render, its sequences, pkrt bench).
#include <gtest/gtest.h>

#include <cstdio>

#include "tests/cli/test_cli_util.h"
#include "tests/special_files.h"

using namespace pkrt_test;

namespace {

const std::string kSphere = R"({"camera": {"eye": [0, 0, 4]}, "meshes": [{"sphere": {"subdivisions": 1}}]})";
const std::string kRender = "render in_s.json --backend cpu --res 8x8 --spp 1 -q ";
const std::string kBench = "bench in_s.json --backend cpu --res 8x8 --repeat 1 --warmup 0 -q ";

struct Case {
    std::string args;  // with NODE where the node's name goes
    std::string ext;   // the node's extension
    std::string flag;  // what the message names
};

const std::vector<Case>& cases() {
    static const std::vector<Case> all = {
        {kRender + "-o NODE", ".png", "-o"},
        {kRender + "-o out.png --hdr NODE", ".exr", "--hdr"},
        {kRender + "-o out.png --stats NODE", ".json", "--stats"},
        {kBench + "--json NODE", ".json", "--json"},
        {kBench + "--csv NODE", ".csv", "--csv"},
        {kBench + "--plot NODE", ".png", "--plot"},
    };
    return all;
}

}  // namespace

TEST(OutputPolicy, NodesAreNeverReplacedDirectlyOrThroughALink) {
    for (const SpecialNode& node : special_nodes()) {
        for (const Case& c : cases()) {
            for (bool through_link : {false, true}) {
                TempDir dir;
                dir.write("in_s.json", kSphere);
                std::string node_path = dir.file("in_node" + c.ext);
                if (!make_node(node_path, node.kind)) {
                    std::printf("skipped %s: this process cannot make one here\n", node.name);
                    continue;
                }
                std::string name = "in_node" + c.ext;
                if (through_link) {
                    name = "in_link" + c.ext;
                    fs::create_symlink("in_node" + c.ext, dir.file(name));
                }
                std::string args = c.args;
                args.replace(args.find("NODE"), 4, name);
                SCOPED_TRACE(std::string(node.name) + (through_link ? " through a link" : ""));
                expect_clean_failure(dir, args, 1, c.flag + " " + name + ": is " + node.name + ", not a regular file");
                EXPECT_TRUE(is_node(node_path, node.kind)) << "the node was replaced: " << args;
            }
        }
    }
}

// A sequence checks each frame's names as it writes them: frame 1 a FIFO stops the sequence with one line.
TEST(OutputPolicy, ASequenceFrameThatIsANodeIsRefused) {
    TempDir dir;
    dir.write("in_s.json", kSphere);
    ASSERT_TRUE(make_node(dir.file("in_f1.png"), NodeKind::kFifo));
    RunResult r = run_pkrt(kRender + "--frames 2 --camera-path orbit -o in_f%d.png", dir.path().string());
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_EQ(count_lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("in_f1.png: is a FIFO, not a regular file"), std::string::npos) << r.err;
    EXPECT_TRUE(is_node(dir.file("in_f1.png"), NodeKind::kFifo));
}

// A regular file (and a link to one) is still replaced, as before.
TEST(OutputPolicy, RegularFilesAreStillReplaced) {
    TempDir dir;
    dir.write("in_s.json", kSphere);
    dir.write("old.png", "old");
    fs::create_symlink("old.png", dir.file("link.png"));
    RunResult r = run_pkrt(kRender + "-o link.png", dir.path().string());
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(read_text(dir.file("old.png")).substr(1, 3), "PNG");
    EXPECT_TRUE(fs::is_symlink(fs::symlink_status(dir.file("link.png"))));
}
