#include "render/bvh/bvh_build.h"

#include <algorithm>
#include <atomic>
#include <future>
#include <mutex>

#include "render/bvh/bvh_presplit.h"
#include "render/bvh/bvh_sbvh.h"
#include "render/error.h"
#include "kernels/traversal/bvh.h"
#include "render/cpu/parallel.h"

namespace pkrt {

namespace {

// Past this depth, splits are object medians: they halve the range, so the tree can never outgrow
// the traversal stack (kMaxTraversalStack) however adversarial the geometry.
constexpr int kMedianSplitDepth = kMaxTraversalStack - 28;
constexpr uint32_t kParallelTaskSize = 16 * 1024;
constexpr uint32_t kParallelBinningSize = 128 * 1024;

class Builder {
public:
    // Primitives are references (render/bvh/bvh_presplit.h): a triangle, or a piece of one, with its box.
    Builder(const std::vector<BvhReference>& refs, const BvhBuildOptions& opt) : opt_(opt) {
        size_t n = refs.size();
        boxes_.resize(n);
        centroids_.resize(n);
        order_.resize(n);
        tri_of_.resize(n);
        parallel_chunks(n, 4096, [&](unsigned, size_t b, size_t e) {
            for (size_t i = b; i < e; ++i) {
                boxes_[i] = refs[i].box;
                centroids_[i] = (refs[i].box.lo + refs[i].box.hi) * 0.5f;
                order_[i] = static_cast<uint32_t>(i);
                tri_of_[i] = refs[i].tri;
            }
        });
        nodes_.resize(std::max<size_t>(1, 2 * n));
        max_tasks_ = static_cast<int>(worker_count()) * 2;
    }

    BinaryBvh run() {
        uint32_t n = static_cast<uint32_t>(order_.size());
        node_count_ = 1;
        nodes_[0].first = 0;
        nodes_[0].count = n;
        nodes_[0].box = range_bounds(0, n);
        build(0, 0);
        BinaryBvh r;
        nodes_.resize(node_count_.load());
        r.order.reserve(order_.size());
        assign_slots(0, r.order);  // references -> their triangles, each once per leaf
        r.nodes = std::move(nodes_);
        r.depth = max_depth_.load();
        for (const BinaryBvhNode& nd : r.nodes) r.leaves += nd.is_leaf() ? 1 : 0;
        return r;
    }

private:
    // Depth first, as the ranges already are: each leaf's references become its triangles, a triangle
    // whose pieces share a leaf once (the leaf tests the whole triangle), and ranges shrink to match.
    void assign_slots(int32_t node, std::vector<uint32_t>& out) {
        assign_leaf_slots(nodes_, node, out, [this](int32_t leaf, std::vector<uint32_t>& slots) {
            const BinaryBvhNode& nd = nodes_[leaf];  // its reference range, rewritten after this
            size_t first = slots.size();
            for (uint32_t i = nd.first; i < nd.first + nd.count; ++i) {
                uint32_t tri = tri_of_[order_[i]];
                if (std::find(slots.begin() + static_cast<long>(first), slots.end(), tri) == slots.end())
                    slots.push_back(tri);
            }
        });
    }

    Aabb range_bounds(uint32_t begin, uint32_t end) const {
        Aabb box;
        for (uint32_t i = begin; i < end; ++i) box.grow(boxes_[order_[i]]);
        return box;
    }

    struct Bin {
        Aabb box;
        uint32_t count = 0;
    };

    void bin_range(uint32_t begin, uint32_t end, const Aabb& cb, std::vector<Bin>& bins) const {
        int k = opt_.bins;
        for (uint32_t i = begin; i < end; ++i) {
            uint32_t p = order_[i];
            for (int axis = 0; axis < 3; ++axis) {
                int b = bin_of(centroids_[p][axis], cb.lo[axis], cb.hi[axis]);
                Bin& bin = bins[axis * k + b];
                bin.box.grow(boxes_[p]);
                ++bin.count;
            }
        }
    }

