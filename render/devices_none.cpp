// Built when nvcc was not found: the binary has no GPU code, so there are no usable devices.
#include "render/devices.h"

namespace pkrt {

bool cuda_built() { return false; }
std::string cuda_build_architectures() { return ""; }
std::vector<GpuDevice> cuda_devices(std::string* why) {
    if (why) *why = "this pkrt was built without CUDA (nvcc was not found when it was configured)";
    return {};
}

std::vector<MicroMeasurement> gpu_microbenchmarks(std::string* why) {
    cuda_devices(why);
    return {};
}

}  // namespace pkrt
