// The frame as data: everything that changes from one frame to the next, apart from the scene. The
// CPU backend passes it by reference; the GPU schedulers keep it in device memory and read it from
// there, so a new camera or seed changes one small record and never a kernel parameter (a captured
// graph stays valid, and a kernel that outlives a frame can read the next one).
#pragma once

#include "kernels/shading/camera.h"

namespace pkrt {

// One pixel of an adaptive round's work list, and the sample number its round starts at.
struct WorkPixel {
    uint32_t pixel;
    uint32_t first_sample;
};

struct AdaptivePlan;  // kernels/adaptive.h

struct FrameRecord {
    CameraView camera;
    int32_t width, height;
    int32_t max_depth;  // bounces: 0 = emitted light only, 1 = direct lighting, ...
    uint32_t seed;
    uint32_t first_sample;  // sample index of the frame's first sample of every pixel
    uint32_t samples;       // samples of every pixel in this frame
    uint32_t epoch;         // numbers frames: which image a path's samples belong to
    // Set (device memory): an adaptive round (kernels/adaptive.h), which samples the pixels of `work`
    // as `plan` says, plan_paths in all (the plan's own count, copied here by whoever knows it). The
    // first round has a plan and no list: every pixel, `samples` each.
    const WorkPixel* work;
    const AdaptivePlan* plan;
    unsigned long long plan_paths;

    PKRT_HD uint32_t pixels() const { return static_cast<uint32_t>(width) * static_cast<uint32_t>(height); }
    PKRT_HD unsigned long long paths() const {
        return plan ? plan_paths : static_cast<unsigned long long>(pixels()) * samples;
    }
};

}  // namespace pkrt
