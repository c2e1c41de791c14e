// Per-mode time series for the Statistics panel: frame time and rays/s of the most recent frames of
// each scheduler mode, kept apart so switching modes live draws each mode's own curve.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace pkrt::viewer {

class StatsHistory {
public:
    static constexpr size_t kCapacity = 240;  // a few seconds at interactive rates

    struct Series {
        std::vector<float> ms;           // per frame
        std::vector<float> mrays_per_s;  // per frame, millions
    };

    void add(const std::string& mode, double ms, double rays);
    void clear() { series_.clear(); }
    const std::map<std::string, Series>& series() const { return series_; }

private:
    std::map<std::string, Series> series_;
};

}  // namespace pkrt::viewer
