// Helpers shared by the tests: temporary directories, file writing, running the pkrt binary.
#pragma once

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "render/error.h"

namespace pkrt_test {

namespace fs = std::filesystem;

// A fresh directory under the system temp dir, removed with everything in it at scope exit.
class TempDir {
public:
    TempDir() {
        std::string tmpl = (fs::temp_directory_path() / "pkrt-test-XXXXXX").string();
        std::vector<char> buf(tmpl.begin(), tmpl.end());
        buf.push_back('\0');
        char* made = ::mkdtemp(buf.data());
        path_ = made ? made : tmpl;
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path_, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const fs::path& path() const { return path_; }
    std::string file(const std::string& name) const { return (path_ / name).string(); }
    std::string write(const std::string& name, const std::string& text) const {
        std::string p = file(name);
        std::ofstream(p, std::ios::binary) << text;
        return p;
    }
    // Names of everything in the directory (to prove no partial output was left).
    std::vector<std::string> entries() const {
        std::vector<std::string> out;
        for (const auto& e : fs::directory_iterator(path_)) out.push_back(e.path().filename().string());
        return out;
    }

private:
    fs::path path_;
};

inline std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

struct RunResult {
    int code = -1;
    std::string out, err;
};

inline std::string shell_quote(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

// Runs a shell command line in directory cwd, capturing its stdout, stderr and exit status.
inline RunResult run_in(const std::string& command, const std::string& cwd) {
    std::string out = cwd + "/.stdout", err = cwd + "/.stderr";
    std::string cmd = "cd " + shell_quote(cwd) + " && " + command + " >" + shell_quote(out) + " 2>" + shell_quote(err) +
                      " </dev/null";
    int status = std::system(cmd.c_str());
    RunResult r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    r.out = read_text(out);
    r.err = read_text(err);
    std::error_code ec;
    fs::remove(out, ec);
    fs::remove(err, ec);
    return r;
}

// Runs the pkrt binary with args (already shell-quoted where needed) in directory cwd.
inline RunResult run_pkrt(const std::string& args, const std::string& cwd) {
    return run_in(shell_quote(PKRT_BINARY) + " " + args, cwd);
}

// The third-party scenes (README, "Third-party scenes"): the folder PKRT_SCENES names, by default
// ../shared/scenes beside the checkout.
inline std::string shared_scenes_dir() {
    const char* dir = std::getenv("PKRT_SCENES");
    return dir && *dir ? std::string(dir) : std::string(PKRT_SHARED_SCENES_DIR);
}
inline std::string shared_scene(const std::string& rel) { return shared_scenes_dir() + "/" + rel; }
inline bool have_shared_scene(const std::string& rel) { return fs::exists(shared_scene(rel)); }

// "" when the scene is there; else one line saying what is missing and how to point at it.
inline std::string missing_shared_scene(const std::string& rel) {
    if (have_shared_scene(rel)) return "";
    return "third-party scene " + shared_scene(rel) +
           " is missing: set PKRT_SCENES to the folder holding "
           "the shared scenes (README, \"Third-party scenes\")";
}

// Where a test needs shared data: without it the test is skipped with the reason, except under CI=true,
// where missing data is a failure (CI always has it beside the clone).
inline bool under_ci() {
    const char* ci = std::getenv("CI");
    return ci && std::string(ci) == "true";
}
#define REQUIRE_SHARED_SCENE(rel)                                         \
    do {                                                                  \
        std::string pkrt_missing_ = pkrt_test::missing_shared_scene(rel); \
        if (!pkrt_missing_.empty()) {                                     \
            if (pkrt_test::under_ci()) FAIL() << pkrt_missing_;           \
            GTEST_SKIP() << pkrt_missing_;                                \
        }                                                                 \
    } while (0)

// The message of the pkrt::Error that f throws; "" where it throws none.
inline std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const pkrt::Error& e) {
        return e.what();
    }
    return "";
}

}  // namespace pkrt_test
