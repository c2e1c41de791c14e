#include "app/info.h"

#include <cstdio>
#include <string>
#include <thread>

#include "render/data_dir.h"
#include "render/devices.h"
#include "render/distributed/distributed.h"

#ifndef PKRT_VERSION
#define PKRT_VERSION "0.1.0"
#endif

namespace pkrt {

int run_info() {
    std::printf("pkrt %s\n", PKRT_VERSION);
    std::printf("build: %s, C++ %ld, CUDA backend %s", PKRT_BUILD_TYPE, static_cast<long>(__cplusplus),
                cuda_built() ? "built" : "not built");
    if (cuda_built()) std::printf(" (architectures %s)", cuda_build_architectures().c_str());
    std::printf("\n");
    std::printf("CPU threads: %u\n", std::thread::hardware_concurrency());
    std::string why;
    auto devices = cuda_devices(&why);
    if (devices.empty()) {
        std::printf("CUDA devices: none (%s)\n", why.c_str());
    } else {
        for (const auto& d : devices) {
            std::printf("CUDA device %d: %s, sm_%d%d, %d SMs, %.1f GiB, driver %d.%d, runtime %d.%d\n", d.index,
                        d.name.c_str(), d.major, d.minor, d.multiprocessors, d.memory_bytes / 1073741824.0,
                        d.driver_version / 1000, (d.driver_version % 1000) / 10, d.runtime_version / 1000,
                        (d.runtime_version % 1000) / 10);
        }
    }
    std::printf("default backend: %s\n", devices.empty() ? "cpu" : "cuda");
    std::printf("MPI: %s\n", mpi_description().c_str());
    std::printf("data directory: %s\n", data_dir().c_str());
    return 0;
}

}  // namespace pkrt
