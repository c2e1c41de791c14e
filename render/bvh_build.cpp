#include "bvh_build.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <future>
#include <mutex>

#include "error.h"
#include "parallel.h"

namespace pkrt {

namespace {

struct Aabb {
    Vec3 lo{kInfinity, kInfinity, kInfinity};
    Vec3 hi{-kInfinity, -kInfinity, -kInfinity};
    void grow(Vec3 p) { lo = vmin(lo, p); hi = vmax(hi, p); }
    void grow(const Aabb& b) { lo = vmin(lo, b.lo); hi = vmax(hi, b.hi); }
    bool empty() const { return lo.x > hi.x; }
    float area() const {
        if (empty()) return 0.0f;
        Vec3 e = hi - lo;
        return 2.0f * (e.x * e.y + e.y * e.z + e.z * e.x);
    }
};

struct BuildNode {
    Aabb box;
    int32_t left = -1, right = -1;  // build-node indices; -1 for a leaf
    uint32_t first = 0, count = 0;
};

// Past this depth, splits are object medians: they halve the range, so the tree can never outgrow
// the traversal stack (kMaxTraversalStack) however adversarial the geometry.
constexpr int kMedianSplitDepth = kMaxTraversalStack - 28;
constexpr uint32_t kParallelTaskSize = 16 * 1024;
constexpr uint32_t kParallelBinningSize = 128 * 1024;

class Builder {
public:
    Builder(const std::vector<TriVerts>& tris, const BvhBuildOptions& opt) : opt_(opt) {
        size_t n = tris.size();
        boxes_.resize(n);
        centroids_.resize(n);
        order_.resize(n);
        parallel_chunks(n, 4096, [&](unsigned, size_t b, size_t e) {
            for (size_t i = b; i < e; ++i) {
                Aabb box;
                box.grow(tris[i].v0);
                box.grow(tris[i].v1);
                box.grow(tris[i].v2);
                boxes_[i] = box;
                centroids_[i] = (box.lo + box.hi) * 0.5f;
                order_[i] = static_cast<uint32_t>(i);
            }
        });
        nodes_.resize(std::max<size_t>(1, 2 * n));
        max_tasks_ = static_cast<int>(worker_count()) * 2;
    }

    BvhBuildResult run() {
        uint32_t n = static_cast<uint32_t>(order_.size());
        node_count_ = 1;
        nodes_[0].first = 0;
        nodes_[0].count = n;
        nodes_[0].box = range_bounds(0, n);
        build(0, 0);
        return flatten();
    }

private:
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
        int b = static_cast<int>(static_cast<float>(opt_.bins) * ((c - lo) / extent));
        return std::clamp(b, 0, opt_.bins - 1);
    }

    void make_children(int32_t node, uint32_t mid, int depth, bool allow_task) {
        BuildNode& nd = nodes_[node];
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
        BuildNode& nd = nodes_[node];
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
        auto it = std::partition(order_.begin() + begin, order_.begin() + end, [&](uint32_t p) {
            return bin_of(centroids_[p][best_axis], lo, hi) < best_plane;
        });
        uint32_t mid = static_cast<uint32_t>(it - order_.begin());
        if (mid == begin || mid == end) mid = begin + n / 2;  // cannot happen with non-empty sides; be safe
        make_children(node, mid, depth, true);
    }

    // Stored boxes are padded by a few ulps: a ray with a zero direction component whose origin lies
    // exactly on a slab boundary would otherwise get an empty slab interval (0 * big) and skip a box
    // whose triangle it touches. An empty box stays empty.
    static float pad_down(float v) { return v - (std::fabs(v) * 0x1p-21f + 1e-30f); }
    static float pad_up(float v) { return v + (std::fabs(v) * 0x1p-21f + 1e-30f); }
    static void set_child(const Aabb& box, float* x0, float* x1, float* y0, float* y1, float* z0, float* z1) {
        if (box.empty()) {
            *x0 = box.lo.x; *x1 = box.hi.x;
            *y0 = box.lo.y; *y1 = box.hi.y;
            *z0 = box.lo.z; *z1 = box.hi.z;
            return;
        }
        *x0 = pad_down(box.lo.x); *x1 = pad_up(box.hi.x);
        *y0 = pad_down(box.lo.y); *y1 = pad_up(box.hi.y);
        *z0 = pad_down(box.lo.z); *z1 = pad_up(box.hi.z);
    }

