// The one definition of every size limit of a render: the JSON scene parser, the CLI flags of pkrt render,
// pkrt bench and pkrt-viewer, the viewer's sliders and the GPU schedulers read these, and their error
// messages come from range_error(), so that a limit and its message cannot drift apart. Memory budgets
// (triangles, texels, pixels) are run-time flags: render/scene/load_limits.h.
#pragma once

#include <cstdint>
#include <string>

namespace pkrt::limits {

// Bounces of one path. The wave schedulers keep one queue counter per depth (render/cuda/wave_scheduler.h),
// and past a few hundred bounces a path's throughput is below what float accumulation can show.
constexpr int kMaxDepth = 1024;
// Sides of an image. Also bounded by --max-pixels; this keeps width * height * spp well inside 64 bits.
constexpr int kMaxImageSide = 16384;
// Samples per pixel of one render (and an adaptive render's --max-spp): the per-pixel sample counters
// and the sample index of the random sequences stay far from 32-bit overflow.
constexpr int kMaxSpp = 1 << 20;
// Samples per pixel of one bench frame: a frame is one launch, and a longer one measures nothing new.
constexpr int kMaxFrameSpp = 1 << 16;
// Samples a viewer frame adds: more keeps the window from answering input between frames.
constexpr int kMaxSppPerFrame = 4096;
// The viewer's --spp-target: its per-pixel counters are 32-bit, and this is far below overflow.
constexpr int kMaxSppTarget = 1 << 24;
// The viewer's window: GL drivers guarantee textures of 8192 on a side, and a side under 16 has no room
// for the panels.
constexpr int kMinWindowSide = 16;
constexpr int kMaxWindowSide = 8192;

// "WHAT VALUE: must be between LO and HI": the one wording of every range error above.
std::string range_error(const std::string& what, long long value, long long lo, long long hi);
// Throws pkrt::Error with range_error()'s message when value is outside [lo, hi].
void check_range(const std::string& what, long long value, long long lo, long long hi);

}  // namespace pkrt::limits
