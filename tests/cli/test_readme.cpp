// The documentation against the programs: each program has exactly one synopsis (in README.md), and it
// and the program's flag table name every option `--help` lists and no option it does not, so the README
// cannot drift from the flags as they are.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <cctype>

#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/test_util.h"

using namespace pkrt_test;
namespace fs = std::filesystem;

namespace {

constexpr bool kViewerBuilt = PKRT_VIEWER_BUILT != 0;

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
}

// The options `--help` lists, each as the set of its names ("-o,--output" is one option of two names).
std::vector<std::set<std::string>> help_options(const std::string& help) {
    std::vector<std::set<std::string>> options;
    bool in_options = false;
    for (const std::string& line : lines_of(help)) {
        if (line == "Options:") in_options = true;
        else if (!line.empty() && line[0] != ' ') in_options = false;
        // An option's line starts with two spaces and a dash; its description's continuation lines with more.
        if (!in_options || line.size() < 3 || line.compare(0, 3, "  -") != 0) continue;
        std::string names = line.substr(2, line.find(' ', 2) - 2);
        std::set<std::string> option;
        std::stringstream split(names);
        for (std::string name; std::getline(split, name, ',');) option.insert(name);
        if (!option.count("--help")) options.push_back(option);
    }
    return options;
}

// Every `-x` or `--name` in a piece of documentation.
std::set<std::string> flags_in(const std::string& text) {
    static const std::regex flag(R"((?:^|[\s\[|`(])(--?[A-Za-z][A-Za-z0-9-]*))");
    std::set<std::string> out;
    for (std::sregex_iterator it(text.begin(), text.end(), flag), end; it != end; ++it) out.insert((*it)[1]);
    return out;
}

// Every option of `help` has a name in `documented`, and every flag in `documented` is one of `help`'s.
void expect_same_options(const std::vector<std::set<std::string>>& help, const std::set<std::string>& documented,
                         const std::string& what) {
    SCOPED_TRACE(what);
    ASSERT_FALSE(help.empty());
    std::set<std::string> known;
    for (const auto& option : help) {
        bool named = false;
        for (const auto& name : option) {
            known.insert(name);
            named = named || documented.count(name);
        }
        EXPECT_TRUE(named) << "--help lists " << *option.rbegin() << ", which is not documented";
    }
    for (const auto& flag : documented) EXPECT_TRUE(known.count(flag)) << flag << " is documented but not in --help";
}

struct Doc {
    std::string path;
    std::vector<std::string> lines;
};

std::vector<Doc> docs() {
    std::vector<Doc> out;
    std::vector<fs::path> paths = {fs::path(PKRT_SOURCE_DIR) / "README.md",
                                   fs::path(PKRT_SOURCE_DIR) / "app/viewer/README.md"};
    for (const auto& e : fs::directory_iterator(fs::path(PKRT_SOURCE_DIR) / "docs"))
        if (e.path().extension() == ".md") paths.push_back(e.path());
    for (const auto& p : paths) out.push_back({p.string(), lines_of(read_text(p.string()))});
    return out;
}

// A synopsis: a fenced block whose first line is the program's name followed by its arguments.
bool starts_synopsis(const std::string& line, const std::string& program) {
    static const std::regex prefix(R"(^(build/|\S*/bin/)?)");
    std::string bare = std::regex_replace(line, prefix, "");
    if (bare.size() <= program.size() + 1 || bare.compare(0, program.size() + 1, program + " ") != 0) return false;
    const char next = bare[program.size() + 1];  // "[SCENE]" or "SCENE...", not a sentence about the program
    return next == '[' || std::isupper(static_cast<unsigned char>(next));
}

// The one synopsis of `program` in the documentation, and the flag table of the README section that holds
// it (empty where that section has none).
struct Synopsis {
    std::string text, table;
};

