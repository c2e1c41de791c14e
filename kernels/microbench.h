// Microbenchmarks that place the schedulers against the machine's limits: launch costs, graph nodes,
// grid barriers, contended atomics and the project's own ray queue.
#pragma once

#include <string>
#include <vector>

namespace pkrt {

struct MicroResult {
    std::string name;
    double value;
    std::string unit;
    std::string how;  // what was timed, in a few words
};

// Runs on the current CUDA device; throws std::runtime_error on a CUDA error.
std::vector<MicroResult> run_gpu_microbenchmarks();

}  // namespace pkrt
