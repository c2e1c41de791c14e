// A frame's device counters (kernels/gpu/gpu_records.h) as RenderStats.
#pragma once

#include "kernels/gpu/gpu_records.h"
#include "render/stats.h"

namespace pkrt::cuda {

RenderStats frame_stats(const GpuCounters& c, float gpu_ms, int multiprocessors);

// Running counters minus an earlier copy of them (a resident kernel never clears its counters); the
// timeline is `now`'s, which the kernel restarts with every job.
GpuCounters counters_since(const GpuCounters& now, const GpuCounters& before);

}  // namespace pkrt::cuda
