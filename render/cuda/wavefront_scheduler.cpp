// The classic wavefront (kernels/gpu/wavefront_stages.cu): generate, then extend / shade / shadow launches
// per bounce, queue sizes kept on the device. Two launch strategies: relaunch enqueues the launches one
// by one; graph captures the same sequence once in a CUDA Graph and replays it.
#include <cstring>
#include <vector>

#include "render/cuda/wave_scheduler.h"

namespace pkrt::cuda {

namespace {

uint64_t enqueue_stages(const WavefrontParams& p, int max_depth, cudaStream_t stream) {
    check(cudaMemsetAsync(p.path_counts, 0, WaveScheduler::count_ints(max_depth) * sizeof(int), stream),
          "clear counts");
    check(launch_wf_generate(p, stream), "generate launch");
    uint64_t launches = 1;
    for (int b = 0; b <= max_depth; ++b) {
        check(launch_wf_extend(p, b, stream), "extend launch");
        // Binned: keys past the next bounce's count must sort last.
        if (p.bin_keys[0] && b < max_depth)
            check(cudaMemsetAsync(p.bin_keys[0], 0xff, p.capacity * sizeof(uint16_t), stream), "clear bin keys");
        check(launch_wf_shade(p, b, stream), "shade launch");
        check(launch_wf_shadow(p, b, stream), "shadow launch");
        launches += 3;
        if (p.bin_keys[0] && b < max_depth) {
            check(launch_wf_bin_sort(p, stream), "bin sort");
            ++launches;
        }
    }
    return launches;
}

class RelaunchScheduler final : public WaveScheduler {
public:
    using WaveScheduler::WaveScheduler;

protected:
    uint64_t enqueue_wave(const WavefrontParams& p, int max_depth, cudaStream_t stream) override {
        return enqueue_stages(p, max_depth, stream);
    }
    bool staged() const override { return true; }
};

class GraphScheduler final : public WaveScheduler {
public:
    using WaveScheduler::WaveScheduler;
    ~GraphScheduler() override { drop(); }

    void invalidate() override { drop(); }

protected:
    uint64_t enqueue_wave(const WavefrontParams& p, int max_depth, cudaStream_t stream) override {
        ensure_graph(p, max_depth, stream);
        check(cudaGraphLaunch(exec_, stream), "cudaGraphLaunch");
        return 1;
    }
    bool staged() const override { return true; }

private:
    // Kernel parameters are baked into the graph: buffers, scene pointers and the depth. The frame
    // record and the wave's place in it are read from device memory, so one graph serves every wave
    // of every frame with the same buffers, whatever the camera, seed or samples.
    void ensure_graph(const WavefrontParams& p, int max_depth, cudaStream_t stream) {
        std::vector<unsigned char> key(sizeof p + sizeof max_depth);
        std::memcpy(key.data(), &p, sizeof p);
        std::memcpy(key.data() + sizeof p, &max_depth, sizeof max_depth);
        if (exec_ && key == key_) return;
        drop();
        cudaGraph_t graph = nullptr;
        check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
        try {
            enqueue_stages(p, max_depth, stream);
        } catch (...) {
            cudaStreamEndCapture(stream, &graph);
            if (graph) cudaGraphDestroy(graph);
            throw;
        }
        check(cudaStreamEndCapture(stream, &graph), "cudaStreamEndCapture");
        cudaError_t e = cudaGraphInstantiate(&exec_, graph, 0);
        cudaGraphDestroy(graph);
        check(e, "cudaGraphInstantiate");
        key_ = std::move(key);
    }

    void drop() {
        if (exec_ && !g_device_wedged) {
            quit_resident_kernels();
            cudaGraphExecDestroy(exec_);
        }
        exec_ = nullptr;
    }

    cudaGraphExec_t exec_ = nullptr;
    std::vector<unsigned char> key_;
};

}  // namespace

std::unique_ptr<GpuScheduler> make_wavefront_scheduler(bool graph, const SchedulerOptions& options) {
    if (graph) return std::make_unique<GraphScheduler>(options);
    return std::make_unique<RelaunchScheduler>(options);
}

}  // namespace pkrt::cuda
