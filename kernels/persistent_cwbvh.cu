// The persistent and resident kernels' builds for cwbvh (kernels/persistent_body.cuh).
#include "persistent_body.cuh"

namespace pkrt {
PKRT_PERSISTENT_BUILDS(BvhViewLayout::kCwbvh)
}  // namespace pkrt