    int bin_of(float c, float lo, float hi) const {
        float extent = hi - lo;
        if (!(extent > 0.0f)) return 0;
        return centroid_bin(c, lo, extent, opt_.bins);
    }

    void make_children(int32_t node, uint32_t mid, int depth, bool allow_task) {
        BinaryBvhNode& nd = nodes_[node];
        int32_t l = node_count_.fetch_add(2);
        int32_t r = l + 1;
        nodes_[l].first = nd.first;
        nodes_[l].count = mid - nd.first;
        nodes_[r].first = mid;
        nodes_[r].count = nd.first + nd.count - mid;
        nodes_[l].box = range_bounds(nodes_[l].first, mid);
        nodes_[r].box = range_bounds(mid, nd.first + nd.count);
        nd.left = l;
        nd.right = r;
        if (allow_task && nd.count > kParallelTaskSize && active_tasks_.fetch_add(1) < max_tasks_) {
            auto task = std::async(std::launch::async, [this, l, depth] { build(l, depth + 1); });
            build(r, depth + 1);
            task.get();
            active_tasks_.fetch_sub(1);
        } else {
            if (allow_task && nd.count > kParallelTaskSize) active_tasks_.fetch_sub(1);
            build(l, depth + 1);
            build(r, depth + 1);
        }
    }

    void make_leaf(int depth) {
        int d = max_depth_.load();
        while (depth > d && !max_depth_.compare_exchange_weak(d, depth)) {}
    }

    void build(int32_t node, int depth) {
        BinaryBvhNode& nd = nodes_[node];
        uint32_t begin = nd.first, end = nd.first + nd.count, n = nd.count;
        if (n <= 1) return make_leaf(depth);
        Aabb cb;
        for (uint32_t i = begin; i < end; ++i) cb.grow(centroids_[order_[i]]);
        Vec3 ce = cb.hi - cb.lo;
        int big_axis = (ce.x >= ce.y && ce.x >= ce.z) ? 0 : (ce.y >= ce.z ? 1 : 2);

        if (depth >= kMedianSplitDepth || !(ce[big_axis] > 0.0f)) {
            if (n <= static_cast<uint32_t>(opt_.max_leaf_size)) return make_leaf(depth);
            // Coincident centroids or too deep: object median keeps the tree balanced.
            uint32_t mid = begin + n / 2;
            std::nth_element(order_.begin() + begin, order_.begin() + mid, order_.begin() + end,
                             [&](uint32_t a, uint32_t b) { return centroids_[a][big_axis] < centroids_[b][big_axis]; });
            return make_children(node, mid, depth, true);
        }

        int k = opt_.bins;
        std::vector<Bin> bins(3 * k);
        if (n >= kParallelBinningSize) {
            std::mutex merge;
            parallel_chunks(n, (n + worker_count() - 1) / worker_count(), [&](unsigned, size_t b, size_t e) {
                std::vector<Bin> local(3 * k);
                bin_range(begin + static_cast<uint32_t>(b), begin + static_cast<uint32_t>(e), cb, local);
                std::lock_guard<std::mutex> lock(merge);
                for (int i = 0; i < 3 * k; ++i) {
                    bins[i].box.grow(local[i].box);
                    bins[i].count += local[i].count;
                }
            });
        } else {
            bin_range(begin, end, cb, bins);
        }

        // Sweep each axis: costs of the k-1 planes between bins.
        float best_cost = kInfinity;
        int best_axis = -1, best_plane = -1;
        std::vector<float> left_area(k), left_count(k);
        for (int axis = 0; axis < 3; ++axis) {
            if (!(ce[axis] > 0.0f)) continue;
            const Bin* ab = &bins[axis * k];
            Aabb acc;
            uint32_t cnt = 0;
            for (int i = 0; i < k - 1; ++i) {
                acc.grow(ab[i].box);
                cnt += ab[i].count;
                left_area[i] = acc.area();
                left_count[i] = static_cast<float>(cnt);
            }
            acc = Aabb{};
            cnt = 0;
            for (int i = k - 1; i > 0; --i) {
                acc.grow(ab[i].box);
                cnt += ab[i].count;
                float nl = left_count[i - 1], nr = static_cast<float>(cnt);
                if (nl == 0.0f || nr == 0.0f) continue;
                float cost = left_area[i - 1] * nl + acc.area() * nr;
                if (cost < best_cost) {
                    best_cost = cost;
                    best_axis = axis;
                    best_plane = i;
                }
            }
        }
        float parent_area = nd.box.area();
        float split_cost = opt_.traversal_cost + (parent_area > 0.0f ? best_cost / parent_area : kInfinity);
        float leaf_cost = static_cast<float>(n);
        if (best_axis < 0 || (leaf_cost <= split_cost && n <= static_cast<uint32_t>(opt_.max_leaf_size))) {
            if (n <= static_cast<uint32_t>(opt_.max_leaf_size)) return make_leaf(depth);
            uint32_t mid = begin + n / 2;
            std::nth_element(order_.begin() + begin, order_.begin() + mid, order_.begin() + end,
                             [&](uint32_t a, uint32_t b) { return centroids_[a][big_axis] < centroids_[b][big_axis]; });
            return make_children(node, mid, depth, true);
        }
        float lo = cb.lo[best_axis], hi = cb.hi[best_axis];
        auto it = std::partition(order_.begin() + begin, order_.begin() + end,
                                 [&](uint32_t p) { return bin_of(centroids_[p][best_axis], lo, hi) < best_plane; });
        uint32_t mid = static_cast<uint32_t>(it - order_.begin());
        if (mid == begin || mid == end) mid = begin + n / 2;  // cannot happen with non-empty sides; be safe
        make_children(node, mid, depth, true);
    }

