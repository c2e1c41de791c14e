// The persistent and resident kernels' entry points: the build of the scene's BVH layout, with or
// without the full shading (kernels/gpu/persistent_body.cuh, compiled per layout in persistent_bvh2.cu and
// persistent_cwbvh.cu).
#include <algorithm>

#include "kernels/gpu/gpu_launch.h"

namespace pkrt {

template <BvhViewLayout L, bool kFull> int persistent_occupancy_as(int blocks_per_sm);
template <BvhViewLayout L, bool kFull>
cudaError_t launch_persistent_as(const PersistentParams& p, int blocks, int blocks_per_sm, cudaStream_t stream);
template <BvhViewLayout L, bool kFull> int resident_occupancy_as();
template <BvhViewLayout L, bool kFull> cudaError_t launch_resident_as(const PersistentParams& p, int blocks, cudaStream_t stream);

constexpr BvhViewLayout kBvh2 = BvhViewLayout::kBvh2, kCwbvh = BvhViewLayout::kCwbvh;

// A grid is sized before a scene (its layout and shading) is known: what every build holds resident.
int persistent_occupancy(int blocks_per_sm) {
    return std::min({persistent_occupancy_as<kBvh2, false>(blocks_per_sm), persistent_occupancy_as<kBvh2, true>(blocks_per_sm),
                     persistent_occupancy_as<kCwbvh, false>(blocks_per_sm), persistent_occupancy_as<kCwbvh, true>(blocks_per_sm)});
}

cudaError_t launch_persistent(const PersistentParams& p, int blocks, int blocks_per_sm, cudaStream_t stream) {
    bool wide = p.scene.bvh.layout == kCwbvh, full = p.scene.full_shading != 0;
    if (wide) return full ? launch_persistent_as<kCwbvh, true>(p, blocks, blocks_per_sm, stream)
                          : launch_persistent_as<kCwbvh, false>(p, blocks, blocks_per_sm, stream);
    return full ? launch_persistent_as<kBvh2, true>(p, blocks, blocks_per_sm, stream)
                : launch_persistent_as<kBvh2, false>(p, blocks, blocks_per_sm, stream);
}

int resident_occupancy() {
    return std::min({resident_occupancy_as<kBvh2, false>(), resident_occupancy_as<kBvh2, true>(),
                     resident_occupancy_as<kCwbvh, false>(), resident_occupancy_as<kCwbvh, true>()});
}

cudaError_t launch_resident(const PersistentParams& p, int blocks, cudaStream_t stream) {
    bool wide = p.scene.bvh.layout == kCwbvh, full = p.scene.full_shading != 0;
    if (wide) return full ? launch_resident_as<kCwbvh, true>(p, blocks, stream) : launch_resident_as<kCwbvh, false>(p, blocks, stream);
    return full ? launch_resident_as<kBvh2, true>(p, blocks, stream) : launch_resident_as<kBvh2, false>(p, blocks, stream);
}

}  // namespace pkrt
