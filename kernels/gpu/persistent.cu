// The persistent and resident kernels' entry points: the build of the scene's BVH layout, with or
// without the full shading (kernels/gpu/persistent_body.cuh, compiled per layout in persistent_bvh2.cu and
// persistent_cwbvh.cu).
#include <algorithm>
#include <limits>

#include "kernels/gpu/build_dispatch.h"
#include "kernels/gpu/gpu_launch.h"

namespace pkrt {

template <BvhViewLayout L, bool kFull> int persistent_occupancy_as(int blocks_per_sm);
template <BvhViewLayout L, bool kFull>
cudaError_t launch_persistent_as(const PersistentParams& p, int blocks, int blocks_per_sm, cudaStream_t stream);
template <BvhViewLayout L, bool kFull> int resident_occupancy_as();
template <BvhViewLayout L, bool kFull>
cudaError_t launch_resident_as(const PersistentParams& p, int blocks, cudaStream_t stream);

// A grid is sized before a scene (its layout and shading) is known: what every build holds resident.
int persistent_occupancy(int blocks_per_sm) {
    int blocks = std::numeric_limits<int>::max();
    for_each_build([&](auto layout, auto full) {
        blocks = std::min(blocks, persistent_occupancy_as<layout.value, full.value>(blocks_per_sm));
    });
    return blocks;
}

cudaError_t launch_persistent(const PersistentParams& p, int blocks, int blocks_per_sm, cudaStream_t stream) {
    return with_build(p.scene.bvh.layout, p.scene.full_shading != 0, [&](auto layout, auto full) {
        return launch_persistent_as<layout.value, full.value>(p, blocks, blocks_per_sm, stream);
    });
}

int resident_occupancy() {
    int blocks = std::numeric_limits<int>::max();
    for_each_build(
        [&](auto layout, auto full) { blocks = std::min(blocks, resident_occupancy_as<layout.value, full.value>()); });
    return blocks;
}

cudaError_t launch_resident(const PersistentParams& p, int blocks, cudaStream_t stream) {
    return with_build(p.scene.bvh.layout, p.scene.full_shading != 0, [&](auto layout, auto full) {
        return launch_resident_as<layout.value, full.value>(p, blocks, stream);
    });
}

}  // namespace pkrt