    const BvhBuildOptions& opt_;
    std::vector<Aabb> boxes_;
    std::vector<Vec3> centroids_;
    std::vector<uint32_t> order_;   // reference indices while building
    std::vector<uint32_t> tri_of_;  // a reference's triangle
    std::vector<BinaryBvhNode> nodes_;
    std::atomic<int32_t> node_count_{0};
    std::atomic<int> active_tasks_{0};
    std::atomic<int> max_depth_{0};
    int max_tasks_ = 2;
};

}  // namespace

BinaryBvh build_bvh(const std::vector<TriVerts>& tris, const BvhBuildOptions& options) {
    if (tris.empty()) throw Error("cannot build a BVH over zero triangles");
    if (tris.size() >= static_cast<size_t>(kMaxTriangles))
        throw Error("too many triangles: " + std::to_string(tris.size()) + " (the BVH addresses at most " +
                    std::to_string(kMaxTriangles) + ")");
    if (options.max_leaf_size < 1 || options.max_leaf_size > kMaxLeafSize) throw Error("BVH leaf size out of range");
    if (!(options.split_budget >= 0.0f && options.split_budget <= 4.0f))
        throw Error("BVH split budget out of range (0 to 4)");
    if (options.spatial_splits) {
        if (options.split_budget > 0.0f) throw Error("triangle pre-splitting and spatial splits exclude each other");
        return build_sbvh(tris, options);
    }
    std::vector<BvhReference> refs = presplit_triangles(tris, options.split_budget);
    if (refs.size() >= static_cast<size_t>(kMaxTriangles))
        throw Error("too many BVH references after splitting: " + std::to_string(refs.size()) + " (at most " +
                    std::to_string(kMaxTriangles) + ")");
    Builder builder(refs, options);
    return builder.run();
}

double bvh_sah_cost(const BinaryBvh& bvh, float traversal_cost) {
    if (bvh.nodes.empty()) return 0.0;
    double root = bvh.nodes[0].box.area();
    if (!(root > 0.0)) return 0.0;
    double cost = 0.0;
    for (const BinaryBvhNode& nd : bvh.nodes) {
        double p = nd.box.area() / root;
        cost += nd.is_leaf() ? p * nd.count : p * traversal_cost;
    }
    return cost;
}

}  // namespace pkrt
