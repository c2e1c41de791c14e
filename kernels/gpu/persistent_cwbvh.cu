// The persistent and resident kernels' builds for cwbvh (kernels/gpu/persistent_body.cuh).
#include "kernels/gpu/persistent_body.cuh"

namespace pkrt {
PKRT_PERSISTENT_BUILDS(BvhViewLayout::kCwbvh)
}  // namespace pkrt
