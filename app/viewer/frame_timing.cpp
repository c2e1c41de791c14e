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
    now_ = Parts{};
}

void ViewChangeTimer::queued(uint32_t generation) {
    if (!pending_ || now_.queued >= 0 || generation < generation_) return;
    now_.queued = ms_since_change();
}

void ViewChangeTimer::done(uint32_t generation) {
    if (!pending_ || generation < generation_) return;
    pending_ = false;
    shown_ = true;
    now_.done = ms_since_change();
}

void ViewChangeTimer::uploaded() {
    if (shown_ && now_.uploaded < 0) now_.uploaded = ms_since_change();
}

void ViewChangeTimer::presenting() {
    if (shown_ && now_.drawn < 0) now_.drawn = ms_since_change();
}

void ViewChangeTimer::presented(bool record) {
    if (pending_) ++now_.pass;  // a frame presented before the new view's image
    if (!shown_) return;
    shown_ = false;
    if (!record) return;
    Parts p = now_;
    ++p.pass;
    p.on_screen = ms_since_change();
    if (p.drawn < 0) p.drawn = p.on_screen;
    if (p.uploaded < 0) p.uploaded = p.drawn;
    if (p.queued < 0) p.queued = p.done;
    parts_.push_back(p);
}

void ViewChangeTimer::print(double display_frame_ms) const {
    if (parts_.empty()) return;
    auto median = [this](double Parts::*part) {
        std::vector<double> v;
        for (const Parts& p : parts_) v.push_back(p.*part);
        return median_of(std::move(v));
    };
    double longest = 0.0, latest = 0.0;
    for (const Parts& p : parts_) {
        longest = std::max(longest, p.on_screen);
        latest = std::max(latest, p.pass);
    }
    log_info(
        "camera change to its first image on screen: median %.3f ms, max %.3f ms over %zu changes "
        "(display frame %.3f ms); medians of its parts: %.3f ms until its frame is queued, %.3f ms until it is done, "
        "%.3f ms until it is in the display's texture (denoised, where that is on), %.3f ms until it is drawn "
        "with the panels and presented; shown by displayed frame %.0f after the change (median), %.0f at the latest",
        median(&Parts::on_screen), longest, parts_.size(), display_frame_ms, median(&Parts::queued),
        median(&Parts::done), median(&Parts::uploaded), median(&Parts::drawn), median(&Parts::pass), latest);
}

double ViewChangeTimer::ms_since_change() const {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - changed_at_).count();
}

}  // namespace pkrt::viewer
