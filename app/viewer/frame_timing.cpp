#include "app/viewer/frame_timing.h"

#include <algorithm>
#include <cstdio>

#include "render/log.h"

namespace pkrt::viewer {

double median_of(std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

void ViewChangeTimer::changed(uint32_t next_generation) {
    if (pending_) return;  // timed from the first change not yet on screen
    pending_ = true;
    generation_ = next_generation;
    changed_at_ = std::chrono::steady_clock::now();
    queued_ = false;
}

void ViewChangeTimer::queued(uint32_t generation) {
    if (!pending_ || queued_ || generation < generation_) return;
    queued_ = true;
    queued_ms_.push_back(ms_since_change());
}

void ViewChangeTimer::done(uint32_t generation) {
    if (!pending_ || generation < generation_) return;
    pending_ = false;
    shown_ = true;
    done_ms_.push_back(ms_since_change());
}

void ViewChangeTimer::presented(bool record) {
    if (!shown_) return;
    if (record) latencies_ms_.push_back(ms_since_change());
    shown_ = false;
}

void ViewChangeTimer::print(double display_frame_ms) const {
    if (latencies_ms_.empty()) return;
    std::vector<double> v = latencies_ms_;
    std::sort(v.begin(), v.end());
    log_info(
        "camera change to its first image on screen: median %.3f ms, max %.3f ms over %zu changes "
        "(display frame %.3f ms); medians of its parts: %.3f ms until its frame is queued, %.3f ms until it is done",
        median_of(v), v.back(), v.size(), display_frame_ms, median_of(queued_ms_), median_of(done_ms_));
}

double ViewChangeTimer::ms_since_change() const {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - changed_at_).count();
}

}  // namespace pkrt::viewer
