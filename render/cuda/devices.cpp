// Device discovery through the CUDA runtime. Compiled only when the CUDA backend is built.
#include <cuda_runtime.h>

#include "render/devices.h"

namespace pkrt {

bool cuda_built() { return true; }
std::string cuda_build_architectures() { return PKRT_CUDA_ARCHITECTURES; }

std::vector<GpuDevice> cuda_devices(std::string* why) {
    std::vector<GpuDevice> out;
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0) {
        if (why) {
            *why = err == cudaSuccess ? std::string("no CUDA device found")
                                      : std::string("no usable CUDA device (") + cudaGetErrorName(err) + ": " +
                                            cudaGetErrorString(err) + ")";
        }
        cudaGetLastError();  // clear the sticky-free error so later calls start clean
        return out;
    }
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    for (int i = 0; i < count; ++i) {
        cudaDeviceProp prop{};
        if (cudaGetDeviceProperties(&prop, i) != cudaSuccess) continue;
        GpuDevice d;
        d.index = i;
        d.name = prop.name;
        d.major = prop.major;
        d.minor = prop.minor;
        d.multiprocessors = prop.multiProcessorCount;
        d.memory_bytes = prop.totalGlobalMem;
        d.driver_version = driver;
        d.runtime_version = runtime;
        out.push_back(d);
    }
    if (out.empty() && why) *why = "no CUDA device could be queried";
    return out;
}

}  // namespace pkrt
