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

#include "adaptive.h"
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

// An adaptive round's numbers go part after part through its work list the same way as a frame's
// (neighbouring entries are neighbouring pixels of one tile). Out of line: frames that do not sample
// adaptively then run as fast as before adaptive rounds had a plan (H200, Cornell box 1080p d16,
// persistent, against the commit before in one run: 1.033 inlined, 0.982 out of line).
PKRT_HD_OUTLINE PathIndex adaptive_path_index(const FrameRecord& f, unsigned long long i) {
    const AdaptivePlan& plan = *f.plan;
    int k = 0;
    while (k + 1 < kAdaptiveClasses && i >= load_l2(&plan.first_path[k + 1])) ++k;
    unsigned long long local = i - load_l2(&plan.first_path[k]);
    uint32_t pixels = load_l2(&plan.pixels[k]);
    const WorkPixel& w = f.work[load_l2(&plan.offset[k]) + static_cast<uint32_t>(local % pixels)];
    return PathIndex{load_l2(&w.pixel), load_l2(&w.first_sample) + static_cast<uint32_t>(local / pixels)};
}

// A frame's paths are numbered pixel-major within each sample, so neighbouring numbers are
// neighbouring pixels of the same sample (coherent camera rays in a warp). An adaptive round's first
// has no work list: every pixel, like a uniform frame.
PKRT_HD PathIndex path_index(const FrameRecord& f, unsigned long long i) {
    if (f.work) return adaptive_path_index(f, i);
    uint32_t pixels = f.pixels();
    return PathIndex{static_cast<uint32_t>(i % pixels), f.first_sample + static_cast<uint32_t>(i / pixels)};
}

// An adaptive round's odd-numbered samples add to the framebuffer's second half (kernels/adaptive.h).
PKRT_HD PathState generate_path(const FrameRecord& f, PathIndex k) {
    PathState s = start_path(f, k.pixel, k.sample);
    if (f.plan && (k.sample & 1u)) s.pixel += f.pixels();
    return s;
}

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
