// What batch runs (--frames, --script) measure and print: the frame loop's times after a warm-up, and the
// time from a camera change to the first image of the new view on screen.
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

namespace pkrt::viewer {

// The middle element (the upper one of an even count); 0 when empty.
double median_of(std::vector<double> v);

// Per displayed frame, in ms: the render, the wait for it, the display transfer and that transfer's parts.
struct FrameTimes {
    std::vector<double> render, wait, upload, map, pack, unmap, gl_copy;
};

// A camera change to the first image of the new view on screen (after the swap), by the viewer's clock,
// and where that time goes: until the new view's first frame is queued, and until the loop takes it done.
// Changes made before that image shows are timed from the first of them.
class ViewChangeTimer {
public:
    // The camera changed; the image the next reset starts is `next_generation`.
    void changed(uint32_t next_generation);
    bool pending() const { return pending_; }
    // Changed, and no frame of the new view queued yet.
    bool awaiting_frame() const { return pending_ && !queued_; }
    // A frame of image `generation` was queued.
    void queued(uint32_t generation);
    // A frame of image `generation` is done and shown by this pass.
    void done(uint32_t generation);
    // This pass displays the first image of the changed view.
    bool showing() const { return shown_; }
    // That image is on screen; `record` keeps its latency.
    void presented(bool record);
    bool any() const { return !latencies_ms_.empty(); }
    // The medians as one line on stderr; display_frame_ms is the loop's smoothed frame interval.
    void print(double display_frame_ms) const;

private:
    double ms_since_change() const;

    bool pending_ = false;
    bool shown_ = false;
    bool queued_ = false;
    uint32_t generation_ = 0;
    std::chrono::steady_clock::time_point changed_at_;
    std::vector<double> latencies_ms_, queued_ms_, done_ms_;
};

}  // namespace pkrt::viewer
