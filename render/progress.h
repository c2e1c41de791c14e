// Progress for long work: on a terminal a redrawn bar with rate and ETA, otherwise one line per 10%
// (logs stay readable). Thread-safe; updates are throttled.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>

namespace pkrt {

class Progress {
public:
    // `unit` names what is counted ("samples"); out = nullptr disables output.
    Progress(std::string label, uint64_t total, std::string unit, std::FILE* out = stderr);
    void add(uint64_t n);
    void finish();
    // The work ended before its total (a time limit): the last line shows how far it got.
    void stop();
    static std::string format_rate(double per_second);   // 1.23 M
    static std::string format_duration(double seconds);  // 1m05s

private:
    void draw(bool final_line);

    std::string label_, unit_;
    uint64_t total_, done_ = 0;
    std::FILE* out_;
    bool tty_;
    int last_decile_ = -1;
    bool finished_ = false;
    std::chrono::steady_clock::time_point start_, last_draw_;
    std::mutex mutex_;
};

}  // namespace pkrt
