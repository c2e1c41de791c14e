// The one dispatch from a scene to the kernel build it needs, for every kernel file: its BVH layout
// (kernels/traversal/bvh_traverse.h) and one flag, which is whether it needs the full per-ray code
// (kernels/shading/environment.h) or, for the kernels that only traverse, whether it has cut-outs.
// f gets std::integral_constant arguments, so that it can name the build as a template argument:
//   with_build(layout, flag, [&](auto layout, auto flag) { return kernel<layout.value, flag.value>...; });
#pragma once

#include <type_traits>

#include "kernels/traversal/bvh.h"

namespace pkrt {

using Bvh2Build = std::integral_constant<BvhViewLayout, BvhViewLayout::kBvh2>;
using CwbvhBuild = std::integral_constant<BvhViewLayout, BvhViewLayout::kCwbvh>;

template <class F> decltype(auto) with_flag(bool flag, F&& f) {
    return flag ? f(std::true_type{}) : f(std::false_type{});
}

template <class F> decltype(auto) with_build(BvhViewLayout layout, bool flag, F&& f) {
    return with_flag(
        flag, [&](auto fl) { return layout == BvhViewLayout::kCwbvh ? f(CwbvhBuild{}, fl) : f(Bvh2Build{}, fl); });
}

// f for every build (layout x flag), in a fixed order: what a grid sized before the scene is known must fit.
template <class F> void for_each_build(F&& f) {
    f(Bvh2Build{}, std::false_type{});
    f(Bvh2Build{}, std::true_type{});
    f(CwbvhBuild{}, std::false_type{});
    f(CwbvhBuild{}, std::true_type{});
}

}  // namespace pkrt
