#include "microbench.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "gpu_launch.h"
#include "gpu_queue.cuh"

namespace pkrt {

namespace {

void ck(cudaError_t e, const char* what) {
    if (e != cudaSuccess) throw std::runtime_error(std::string("CUDA ") + what + ": " + cudaGetErrorString(e));
}

__global__ void empty_kernel() {}

// Sense-reversing barrier on a global counter; the grid must be co-resident.
__device__ void grid_barrier(unsigned* count, volatile unsigned* sense, unsigned blocks, unsigned& local_sense) {
    __syncthreads();
    if (threadIdx.x == 0) {
        local_sense ^= 1u;
        __threadfence();
        if (atomicAdd(count, 1u) == blocks - 1) {
            *count = 0;
            __threadfence();
            *sense = local_sense;
        } else {
            while (*sense != local_sense) {}
        }
    }
    __syncthreads();
}

__global__ void barrier_kernel(unsigned* count, unsigned* sense, int rounds) {
    __shared__ unsigned local_sense;
    if (threadIdx.x == 0) local_sense = 0;
    __syncthreads();
    for (int i = 0; i < rounds; ++i) grid_barrier(count, sense, gridDim.x, local_sense);
}

__global__ void warp_atomic_kernel(unsigned long long* target, int rounds) {
    for (int i = 0; i < rounds; ++i) {
        unsigned n = __popc(__activemask());
        if (lane_id() == 0) atomicAdd(target, static_cast<unsigned long long>(n));
    }
}

// Every warp pushes a full warp of path records and pops a full warp back, `rounds` times.
__global__ void queue_kernel(DeviceQueue<PathRecord> q, int rounds, unsigned long long* moved) {
    PathRecord rec{};
    rec.path.pixel = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long count = 0;
    for (int i = 0; i < rounds; ++i) {
        bool pushed = warp_push(q, true, rec);
        count += __popc(__ballot_sync(kFullMask, pushed));
        bool got = false;
        int n = 0;
        do {  // what this warp pushed is there for someone; take a full warp's worth back
            n = warp_pop(q, kFullMask, rec, &got);
        } while (n == 0 && pushed && queue_available(q) > 0);
        count += n;
    }
    if (lane_id() == 0) atomicAdd(moved, count);
}

struct Timer {
    cudaEvent_t a, b;
    Timer() {
        ck(cudaEventCreate(&a), "event");
        ck(cudaEventCreate(&b), "event");
    }
    ~Timer() {
        cudaEventDestroy(a);
        cudaEventDestroy(b);
    }
    void start() { ck(cudaEventRecord(a), "event"); }
    double stop_ms() {
        ck(cudaEventRecord(b), "event");
        ck(cudaEventSynchronize(b), "event");
        float ms = 0;
        ck(cudaEventElapsedTime(&ms, a, b), "event");
        return ms;
    }
};

}  // namespace

std::vector<MicroResult> run_gpu_microbenchmarks() {
    std::vector<MicroResult> out;
    int dev = 0, sms = 0;
    ck(cudaGetDevice(&dev), "cudaGetDevice");
    ck(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), "attribute");
    Timer t;

    // Launch throughput: back-to-back asynchronous launches of an empty kernel.
    for (int i = 0; i < 100; ++i) empty_kernel<<<1, 32>>>();
    ck(cudaDeviceSynchronize(), "warm-up");
    const int launches = 5000;
    t.start();
    for (int i = 0; i < launches; ++i) empty_kernel<<<1, 32>>>();
    out.push_back({"empty kernel launch", t.stop_ms() * 1000.0 / launches, "us", "5000 back-to-back async launches"});

