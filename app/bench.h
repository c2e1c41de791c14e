// `pkrt bench`: the scheduler modes side by side on the same frames, interleaved so drift cancels.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "app/bvh_options.h"
#include "app/run_options.h"
#include "render/scene/load_limits.h"

namespace pkrt {

struct BenchArgs {
    std::vector<std::string> scenes;
    std::vector<std::string> modes;
    std::vector<std::string> resolutions;
    std::vector<int> depths;
    int spp = 1;
    int repeat = 20;
    int warmup = 9;  // the persistent kernel times its scheduling policies on up to 8 first frames
    std::string backend = "auto";
    BvhFlags bvh;
    std::vector<std::string> set;  // scheduler settings, KEY=VALUE
    std::string devices;           // --devices: CUDA devices (render/backend.h, BackendOptions)
    std::string json;
    std::string csv;
    std::string plot;
    bool micro = false;  // launch/graph/barrier/atomic/queue microbenchmarks first (CUDA only)
    RunOptions run;      // -q, -v, --log-level, -j
    LoadLimits limits;
};

// Adds the `bench` subcommand to `app`, its flags filling `args`.
CLI::App* add_bench_command(CLI::App& app, BenchArgs* args);

int run_bench(const BenchArgs& args);

}  // namespace pkrt
