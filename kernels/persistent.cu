// The persistent and resident kernels' entry points: the build of the scene's BVH layout
// (kernels/persistent_body.cuh, compiled per layout in persistent_bvh2.cu and persistent_cwbvh.cu).
#include <algorithm>

#include "gpu_launch.h"

namespace pkrt {

template <BvhViewLayout L> int persistent_occupancy_as(int blocks_per_sm);
template <BvhViewLayout L> cudaError_t launch_persistent_as(const PersistentParams& p, int blocks, int blocks_per_sm, cudaStream_t stream);
template <BvhViewLayout L> int resident_occupancy_as();
template <BvhViewLayout L> cudaError_t launch_resident_as(const PersistentParams& p, int blocks, cudaStream_t stream);

// A grid is sized before a scene (and its layout) is known: what every layout's build holds resident.
int persistent_occupancy(int blocks_per_sm) {
    return std::min(persistent_occupancy_as<BvhViewLayout::kBvh2>(blocks_per_sm),
                    persistent_occupancy_as<BvhViewLayout::kCwbvh>(blocks_per_sm));
}

cudaError_t launch_persistent(const PersistentParams& p, int blocks, int blocks_per_sm, cudaStream_t stream) {
    return p.scene.bvh.layout == BvhViewLayout::kCwbvh
               ? launch_persistent_as<BvhViewLayout::kCwbvh>(p, blocks, blocks_per_sm, stream)
               : launch_persistent_as<BvhViewLayout::kBvh2>(p, blocks, blocks_per_sm, stream);
}

int resident_occupancy() {
    return std::min(resident_occupancy_as<BvhViewLayout::kBvh2>(), resident_occupancy_as<BvhViewLayout::kCwbvh>());
}

cudaError_t launch_resident(const PersistentParams& p, int blocks, cudaStream_t stream) {
    return p.scene.bvh.layout == BvhViewLayout::kCwbvh ? launch_resident_as<BvhViewLayout::kCwbvh>(p, blocks, stream)
                                                      : launch_resident_as<BvhViewLayout::kBvh2>(p, blocks, stream);
}

}  // namespace pkrt