    // Launch + synchronize round trip (host wall clock), median of many.
    std::vector<double> rt;
    for (int i = 0; i < 1000; ++i) {
        auto a = std::chrono::steady_clock::now();
        empty_kernel<<<1, 32>>>();
        ck(cudaStreamSynchronize(nullptr), "sync");
        rt.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - a).count());
    }
    std::sort(rt.begin(), rt.end());
    out.push_back({"launch + synchronize", rt[rt.size() / 2], "us", "median of 1000 launch+cudaStreamSynchronize"});

    // CUDA Graph: a chain of 200 empty kernel nodes, replayed.
    {
        cudaStream_t s;
        ck(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "stream");
        cudaGraph_t g;
        cudaGraphExec_t ge;
        ck(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), "capture");
        for (int i = 0; i < 200; ++i) empty_kernel<<<1, 32, 0, s>>>();
        ck(cudaStreamEndCapture(s, &g), "capture");
        ck(cudaGraphInstantiate(&ge, g, 0), "instantiate");
        ck(cudaGraphLaunch(ge, s), "graph");
        ck(cudaStreamSynchronize(s), "graph");
        cudaEvent_t a, b;
        ck(cudaEventCreate(&a), "event");
        ck(cudaEventCreate(&b), "event");
        ck(cudaEventRecord(a, s), "event");
        const int replays = 20;
        for (int i = 0; i < replays; ++i) ck(cudaGraphLaunch(ge, s), "graph");
        ck(cudaEventRecord(b, s), "event");
        ck(cudaEventSynchronize(b), "event");
        float ms = 0;
        ck(cudaEventElapsedTime(&ms, a, b), "event");
        out.push_back({"CUDA Graph node", ms * 1000.0 / (replays * 200), "us", "200-node chain of empty kernels, 20 replays"});
        cudaEventDestroy(a);
        cudaEventDestroy(b);
        cudaGraphExecDestroy(ge);
        cudaGraphDestroy(g);
        cudaStreamDestroy(s);
    }

    // Grid barrier: one 256-thread block per SM (co-resident), atomic-counter barrier.
    {
        unsigned* mem = nullptr;
        ck(cudaMalloc(&mem, 2 * sizeof(unsigned)), "malloc");
        ck(cudaMemset(mem, 0, 2 * sizeof(unsigned)), "memset");
        barrier_kernel<<<sms, 256>>>(mem, mem + 1, 10);
        ck(cudaDeviceSynchronize(), "barrier warm-up");
        const int rounds = 2000;
        t.start();
        barrier_kernel<<<sms, 256>>>(mem, mem + 1, rounds);
        out.push_back({"grid barrier", t.stop_ms() * 1000.0 / rounds, "us", "atomic-counter barrier, one block per SM"});
        cudaFree(mem);
    }

    // Warp-aggregated atomics on one address.
    {
        unsigned long long* target = nullptr;
        ck(cudaMalloc(&target, sizeof *target), "malloc");
        const int rounds = 200, blocks = sms * 8;
        warp_atomic_kernel<<<blocks, 256>>>(target, 10);
        ck(cudaDeviceSynchronize(), "atomic warm-up");
        t.start();
        warp_atomic_kernel<<<blocks, 256>>>(target, rounds);
        double ms = t.stop_ms();
        double warp_atomics = static_cast<double>(blocks) * 8 * rounds;
        out.push_back({"warp-aggregated atomic, one address", warp_atomics / (ms * 1e-3) / 1e9, "G/s", "one atomicAdd per warp"});
        cudaFree(target);
    }

    // The ray queue: every warp pushes 32 path records and pops 32, repeatedly.
    {
        const uint32_t cap = 1u << 20;
        DeviceQueue<PathRecord> q{};
        q.capacity = cap;
        ck(cudaMalloc(&q.counters, sizeof(QueueCounters)), "malloc");
        ck(cudaMalloc(&q.seq, cap * sizeof(unsigned long long)), "malloc");
        ck(cudaMalloc(&q.slots, cap * sizeof(PathRecord)), "malloc");
        unsigned long long* moved = nullptr;
        ck(cudaMalloc(&moved, sizeof *moved), "malloc");
        ck(launch_queue_init(q, nullptr), "queue init");
        ck(cudaMemset(moved, 0, sizeof *moved), "memset");
        const int blocks = sms * 4, rounds = 200;
        queue_kernel<<<blocks, 256>>>(q, 5, moved);
        ck(cudaDeviceSynchronize(), "queue warm-up");
        ck(cudaMemset(moved, 0, sizeof *moved), "memset");
        t.start();
        queue_kernel<<<blocks, 256>>>(q, rounds, moved);
        double ms = t.stop_ms();
        unsigned long long n = 0;
        ck(cudaMemcpy(&n, moved, sizeof n, cudaMemcpyDeviceToHost), "copy");
        out.push_back({"ray queue push+pop", static_cast<double>(n) / (ms * 1e-3) / 1e9, "G records/s",
                       "64-byte path records, warp-aggregated, pushes + pops"});
        cudaFree(q.counters);
        cudaFree(q.seq);
        cudaFree(q.slots);
        cudaFree(moved);
    }
    return out;
}

}  // namespace pkrt
