// The classic wavefront (kernels/wavefront_stages.cu): generate, then extend / shade / shadow launches
// per bounce, queue sizes kept on the device. Two launch strategies: relaunch enqueues the launches one
// by one; graph captures the same sequence once in a CUDA Graph and replays it.
#include <array>
#include <cstring>
#include <vector>

#include "wave_scheduler.h"

namespace pkrt::cuda {

namespace {

uint64_t enqueue_stages(const WavefrontParams& p, int max_depth, cudaStream_t stream) {
    check(cudaMemsetAsync(p.path_counts, 0, WaveScheduler::count_ints(max_depth) * sizeof(int), stream), "clear counts");
    check(launch_wf_generate(p, stream), "generate launch");
    uint64_t launches = 1;
    for (int b = 0; b <= max_depth; ++b) {
        check(launch_wf_extend(p, b, stream), "extend launch");
        check(launch_wf_shade(p, b, stream), "shade launch");
        check(launch_wf_shadow(p, b, stream), "shadow launch");
        launches += 3;
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
        check(cudaGraphLaunch(ensure_graph(p, max_depth, stream), stream), "cudaGraphLaunch");
        return 1;
    }
    bool staged() const override { return true; }

private:
    // Kernel parameters are baked into the graph: buffers, scene pointers and the depth. The frame
    // record and the wave's place in it are read from device memory, so one graph serves every wave
    // of every frame with the same buffers, whatever the camera, seed or samples. Two are kept:
    // adaptive rounds alternate between two sets of sums (render/cuda/cuda_backend.cpp).
    struct Cached {
        std::vector<unsigned char> key;
        cudaGraphExec_t exec = nullptr;
    };

    cudaGraphExec_t ensure_graph(const WavefrontParams& p, int max_depth, cudaStream_t stream) {
        std::vector<unsigned char> key(sizeof p + sizeof max_depth);
        std::memcpy(key.data(), &p, sizeof p);
        std::memcpy(key.data() + sizeof p, &max_depth, sizeof max_depth);
        for (size_t i = 0; i < cache_.size(); ++i) {
            if (cache_[i].exec && cache_[i].key == key) {
                if (i == 1) std::swap(cache_[0], cache_[1]);  // most recent first
                return cache_[0].exec;
            }
        }
        destroy(cache_[1]);  // the least recent goes
        std::swap(cache_[0], cache_[1]);
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
        cudaGraphExec_t exec = nullptr;
        cudaError_t e = cudaGraphInstantiate(&exec, graph, 0);
        cudaGraphDestroy(graph);
        check(e, "cudaGraphInstantiate");
        cache_[0] = Cached{std::move(key), exec};
        return exec;
    }

    void destroy(Cached& c) {
        if (c.exec && !g_device_wedged) {
            quit_resident_kernels();
            cudaGraphExecDestroy(c.exec);
        }
        c = Cached{};
    }

    void drop() {
        for (Cached& c : cache_) destroy(c);
    }

    std::array<Cached, 2> cache_;
};

}  // namespace

std::unique_ptr<GpuScheduler> make_wavefront_scheduler(bool graph, const SchedulerOptions& options) {
    if (graph) return std::make_unique<GraphScheduler>(options);
    return std::make_unique<RelaunchScheduler>(options);
}

}  // namespace pkrt::cuda
