// A frame's device counters (kernels/gpu/gpu_records.h) as RenderStats.
#pragma once

#include "kernels/gpu/gpu_records.h"
#include "render/stats.h"

namespace pkrt::cuda {

RenderStats frame_stats(const GpuCounters& c, float gpu_ms, int multiprocessors);

}  // namespace pkrt::cuda