Synopsis find_synopsis(const std::string& program) {
    Synopsis found;
    int count = 0;
    for (const Doc& doc : docs()) {
        const auto& L = doc.lines;
        for (size_t i = 0; i + 1 < L.size(); ++i) {
            if (L[i].rfind("```", 0) != 0 || !starts_synopsis(L[i + 1], program)) continue;
            ++count;
            EXPECT_NE(doc.path.find("README.md"), std::string::npos) << program << " has a synopsis in " << doc.path;
            size_t j = i + 1;
            for (; j < L.size() && L[j].rfind("```", 0) != 0; ++j) found.text += L[j] + "\n";
            // The section's first flag table, up to the next heading.
            bool in_table = false;
            for (; j < L.size() && L[j].rfind("## ", 0) != 0; ++j) {
                if (L[j].rfind("| flag |", 0) == 0) in_table = true;
                else if (in_table && L[j].rfind("|", 0) != 0) break;
                // The first column alone: the meaning may mention other programs' flags.
                if (in_table && L[j].rfind("|---", 0) != 0) {
                    size_t end = 1;  // the cell ends at the first '|' that is not escaped ("\\|")
                    while ((end = L[j].find('|', end)) != std::string::npos && L[j][end - 1] == '\\') ++end;
                    found.table += L[j].substr(0, end) + "\n";
                }
            }
        }
    }
    EXPECT_EQ(count, 1) << program << ": synopses found";
    return found;
}

std::vector<std::set<std::string>> help_of(const std::string& binary, const std::string& args) {
    TempDir dir;  // run_in keeps the output beside it: a folder of its own, as the cases run in parallel
    RunResult r = run_in(shell_quote(binary) + " " + args + " --help", dir.path().string());
    EXPECT_EQ(r.code, 0) << r.err;
    return help_options(r.out);
}

TEST(Readme, RenderSynopsisAndFlagTableMatchHelp) {
    Synopsis s = find_synopsis("pkrt render");
    auto help = help_of(PKRT_BINARY, "render");
    expect_same_options(help, flags_in(s.text), "pkrt render synopsis");
    ASSERT_FALSE(s.table.empty());
    expect_same_options(help, flags_in(s.table), "pkrt render flag table");
}

TEST(Readme, BenchSynopsisMatchesHelp) {
    Synopsis s = find_synopsis("pkrt bench");
    expect_same_options(help_of(PKRT_BINARY, "bench"), flags_in(s.text), "pkrt bench synopsis");
}

TEST(Readme, ViewerSynopsisAndFlagTableMatchHelp) {
    if (!kViewerBuilt) GTEST_SKIP() << "pkrt-viewer is not built (-DPKRT_BUILD_VIEWER=OFF)";
    Synopsis s = find_synopsis("pkrt-viewer");
    auto help = help_of(std::string(PKRT_BUILD_DIR) + "/pkrt-viewer", "");
    expect_same_options(help, flags_in(s.text), "pkrt-viewer synopsis");
    ASSERT_FALSE(s.table.empty());
    expect_same_options(help, flags_in(s.table), "pkrt-viewer flag table");
}

// The checks themselves: an option missing from the documentation, or a documented one that does not
// exist, is found.
TEST(Readme, CheckFindsMissingAndStaleFlags) {
    auto help = help_options(
        "Options:\n  -h,--help  Print\n  -o,--output TEXT  Out\n  --spp INT  Samples\n"
        "                              continued -not-a-flag\n");
    ASSERT_EQ(help.size(), 2u);
    EXPECT_EQ(flags_in("pkrt render [-o out.png] [--spp N|--no-x]"), (std::set<std::string>{"-o", "--spp", "--no-x"}));
    EXPECT_EQ(flags_in("| `--a`, `-b N` | x |"), (std::set<std::string>{"--a", "-b"}));
    EXPECT_NONFATAL_FAILURE(expect_same_options(help, {"--output"}, "missing"), "--spp, which is not documented");
    EXPECT_NONFATAL_FAILURE(expect_same_options(help, {"-o", "--spp", "--gone"}, "stale"),
                            "--gone is documented but not in --help");
}

// --help states defaults as they are: spatial splits are on by default, so --sbvh is not shown as false.
TEST(Readme, HelpStatesSbvhAsTheDefault) {
    TempDir dir;
    RunResult r = run_in(shell_quote(PKRT_BINARY) + " render --help", dir.path().string());
    ASSERT_EQ(r.code, 0);
    EXPECT_EQ(r.out.find("{false}"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("spatial splits (SBVH; the default)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("--missing-textures TEXT:{error,warn}=error"), std::string::npos) << r.out;
}

}  // namespace
