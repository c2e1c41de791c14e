// The persistent and resident kernels' builds for bvh2 (kernels/gpu/persistent_body.cuh).
#include "kernels/gpu/persistent_body.cuh"

namespace pkrt {
PKRT_PERSISTENT_BUILDS(BvhViewLayout::kBvh2)
}  // namespace pkrt