    BvhBuildResult flatten() {
        BvhBuildResult r;
        r.order = order_;
        r.depth = max_depth_.load();
        const BuildNode& root = nodes_[0];
        if (root.left < 0) {  // the whole scene is one leaf
            BvhNode n{};
            set_child(root.box, &n.lmin_x, &n.lmax_x, &n.lmin_y, &n.lmax_y, &n.lmin_z, &n.lmax_z);
            set_child(Aabb{}, &n.rmin_x, &n.rmax_x, &n.rmin_y, &n.rmax_y, &n.rmin_z, &n.rmax_z);
            n.left = ~static_cast<int32_t>(root.first);
            n.left_count = static_cast<int32_t>(root.count);
            n.right = ~0;
            n.right_count = 0;
            r.nodes.push_back(n);
            r.leaves = 1;
            return r;
        }
        // Depth-first order with the two children of a node in adjacent slots, so a subtree stays
        // together in memory.
        r.nodes.reserve(node_count_.load() / 2 + 1);
        std::vector<std::pair<int32_t, int32_t>> todo;  // (build node, output slot)
        r.nodes.emplace_back();
        todo.push_back({0, 0});
        while (!todo.empty()) {
            auto [bi, slot] = todo.back();
            todo.pop_back();
            const BuildNode& b = nodes_[bi];
            const BuildNode& l = nodes_[b.left];
            const BuildNode& rr = nodes_[b.right];
            BvhNode n{};
            set_child(l.box, &n.lmin_x, &n.lmax_x, &n.lmin_y, &n.lmax_y, &n.lmin_z, &n.lmax_z);
            set_child(rr.box, &n.rmin_x, &n.rmax_x, &n.rmin_y, &n.rmax_y, &n.rmin_z, &n.rmax_z);
            const BuildNode* kids[2] = {&l, &rr};
            int32_t refs[2], counts[2];
            int32_t pending[2] = {-1, -1};
            for (int c = 0; c < 2; ++c) {
                if (kids[c]->left < 0) {
                    refs[c] = ~static_cast<int32_t>(kids[c]->first);
                    counts[c] = static_cast<int32_t>(kids[c]->count);
                    ++r.leaves;
                } else {
                    refs[c] = static_cast<int32_t>(r.nodes.size());
                    counts[c] = 0;
                    r.nodes.emplace_back();
                    pending[c] = c == 0 ? b.left : b.right;
                }
            }
            n.left = refs[0];
            n.right = refs[1];
            n.left_count = counts[0];
            n.right_count = counts[1];
            r.nodes[slot] = n;
            if (pending[1] >= 0) todo.push_back({pending[1], refs[1]});
            if (pending[0] >= 0) todo.push_back({pending[0], refs[0]});
        }
        return r;
    }

    const BvhBuildOptions& opt_;
    std::vector<Aabb> boxes_;
    std::vector<Vec3> centroids_;
    std::vector<uint32_t> order_;
    std::vector<BuildNode> nodes_;
    std::atomic<int32_t> node_count_{0};
    std::atomic<int> active_tasks_{0};
    std::atomic<int> max_depth_{0};
    int max_tasks_ = 2;
};

}  // namespace

BvhBuildResult build_bvh(const std::vector<TriVerts>& tris, const BvhBuildOptions& options) {
    if (tris.empty()) throw Error("cannot build a BVH over zero triangles");
    if (tris.size() >= static_cast<size_t>(kMaxTriangles))
        throw Error("too many triangles: " + std::to_string(tris.size()) + " (the BVH addresses at most " +
                    std::to_string(kMaxTriangles) + ")");
    if (options.max_leaf_size < 1 || options.max_leaf_size > kMaxLeafSize) throw Error("BVH leaf size out of range");
    Builder builder(tris, options);
    return builder.run();
}

}  // namespace pkrt
