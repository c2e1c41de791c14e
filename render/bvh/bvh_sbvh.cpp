#include "render/bvh/bvh_sbvh.h"

#include <algorithm>
#include <cmath>
#include <future>
#include <thread>

#include "render/bvh/bvh_presplit.h"
#include "render/cpu/parallel.h"
#include "render/error.h"
#include "kernels/traversal/bvh.h"

namespace pkrt {

namespace {

constexpr int kBins = 32;
constexpr int kMedianSplitDepth = kMaxTraversalStack - 28;  // as the binned builder: past it, object medians
constexpr size_t kParallelRefs = 32 * 1024;  // a subtree this large gets a thread of its own near the top

using Ref = BvhReference;

Vec3 centroid(const Ref& r) { return (r.box.lo + r.box.hi) * 0.5f; }

Aabb intersect(const Aabb& a, const Aabb& b) {
    Aabb r;
    r.lo = vmax(a.lo, b.lo);
    r.hi = vmin(a.hi, b.hi);
    if (r.lo.x > r.hi.x || r.lo.y > r.hi.y || r.lo.z > r.hi.z) return Aabb{};
    return r;
}

// The box of `piece` (the part of the reference's triangle between lo and hi on `axis`), bounded by
// the reference's own box: conservative where the reference was already a piece.
Aabb piece_box(const ClipPolygon& piece, const Ref& ref, int axis, float lo, float hi) {
    Aabb box;
    for (int i = 0; i < piece.n; ++i) box.grow(piece.v[i]);
    if (box.empty()) return Aabb{};
    Aabb slab = ref.box;
    set_axis(slab.lo, axis, std::max(slab.lo[axis], lo));
    set_axis(slab.hi, axis, std::min(slab.hi[axis], hi));
    return intersect(box, slab);
}

// The box of the part of the reference between two planes of one axis: the triangle cut by those two
// planes only (split_polygon), then piece_box.
Aabb clip_reference(const TriVerts& t, const Ref& ref, int axis, float lo, float hi) {
    ClipPolygon whole = triangle_polygon(t), below, above, scratch;
    const ClipPolygon* part = &whole;
    if (lo > -kInfinity) {
        split_polygon(whole, axis, lo, scratch, above);
        part = &above;
    }
    if (hi < kInfinity) {
        split_polygon(*part, axis, hi, below, scratch);
        part = &below;
    }
    return piece_box(*part, ref, axis, lo, hi);
}

struct Split {
    float cost = kInfinity;
    int axis = -1;
    float position = 0.0f;  // spatial: the plane; object: the centroid bin boundary
    int bin = 0;            // object: first bin of the right side
    Aabb left, right;       // object: the children's boxes
};

class SbvhBuilder {
public:
    SbvhBuilder(const std::vector<TriVerts>& tris, const BvhBuildOptions& opt) : tris_(tris), opt_(opt) {
        parallel_depth_ = 0;
        for (unsigned t = worker_count(); t > 1; t /= 2) ++parallel_depth_;
    }

    BinaryBvh run() {
        std::vector<Ref> refs = presplit_triangles(tris_, 0.0f);  // one reference per triangle, its box
        Aabb root;
        for (const Ref& r : refs) root.grow(r.box);
        min_overlap_ = opt_.sbvh_alpha * root.area();
        max_refs_ = tris_.size() * 2;  // spatial splits stop short of doubling the references
        ref_count_ = tris_.size();
        nodes_.push_back(BinaryBvhNode{});
        leaf_tris_.emplace_back();
        build(0, std::move(refs), 0);
        BinaryBvh out;
        out.order.reserve(ref_count_);
        assign(0, out.order);
        out.nodes = std::move(nodes_);
        out.depth = depth_;
        for (const auto& nd : out.nodes) out.leaves += nd.is_leaf() ? 1 : 0;
        return out;
    }

private:
    void make_leaf(int32_t node, const std::vector<Ref>& refs, int depth) {
        depth_ = std::max(depth_, depth);
        std::vector<uint32_t>& tris = leaf_tris_[node];
        for (const Ref& r : refs)
            if (std::find(tris.begin(), tris.end(), r.tri) == tris.end()) tris.push_back(r.tri);
    }

