// Microbenchmarks that place the schedulers against the machine's limits (`pkrt bench --micro`): the
// timing around the kernels of kernels/gpu/microbench.cu.
#include <algorithm>
#include <chrono>

#include "render/cuda/device_memory.h"
#include "kernels/gpu/gpu_launch.h"
#include "kernels/gpu/microbench.h"
#include "render/devices.h"

namespace pkrt::cuda {

namespace {

class Timer {
public:
    Timer() {
        check(cudaEventCreate(&a_), "event");
        check(cudaEventCreate(&b_), "event");
    }
    ~Timer() {
        cudaEventDestroy(a_);
        cudaEventDestroy(b_);
    }
    void start(cudaStream_t s = nullptr) { check(cudaEventRecord(a_, s), "event"); }
    double stop_ms(cudaStream_t s = nullptr) {
        check(cudaEventRecord(b_, s), "event");
        check(cudaEventSynchronize(b_), "event");
        float ms = 0;
        check(cudaEventElapsedTime(&ms, a_, b_), "event");
        return ms;
    }

private:
    cudaEvent_t a_, b_;
};

MicroMeasurement launch_throughput(Timer& t) {
    for (int i = 0; i < 100; ++i) check(launch_empty_kernel(nullptr), "launch");
    check(cudaDeviceSynchronize(), "warm-up");
    const int launches = 5000;
    t.start();
    for (int i = 0; i < launches; ++i) check(launch_empty_kernel(nullptr), "launch");
    return {"empty kernel launch", t.stop_ms() * 1000.0 / launches, "us", "5000 back-to-back async launches"};
}

MicroMeasurement launch_round_trip() {
    std::vector<double> rt;
    for (int i = 0; i < 1000; ++i) {
        auto a = std::chrono::steady_clock::now();
        check(launch_empty_kernel(nullptr), "launch");
        check(cudaStreamSynchronize(nullptr), "sync");
        rt.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - a).count());
    }
    std::sort(rt.begin(), rt.end());
    return {"launch + synchronize", rt[rt.size() / 2], "us", "median of 1000 launch+cudaStreamSynchronize"};
}

MicroMeasurement graph_node(Timer& t) {
    cudaStream_t s;
    check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "stream");
    cudaGraph_t g = nullptr;
    cudaGraphExec_t ge = nullptr;
    check(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), "capture");
    for (int i = 0; i < 200; ++i) check(launch_empty_kernel(s), "launch");
    check(cudaStreamEndCapture(s, &g), "capture");
    check(cudaGraphInstantiate(&ge, g, 0), "instantiate");
    check(cudaGraphLaunch(ge, s), "graph");
    check(cudaStreamSynchronize(s), "graph");
    const int replays = 20;
    t.start(s);
    for (int i = 0; i < replays; ++i) check(cudaGraphLaunch(ge, s), "graph");
    double ms = t.stop_ms(s);
    cudaGraphExecDestroy(ge);
    cudaGraphDestroy(g);
    cudaStreamDestroy(s);
    return {"CUDA Graph node", ms * 1000.0 / (replays * 200), "us", "200-node chain of empty kernels, 20 replays"};
}

MicroMeasurement grid_barrier(Timer& t, int sms) {
    DeviceArray<unsigned> mem;
    mem.allocate(2);
    check(cudaMemset(mem.get(), 0, 2 * sizeof(unsigned)), "memset");
    check(launch_grid_barrier(mem.get(), sms, 10), "barrier");
    check(cudaDeviceSynchronize(), "barrier warm-up");
    const int rounds = 2000;
    t.start();
    check(launch_grid_barrier(mem.get(), sms, rounds), "barrier");
    return {"grid barrier", t.stop_ms() * 1000.0 / rounds, "us", "atomic-counter barrier, one block per SM"};
}

MicroMeasurement warp_atomics(Timer& t, int sms) {
    DeviceArray<unsigned long long> target;
    target.allocate(1);
    const int rounds = 200, blocks = sms * 8;
    check(launch_warp_atomics(target.get(), blocks, 10), "atomics");
    check(cudaDeviceSynchronize(), "atomic warm-up");
    t.start();
    check(launch_warp_atomics(target.get(), blocks, rounds), "atomics");
    double ms = t.stop_ms();
    double warp_atomics = static_cast<double>(blocks) * (kMicroThreads / 32) * rounds;
    return {"warp-aggregated atomic, one address", warp_atomics / (ms * 1e-3) / 1e9, "G/s", "one atomicAdd per warp"};
}

MicroMeasurement ray_queue(Timer& t, int sms) {
    const uint32_t cap = 1u << 20;
    DeviceArray<QueueCounters> counters;
    DeviceArray<unsigned long long> seq, moved;
    DeviceArray<PathRecord> slots;
    counters.allocate(1);
    seq.allocate(cap);
    slots.allocate(cap);
    moved.allocate(1);
    DeviceQueue<PathRecord> q{counters.get(), seq.get(), slots.get(), cap};
    check(launch_queue_init(q, nullptr), "queue init");
    check(cudaMemset(moved.get(), 0, sizeof(unsigned long long)), "memset");
    const int blocks = sms * 4, rounds = 200;
    check(launch_queue_exercise(q, blocks, 5, moved.get()), "queue");
    check(cudaDeviceSynchronize(), "queue warm-up");
    check(cudaMemset(moved.get(), 0, sizeof(unsigned long long)), "memset");
    t.start();
    check(launch_queue_exercise(q, blocks, rounds, moved.get()), "queue");
    double ms = t.stop_ms();
    unsigned long long n = 0;
    check(cudaMemcpy(&n, moved.get(), sizeof n, cudaMemcpyDeviceToHost), "copy");
    return {"ray queue push+pop", static_cast<double>(n) / (ms * 1e-3) / 1e9, "G records/s",
            "64-byte path records, warp-aggregated, pushes + pops"};
}

}  // namespace

}  // namespace pkrt::cuda

namespace pkrt {

std::vector<MicroMeasurement> gpu_microbenchmarks(std::string* why) {
    using namespace cuda;
    std::vector<GpuDevice> devices = cuda_devices(why);
    if (devices.empty()) return {};
    check(cudaSetDevice(devices[0].index), "cudaSetDevice");
    quit_resident_kernels();  // the device synchronisations below would wait for one forever
    int sms = devices[0].multiprocessors;
    Timer t;
    return {launch_throughput(t), launch_round_trip(),  graph_node(t),
            grid_barrier(t, sms), warp_atomics(t, sms), ray_queue(t, sms)};
}

}  // namespace pkrt
