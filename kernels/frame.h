// The frame as data: everything that changes from one frame to the next, apart from the scene. The
// CPU backend passes it by reference; the GPU schedulers keep it in device memory and read it from
// there, so a new camera or seed changes one small record and never a kernel parameter (a captured
// graph stays valid, and a kernel that outlives a frame can read the next one).
#pragma once

#include "camera.h"

namespace pkrt {

struct FrameRecord {
    CameraView camera;
    int32_t width, height;
    int32_t max_depth;      // bounces: 0 = emitted light only, 1 = direct lighting, ...
    uint32_t seed;
    uint32_t first_sample;  // sample index of the frame's first sample of every pixel
    uint32_t samples;       // samples of every pixel in this frame
    uint32_t epoch;         // numbers frames: which image a path's samples belong to
    uint32_t pad;

    PKRT_HD uint32_t pixels() const { return static_cast<uint32_t>(width) * static_cast<uint32_t>(height); }
};

}  // namespace pkrt
