// ray_order=binned: one bounce's continuing paths ordered by their bin key (kernels/gpu/ray_bins.cuh)
// with CUB's radix sort over the wave's whole capacity (its count stays on the device; slots past it
// hold the key 0xffff and sort last, so the extend stage's first `count` threads get every live slot).
#include <cub/device/device_radix_sort.cuh>

#include "kernels/gpu/gpu_launch.h"

namespace pkrt {

size_t wf_bin_temp_bytes(uint32_t capacity) {
    size_t bytes = 0;
    cub::DeviceRadixSort::SortPairs(nullptr, bytes, static_cast<const uint16_t*>(nullptr),
                                    static_cast<uint16_t*>(nullptr), static_cast<const uint32_t*>(nullptr),
                                    static_cast<uint32_t*>(nullptr), static_cast<int>(capacity), 0, 16);
    return bytes;
}

cudaError_t launch_wf_bin_sort(const WavefrontParams& p, cudaStream_t stream) {
    size_t bytes = p.bin_temp_bytes;
    return cub::DeviceRadixSort::SortPairs(p.bin_temp, bytes, p.bin_keys[0], p.bin_keys[1], p.bin_order[0],
                                           p.bin_order[1], static_cast<int>(p.capacity), 0, 16, stream);
}

}  // namespace pkrt
