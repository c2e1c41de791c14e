// What batch runs (--frames, --script) measure and print: the frame loop's times after a warm-up, and the
// time from a camera change to the first image of the new view on screen.
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

namespace pkrt::viewer {

// The middle element (the upper one of an even count); 0 when empty.
double median_of(std::vector<double> v);

// Per displayed frame, in ms: the render, the wait for it, the display transfer and that transfer's parts,
// and the pass's draw and present.
struct FrameTimes {
    std::vector<double> render, wait, upload, map, pack, unmap, gl_copy, present;
};

// A camera change to the first image of the new view on screen (after the swap), by the viewer's clock,
// and where that time goes: until the new view's first frame is queued, until the loop takes it done,
// until it (denoised, where that is on) is in the display's texture, and until the pass that shows it
// has drawn it with the panels; and which displayed frame after the change it is. Changes made before
// that image shows are timed from the first of them.
class ViewChangeTimer {
public:
    // The camera changed; the image the next reset starts is `next_generation`.
    void changed(uint32_t next_generation);
    bool pending() const { return pending_; }
    // Changed, and no frame of the new view queued yet.
    bool awaiting_frame() const { return pending_ && now_.queued < 0; }
    // A frame of image `generation` was queued.
    void queued(uint32_t generation);
    // A frame of image `generation` is done and shown by this pass.
    void done(uint32_t generation);
    // That image is in the display's texture.
    void uploaded();
    // This pass has drawn it and presents it now.
    void presenting();
    // This pass displays the first image of the changed view.
    bool showing() const { return shown_; }
    // A pass presented its frame; the one that shows the new view's image is on screen, and `record`
    // keeps its latency and its parts.
    void presented(bool record);
    bool any() const { return !parts_.empty(); }
    // The medians as one line on stderr; display_frame_ms is the loop's smoothed frame interval.
    void print(double display_frame_ms) const;

private:
    // One change's times since it, in ms, in the order they come. A part the change skipped (no frame
    // queued after it: one queued before it was of its view already) takes the next part's time.
    struct Parts {
        double queued = -1, done = -1, uploaded = -1, drawn = -1, on_screen = -1;
        double pass = 0;  // the displayed frame that shows it: 1 for the first one after the change
    };
    double ms_since_change() const;

    bool pending_ = false;
    bool shown_ = false;
    uint32_t generation_ = 0;
    std::chrono::steady_clock::time_point changed_at_;
    Parts now_;
    std::vector<Parts> parts_;
};

}  // namespace pkrt::viewer
