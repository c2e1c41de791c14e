// The turnover of a temporal history (kernels/denoise_temporal.h): two views' buffers, the current
// view's, which every refresh of that view rewrites, and the previous view's, which it blends from. A
// camera move makes the current view the history; a restart drops both. One rule for the host's vectors
// (temporal.h) and the device's arrays (render/cuda/gpu_view_denoiser.cpp); the two slots trade places,
// so neither reallocates on a move.
#pragma once

#include "kernels/denoise_temporal.h"

namespace pkrt {

template <class Buffers> class ViewHistory {
public:
    struct View {
        CameraView camera{};
        int width = 0, height = 0;
        Buffers buffers;
    };

    // A refresh's turnover (ViewRefresh): without temporal reuse, or on a restart (the scene, the
    // settings or the image size changed), nothing carries over; a new view takes the current one as
    // its history.
    void turn_over(bool restart, bool temporal, bool new_view) {
        if (restart || !temporal) clear();
        else if (new_view) next_view();
    }
    // The current view's blend becomes the history (the camera moved); with no current view, the
    // history stays as it is.
    void next_view() {
        if (!have_current_) return;
        current_ ^= 1;
        have_previous_ = true;
        have_current_ = false;
    }
    void clear() { have_previous_ = have_current_ = false; }

    // The current view's slot, now `camera`'s at width x height. `kept`: its blend is written, and the
    // next view may take it as history.
    View& current(const CameraView& camera, int width, int height, bool kept = true) {
        View& v = views_[current_];
        v.camera = camera;
        v.width = width;
        v.height = height;
        have_current_ = kept;
        return v;
    }
    Buffers& current_buffers() { return views_[current_].buffers; }

    // The history as the temporal step reads it: `frame_of(buffers)` gives a TemporalFrame's addresses,
    // this the view's camera and size; width 0 where there is none.
    template <class FrameOf> TemporalFrame history(FrameOf&& frame_of) const {
        if (!have_previous_) return TemporalFrame{CameraView{}, 0, 0, nullptr, nullptr, nullptr, nullptr};
        const View& v = views_[current_ ^ 1];
        TemporalFrame f = frame_of(v.buffers);
        f.camera = v.camera;
        f.width = v.width;
        f.height = v.height;
        return f;
    }

    // Every slot's buffers (to size them).
    template <class Fn> void each(Fn&& fn) {
        for (View& v : views_) fn(v.buffers);
    }

private:
    View views_[2];
    int current_ = 0;
    bool have_previous_ = false, have_current_ = false;
};

}  // namespace pkrt
