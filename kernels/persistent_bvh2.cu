// The persistent and resident kernels' builds for bvh2 (kernels/persistent_body.cuh).
#include "persistent_body.cuh"

namespace pkrt {
PKRT_PERSISTENT_BUILDS(BvhViewLayout::kBvh2)
}  // namespace pkrt
