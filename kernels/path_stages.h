// The steps every scheduler takes around the per-ray code of path.h, written once so that the CPU loop,
// the persistent kernel, the wavefront stages and the megakernel cannot drift apart:
//
//   path_index      a frame's path number -> (pixel, sample)
//   generate_path   the camera path of that number
//   add_shading     what shading gave the pixel; a path that does not continue finishes its sample
//   resolve_shadow  trace a shadow ray; unoccluded, its contribution reaches the pixel
//
// Radiance and finished samples go to a Sink (the CPU's per-pixel sum, the GPU framebuffer):
//   void add(uint32_t pixel, Vec3 radiance);   void finish(uint32_t pixel);
// Traversal is a policy too: the layout fixed at compile time (GPU kernels, one build per layout), or
// out of line where a kernel wants the traversal loop to have the whole register budget, or read from
// the view (the CPU loop): static Hit closest(const BvhView&, const Ray&) and
// static bool occluded(const BvhView&, const Ray&, float tmax).
#pragma once

#include "path.h"

namespace pkrt {

template <BvhViewLayout L>
struct LayoutTraversal {
    static PKRT_HD Hit closest(const BvhView& bvh, const Ray& ray) { return closest_hit<L>(bvh, ray); }
    static PKRT_HD bool occluded(const BvhView& bvh, const Ray& ray, float tmax) { return any_hit<L>(bvh, ray, tmax); }
};

// Host only: the layout is a branch per ray.
struct InlineTraversal {
    static Hit closest(const BvhView& bvh, const Ray& ray) { return intersect_closest(bvh, ray); }
    static bool occluded(const BvhView& bvh, const Ray& ray, float tmax) { return pkrt::occluded(bvh, ray, tmax); }
};

struct PathIndex {
    uint32_t pixel;
    uint32_t sample;
};

// A frame's paths are numbered pixel-major within each sample, so neighbouring numbers are
// neighbouring pixels of the same sample (coherent camera rays in a warp).
// An adaptive round's numbers go through its work list the same way (neighbouring entries are
// neighbouring pixels of one tile), and its frames take every other sample (sample_stride 2: the even
// ones into one set of sums, the odd ones into another, kernels/adaptive.h).
PKRT_HD PathIndex path_index(const FrameRecord& f, unsigned long long i) {
    if (f.work) {
        WorkPixel w = f.work[i % f.work_pixels];
        return PathIndex{w.pixel, w.first_sample + f.first_sample + f.sample_stride * static_cast<uint32_t>(i / f.work_pixels)};
    }
    uint32_t pixels = f.pixels();
    return PathIndex{static_cast<uint32_t>(i % pixels), f.first_sample + f.sample_stride * static_cast<uint32_t>(i / pixels)};
}

PKRT_HD PathState generate_path(const FrameRecord& f, PathIndex k) { return start_path(f, k.pixel, k.sample); }

template <class Sink>
PKRT_HD void add_shading(Sink& sink, uint32_t pixel, const ShadeResult& r) {
    sink.add(pixel, r.radiance);
    if (!r.continues) sink.finish(pixel);
}

template <class Traversal, class Sink>
PKRT_HD void resolve_shadow(Sink& sink, const BvhView& bvh, const ShadowRay& s) {
    if (!Traversal::occluded(bvh, Ray{s.origin, s.dir}, s.tmax)) sink.add(s.pixel, s.contribution);
}

}  // namespace pkrt
