// The stream schedulers' frame (scheduler.h): everything of it is queued on the backend's stream, so a
// frame costs the host no wait until finish().
#include <cstddef>

#include "render/cuda/scheduler.h"

namespace pkrt::cuda {

StreamScheduler::StreamScheduler() {
    for (cudaEvent_t* e : {&start_, &done_, &read_back_}) check(cudaEventCreate(e), "cudaEventCreate");
}

StreamScheduler::~StreamScheduler() {
    if (g_device_wedged) return;
    for (cudaEvent_t e : {start_, done_, read_back_}) cudaEventDestroy(e);
}

void StreamScheduler::submit(const GpuFrame& f) {
    if (queued_) throw Error("internal: a second frame submitted to a scheduler that runs one at a time");
    quit_resident_kernels();  // another backend's resident grid would keep these launches waiting forever
    stream_ = f.stream;
    if (f.job_flags & kJobClear) {
        size_t n = static_cast<size_t>(f.image_width) * f.image_height;
        check(cudaMemsetAsync(f.fb.radiance, 0, 3 * n * sizeof(float), stream_), "clear framebuffer");
        check(cudaMemsetAsync(f.fb.samples, 0, n * sizeof(uint32_t), stream_), "clear framebuffer");
    }
    *record_.host() = f.record;
    check(cudaMemcpyAsync(const_cast<FrameRecord*>(f.frame), record_.host(), sizeof(FrameRecord),
                          cudaMemcpyHostToDevice, stream_),
          "frame record");
    check(cudaMemsetAsync(f.counters, 0, sizeof(GpuCounters), stream_), "clear counters");
    *interval_.host() = f.timeline_interval_ns;
    check(cudaMemcpyAsync(reinterpret_cast<char*>(f.counters) + offsetof(GpuCounters, timeline_interval_ns),
                          interval_.host(), sizeof(unsigned), cudaMemcpyHostToDevice, stream_),
          "timeline interval");
    check(cudaEventRecord(start_, stream_), "cudaEventRecord");
    begin(f);
    check(cudaEventRecord(done_, stream_), "cudaEventRecord");
    enqueue_readback(stream_);
    check(cudaMemcpyAsync(counters_.host(), f.counters, sizeof(GpuCounters), cudaMemcpyDeviceToHost, stream_),
          "read counters");
    check(cudaEventRecord(read_back_, stream_), "cudaEventRecord");
    queued_ = true;
}

bool StreamScheduler::oldest_done() const { return !queued_ || cudaEventQuery(read_back_) != cudaErrorNotReady; }

FrameOutcome StreamScheduler::finish() {
    if (!queued_) throw Error("internal: no frame of this scheduler to finish");
    queued_ = false;
    wait(done_);
    check(cudaEventSynchronize(read_back_), "frame");
    FrameOutcome out;
    check(cudaEventElapsedTime(&out.gpu_ms, start_, done_), "cudaEventElapsedTime");
    out.counters = counters_.host();
    return out;
}

void StreamScheduler::wait(cudaEvent_t done) { check(cudaEventSynchronize(done), "frame"); }

}  // namespace pkrt::cuda
