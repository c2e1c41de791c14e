// CUDA devices as the host sees them; a build without CUDA reports none.
#pragma once

#include <string>
#include <vector>

namespace pkrt {

struct GpuDevice {
    int index = 0;
    std::string name;
    int major = 0, minor = 0;
    int multiprocessors = 0;
    size_t memory_bytes = 0;
    int driver_version = 0, runtime_version = 0;
};

bool cuda_built();  // was this binary compiled with the CUDA backend
std::string cuda_build_architectures();
// Usable devices; when there are none, *why says why (no driver, no device, ...).
std::vector<GpuDevice> cuda_devices(std::string* why);

struct MicroMeasurement {
    std::string name;
    double value;
    std::string unit;
    std::string how;
};
// Launch, graph, barrier, atomic and ray-queue microbenchmarks on device 0; empty with *why when
// there is no usable device. Throws Error on a CUDA failure.
std::vector<MicroMeasurement> gpu_microbenchmarks(std::string* why);

}  // namespace pkrt
