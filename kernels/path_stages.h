// The steps every scheduler takes around the per-ray code of path.h, written once so that the CPU loop,
// the persistent kernel, the wavefront stages and the megakernel cannot drift apart:
//
//   path_index      a frame's path number -> (pixel, sample)
//   generate_path   the camera path of that number
//   advance_path    one step of a path: extend_step (trace its ray), then shade_step (shade the hit, its
//                   shadow ray, the end of its sample or the next bounce); the sequence every scheduler runs
//   resolve_shadow  trace a shadow ray; unoccluded, its contribution reaches the pixel
//
// Radiance and finished samples go to a Sink (the CPU's per-pixel sum, the GPU framebuffer):
//   void add(uint32_t pixel, Vec3 radiance);   void finish(uint32_t pixel);
// Traversal is a policy too: the layout fixed at compile time (GPU kernels, one build per layout, with or
// without the cut-out test: kCutouts), or out of line where a kernel wants the
// traversal loop to have the whole register budget, or read from the view (the CPU loop):
// static Hit closest(const SceneView&, const Ray&) and static bool occluded(const SceneView&, const Ray&, float tmax).
#pragma once

#include "kernels/adaptive.h"
#include "kernels/path.h"

namespace pkrt {

template <BvhViewLayout L, bool kCutouts> struct LayoutTraversal {
    static PKRT_HD Hit closest(const SceneView& s, const Ray& ray) {
        return closest_hit<L>(s.bvh, ray, kInfinity, SurfacesOf<kCutouts>::of(s));
    }
    static PKRT_HD bool occluded(const SceneView& s, const Ray& ray, float tmax) {
        return any_hit<L>(s.bvh, ray, tmax, SurfacesOf<kCutouts>::of(s));
    }
};

// Host only: the layout is a branch per ray, and cut-outs are always tested (an opaque triangle's rule
// is one compare).
struct InlineTraversal {
    static Hit closest(const SceneView& s, const Ray& ray) {
        return intersect_closest(s.bvh, ray, kInfinity, SurfacesOf<true>::of(s));
    }
    static bool occluded(const SceneView& s, const Ray& ray, float tmax) {
        return pkrt::occluded(s.bvh, ray, tmax, SurfacesOf<true>::of(s));
    }
};

struct PathIndex {
    uint32_t pixel;
    uint32_t sample;
};

// An adaptive round's numbers go part after part through its work list the same way as a frame's
// (neighbouring entries are neighbouring pixels of one tile). The part is a binary search of the
// plan: five dependent loads, where a walk through the classes took up to twenty. kL2: the plan is read
// through L2 (a resident kernel, whose SMs may hold the last round's plan in L1); a kernel that lives
// for one round reads it through L1. Out of line: frames that do not sample adaptively then run as
// fast as before rounds had a plan (BENCHMARKS.md, "Timings that left the code comments").
template <bool kL2> PKRT_HD_OUTLINE PathIndex adaptive_path_index(const FrameRecord& f, unsigned long long i) {
    auto load = [](const auto* p) { return kL2 ? load_l2(p) : *p; };
    const AdaptivePlan& plan = *f.plan;
    int lo = 0, hi = kAdaptiveClasses - 1;  // the last part that starts at or before path i (never an empty one)
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (load(&plan.first_path[mid]) <= i) lo = mid;
        else hi = mid - 1;
    }
    unsigned long long local = i - load(&plan.first_path[lo]);
    uint32_t pixels = load(&plan.pixels[lo]);
    const WorkPixel& w = f.work[load(&plan.offset[lo]) + static_cast<uint32_t>(local % pixels)];
    return PathIndex{load(&w.pixel), load(&w.first_sample) + static_cast<uint32_t>(local / pixels)};
}

// A frame's paths are numbered pixel-major within each sample, so neighbouring numbers are
// neighbouring pixels of the same sample (coherent camera rays in a warp). An adaptive round's first
// has no work list: every pixel, like a uniform frame.
template <bool kL2 = false> PKRT_HD PathIndex path_index(const FrameRecord& f, unsigned long long i) {
    if (f.work) return adaptive_path_index<kL2>(f, i);
    uint32_t pixels = f.pixels();
    return PathIndex{static_cast<uint32_t>(i % pixels), f.first_sample + static_cast<uint32_t>(i / pixels)};
}

// An adaptive round's odd-numbered samples add to the framebuffer's second half (kernels/adaptive.h).
PKRT_HD PathState generate_path(const FrameRecord& f, PathIndex k) {
    PathState s = start_path(f, k.pixel, k.sample);
    if (f.plan && (k.sample & 1u)) s.pixel += f.pixels();
    return s;
}

// ---- One step of a path ----
// The sub-steps, in the order every scheduler runs them (the wavefront stages run extend_step and
// shade_step in kernels of their own). What differs between schedulers is a Step: how it traces, shades,
// counts and where a shadow ray goes (traced at once, or queued for another stage), with
//   Sink sink;                                                  radiance and finished samples
//   Hit closest(const Ray&);                                    active lanes only
//   void extended(bool active, const PathState&);               after the trace: count the ray
//   void shade(PathState&, const Hit&, ShadeResult&);           active lanes only; the next bounce into the path
//   void dropped(bool);                                         a non-finite contribution was dropped
//   void shadow(bool want, const ShadowRay&, int depth);        trace it now or queue it
//   void finish(bool ended, const PathState&);                  a path that ended finishes its sample
// GPU Steps are warp-collective: every lane calls them, `active` says whether it holds a path, and the
// calls other than closest and shade come from every lane.
template <class Step> PKRT_HD Hit extend_step(Step& st, const PathState& path, bool active) {
    Hit hit = no_hit();
    if (active) hit = st.closest(Ray{path.origin, path.dir});
    st.extended(active, path);
    return hit;
}

template <class Step> PKRT_HD ShadeResult shade_step(Step& st, PathState& path, const Hit& hit, bool active) {
    ShadeResult r;
    r.has_shadow = false;
    r.continues = false;
    r.dropped = false;
    int depth = path.depth;  // the shadow ray's: shading moves the path to its next bounce
    if (active) {
        uint32_t pixel = path.pixel;
        st.shade(path, hit, r);
        st.sink.add(pixel, r.radiance);
    }
    st.dropped(r.dropped);
    st.shadow(active && r.has_shadow, r.shadow, depth);
    st.finish(active && !r.continues, path);
    return r;
}

// Returns whether the path goes on (its next bounce is in `path`). Every lane runs both sub-steps, with a
// path or without (a short-circuit here would skip the warp-collective calls on lanes without one).
template <class Step> PKRT_HD bool advance_path(Step& st, PathState& path, bool active) {
    Hit hit = extend_step(st, path, active);
    return shade_step(st, path, hit, active).continues;  // false for a lane without a path
}

template <class Traversal, class Sink>
PKRT_HD void resolve_shadow(Sink& sink, const SceneView& scene, const ShadowRay& s) {
    if (!Traversal::occluded(scene, Ray{s.origin, s.dir}, s.tmax)) sink.add(s.pixel, s.contribution);
}

}  // namespace pkrt
