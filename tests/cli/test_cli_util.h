// The CLI tests' check for a clean failure, shared by test_cli.cpp and test_hostile_input.cpp.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "tests/test_util.h"

namespace pkrt_test {

inline int count_lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

// Every failure: non-zero exit, exactly one line on stderr that contains `needle`, no files left.
inline void expect_clean_failure(const TempDir& dir, const std::string& args, int code, const std::string& needle) {
    SCOPED_TRACE("pkrt " + args);
    // Killed after two minutes: a hang (a FIFO, /dev/zero, a quadratic loop) fails the test, not the suite.
    RunResult r = run_in("timeout -s KILL 120 " + shell_quote(PKRT_BINARY) + " " + args, dir.path().string());
    EXPECT_EQ(r.code, code) << r.err;
    EXPECT_EQ(count_lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("pkrt: error: "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << "stderr: " << r.err;
    for (const auto& e : dir.entries()) {
        bool input = e.rfind("in", 0) == 0 || e.rfind("b.", 0) == 0;  // inputs, or outputs of an earlier success
        EXPECT_TRUE(input) << "left a file behind: " << e;
    }
}

}  // namespace pkrt_test