    void build(int32_t node, std::vector<Ref> refs, int depth) {
        Aabb box;
        for (const Ref& r : refs) box.grow(r.box);
        nodes_[node].box = box;
        size_t n = refs.size();
        const size_t max_leaf = static_cast<size_t>(opt_.max_leaf_size);
        if (n <= 1) return make_leaf(node, refs, depth);
        std::vector<Ref> left, right;
        if (depth >= kMedianSplitDepth) {
            if (n <= max_leaf) return make_leaf(node, refs, depth);
            median_split(refs, box, left, right);
        } else {
            Split object = object_split(refs);
            Split spatial;
            if (object.axis >= 0 && ref_count_ < max_refs_ &&
                intersect(object.left, object.right).area() > min_overlap_)
                spatial = spatial_split(refs, box);
            float best = std::min(object.cost, spatial.cost);
            float leaf_cost = static_cast<float>(n);
            float split_cost = opt_.traversal_cost + (box.area() > 0.0f ? best / box.area() : kInfinity);
            if (n <= max_leaf && leaf_cost <= split_cost) return make_leaf(node, refs, depth);
            if (spatial.cost < object.cost) {
                partition_spatial(refs, spatial, left, right);
            } else if (object.axis >= 0) {
                partition_object(refs, object, left, right);
            }
            if (left.empty() || right.empty()) {
                left.clear();
                right.clear();
                if (n <= max_leaf) return make_leaf(node, refs, depth);
                median_split(refs, box, left, right);
            }
        }
        refs.clear();
        refs.shrink_to_fit();
        if (depth < parallel_depth_ && left.size() > kParallelRefs && right.size() > kParallelRefs) {
            // The left subtree in a builder of its own on another thread, spliced in after: no node array
            // is shared while both grow.
            SbvhBuilder sub(tris_, opt_);
            sub.min_overlap_ = min_overlap_;
            // The budget left is shared by the two subtrees, in proportion to their references, so that
            // the two builders together stay within it.
            const size_t left_budget =
                (max_refs_ > ref_count_ ? max_refs_ - ref_count_ : 0) * left.size() / (left.size() + right.size());
            sub.max_refs_ = ref_count_ + left_budget;
            max_refs_ -= left_budget;
            sub.ref_count_ = ref_count_;
            sub.start_refs_ = ref_count_;
            sub.parallel_depth_ = parallel_depth_;
            sub.nodes_.push_back(BinaryBvhNode{});
            sub.leaf_tris_.emplace_back();
            auto task =
                std::async(std::launch::async, [&sub, &left, depth] { sub.build(0, std::move(left), depth + 1); });
            int32_t r = static_cast<int32_t>(nodes_.size());
            nodes_.push_back(BinaryBvhNode{});
            leaf_tris_.resize(nodes_.size());
            nodes_[node].right = r;
            build(r, std::move(right), depth + 1);
            task.get();
            nodes_[node].left = splice(sub);
            max_refs_ += left_budget;
            return;
        }
        int32_t l = static_cast<int32_t>(nodes_.size());
        nodes_.push_back(BinaryBvhNode{});
        nodes_.push_back(BinaryBvhNode{});
        leaf_tris_.resize(nodes_.size());
        nodes_[node].left = l;
        nodes_[node].right = l + 1;
        build(l, std::move(left), depth + 1);
        build(l + 1, std::move(right), depth + 1);
    }

    // Appends another builder's tree; returns the index its root now has.
    int32_t splice(SbvhBuilder& sub) {
        int32_t offset = static_cast<int32_t>(nodes_.size());
        for (BinaryBvhNode nd : sub.nodes_) {
            if (!nd.is_leaf()) {
                nd.left += offset;
                nd.right += offset;
            }
            nodes_.push_back(nd);
        }
        for (auto& t : sub.leaf_tris_) leaf_tris_.push_back(std::move(t));
        depth_ = std::max(depth_, sub.depth_);
        ref_count_ += sub.ref_count_ - sub.start_refs_;
        return offset;
    }

    Split object_split(const std::vector<Ref>& refs) const {
        Aabb cb;
        for (const Ref& r : refs) cb.grow(centroid(r));
        Split best;
        for (int axis = 0; axis < 3; ++axis) {
            float lo = cb.lo[axis], extent = cb.hi[axis] - lo;
            if (!(extent > 0.0f)) continue;
            Aabb bins[kBins];
            int counts[kBins] = {};
            for (const Ref& r : refs) {
                int b = centroid_bin(centroid(r)[axis], lo, extent, kBins);
                bins[b].grow(r.box);
                ++counts[b];
            }
            sweep(bins, counts, counts, axis, [&](int i, float cost, const Aabb& l, const Aabb& r) {
                if (cost < best.cost) {
                    best = Split{cost, axis, lo + extent * static_cast<float>(i) / kBins, i, l, r};
                }
            });
        }
        return best;
    }

    // Costs of the planes between bins: boxes and counts from the left (entering) and right (exiting).
    template <class F> static void sweep(const Aabb* bins, const int* enter, const int* exit, int axis, F&& found) {
        (void)axis;
        Aabb left_box[kBins];
        int left_count[kBins];
        Aabb acc;
        int cnt = 0;
        for (int i = 0; i < kBins - 1; ++i) {
            acc.grow(bins[i]);
            cnt += enter[i];
            left_box[i] = acc;
            left_count[i] = cnt;
        }
        acc = Aabb{};
        cnt = 0;
        for (int i = kBins - 1; i > 0; --i) {
            acc.grow(bins[i]);
            cnt += exit[i];
            if (left_count[i - 1] == 0 || cnt == 0) continue;
            float cost = left_box[i - 1].area() * left_count[i - 1] + acc.area() * cnt;
            found(i, cost, left_box[i - 1], acc);
        }
    }

