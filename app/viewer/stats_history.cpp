#include "app/viewer/stats_history.h"

namespace pkrt::viewer {

namespace {

void push(std::vector<float>& v, float x) {
    // Capacity is small: erasing the front is cheaper than the bookkeeping of a ring that PlotLines
    // would need an offset for anyway.
    if (v.size() >= StatsHistory::kCapacity) v.erase(v.begin());
    v.push_back(x);
}

}  // namespace

void StatsHistory::add(const std::string& mode, double ms, double rays) {
    Series& s = series_[mode];
    push(s.ms, static_cast<float>(ms));
    push(s.mrays_per_s, static_cast<float>(ms > 0 ? rays / (ms * 1e-3) * 1e-6 : 0.0));
}

}  // namespace pkrt::viewer