    Split spatial_split(const std::vector<Ref>& refs, const Aabb& box) const {
        Split best;
        for (int axis = 0; axis < 3; ++axis) {
            float lo = box.lo[axis], extent = box.hi[axis] - lo;
            if (!(extent > 0.0f)) continue;
            float width = extent / kBins;
            Aabb bins[kBins];
            int enter[kBins] = {}, exit[kBins] = {};
            auto bin_of = [&](float x) { return std::clamp(static_cast<int>((x - lo) / width), 0, kBins - 1); };
            for (const Ref& r : refs) {
                int b0 = bin_of(r.box.lo[axis]), b1 = bin_of(r.box.hi[axis]);
                ++enter[b0];
                ++exit[b1];
                if (b0 == b1) {
                    bins[b0].grow(r.box);
                    continue;
                }
                // One cut per bin boundary, each taking the next bin's piece off what is left of the
                // triangle (clipping the whole triangle afresh for every bin cost twice as much, and was
                // half of the SBVH build's time).
                // What is left alternates between two polygons (no copies).
                ClipPolygon rest[2], piece;
                rest[0] = triangle_polygon(tris_[r.tri]);
                int cur = 0;
                for (int b = b0; b < b1; ++b, cur ^= 1) {
                    float c = lo + width * (b + 1);
                    split_polygon(rest[cur], axis, c, piece, rest[cur ^ 1]);
                    bins[b].grow(piece_box(piece, r, axis, b == b0 ? -kInfinity : lo + width * b, c));
                }
                bins[b1].grow(piece_box(rest[cur], r, axis, lo + width * b1, kInfinity));
            }
            sweep(bins, enter, exit, axis, [&](int i, float cost, const Aabb&, const Aabb&) {
                if (cost < best.cost) best = Split{cost, axis, lo + width * i, i, {}, {}};
            });
        }
        return best;
    }

    void partition_object(const std::vector<Ref>& refs, const Split& s, std::vector<Ref>& left,
                          std::vector<Ref>& right) const {
        Aabb cb;
        for (const Ref& r : refs) cb.grow(centroid(r));
        float lo = cb.lo[s.axis], extent = cb.hi[s.axis] - lo;
        for (const Ref& r : refs) {
            int b = centroid_bin(centroid(r)[s.axis], lo, extent, kBins);
            (b < s.bin ? left : right).push_back(r);
        }
    }

    void partition_spatial(const std::vector<Ref>& refs, const Split& s, std::vector<Ref>& left,
                           std::vector<Ref>& right) {
        for (const Ref& r : refs) {
            float rlo = r.box.lo[s.axis], rhi = r.box.hi[s.axis];
            if (rhi <= s.position) {
                left.push_back(r);
            } else if (rlo >= s.position) {
                right.push_back(r);
            } else if (ref_count_ + 1 >= max_refs_) {  // the budget is spent: whole, on its centroid's side
                (centroid(r)[s.axis] < s.position ? left : right).push_back(r);
            } else {  // straddles: a part on each side, each with its own box
                Aabb l = clip_reference(tris_[r.tri], r, s.axis, -kInfinity, s.position);
                Aabb rr = clip_reference(tris_[r.tri], r, s.axis, s.position, kInfinity);
                if (!l.empty()) left.push_back(Ref{r.tri, l});
                if (!rr.empty()) right.push_back(Ref{r.tri, rr});
                if (l.empty() && rr.empty()) left.push_back(r);  // rounding: keep it whole
                if (!l.empty() && !rr.empty()) ++ref_count_;
            }
        }
    }

    void median_split(std::vector<Ref>& refs, const Aabb& box, std::vector<Ref>& left, std::vector<Ref>& right) const {
        Vec3 e = box.hi - box.lo;
        int axis = (e.x >= e.y && e.x >= e.z) ? 0 : (e.y >= e.z ? 1 : 2);
        size_t mid = refs.size() / 2;
        std::nth_element(refs.begin(), refs.begin() + static_cast<long>(mid), refs.end(),
                         [axis](const Ref& a, const Ref& b) { return centroid(a)[axis] < centroid(b)[axis]; });
        left.assign(refs.begin(), refs.begin() + static_cast<long>(mid));
        right.assign(refs.begin() + static_cast<long>(mid), refs.end());
    }

    // Each leaf's distinct triangles take the next slots.
    void assign(int32_t node, std::vector<uint32_t>& order) {
        assign_leaf_slots(nodes_, node, order, [this](int32_t leaf, std::vector<uint32_t>& out) {
            out.insert(out.end(), leaf_tris_[leaf].begin(), leaf_tris_[leaf].end());
        });
    }

    const std::vector<TriVerts>& tris_;
    const BvhBuildOptions& opt_;
    std::vector<BinaryBvhNode> nodes_;
    std::vector<std::vector<uint32_t>> leaf_tris_;  // per node; a leaf's distinct triangles
    float min_overlap_ = 0.0f;
    size_t max_refs_ = 0, ref_count_ = 0;
    size_t start_refs_ = 0;  // a sub-builder: ref_count_ when it started (it counts only its own growth on top)
    int depth_ = 0;
    int parallel_depth_ = 0;  // subtrees get threads down to this depth
};

}  // namespace

BinaryBvh build_sbvh(const std::vector<TriVerts>& tris, const BvhBuildOptions& options) {
    SbvhBuilder b(tris, options);
    return b.run();
}

}  // namespace pkrt
