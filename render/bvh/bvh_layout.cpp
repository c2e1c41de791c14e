#include "render/bvh/bvh_layout.h"

#include <cmath>
#include <utility>

#include "render/bvh/bvh_cwbvh.h"
#include "render/error.h"

namespace pkrt {

namespace {

// Stored boxes are padded by a few ulps: a ray with a zero direction component whose origin lies
// exactly on a slab boundary would otherwise get an empty slab interval (0 * big) and skip a box
// whose triangle it touches. An empty box stays empty.
float pad_down(float v) { return v - (std::fabs(v) * 0x1p-21f + 1e-30f); }
float pad_up(float v) { return v + (std::fabs(v) * 0x1p-21f + 1e-30f); }
void set_child(const Aabb& box, float* x0, float* x1, float* y0, float* y1, float* z0, float* z1) {
    if (box.empty()) {
        *x0 = box.lo.x;
        *x1 = box.hi.x;
        *y0 = box.lo.y;
        *y1 = box.hi.y;
        *z0 = box.lo.z;
        *z1 = box.hi.z;
        return;
    }
    *x0 = pad_down(box.lo.x);
    *x1 = pad_up(box.hi.x);
    *y0 = pad_down(box.lo.y);
    *y1 = pad_up(box.hi.y);
    *z0 = pad_down(box.lo.z);
    *z1 = pad_up(box.hi.z);
}

// A leaf's count shares a 32-bit stack entry with its first triangle (kernels/traversal/bvh.h).
void check_bvh2_leaf(const BinaryBvhNode& leaf) {
    if (leaf.count > static_cast<uint32_t>(kMaxLeafSize) ||
        leaf.first + leaf.count > static_cast<uint32_t>(kMaxTriangles))
        throw Error("bvh2 cannot hold a leaf of " + std::to_string(leaf.count) + " triangles at " +
                    std::to_string(leaf.first));
}

std::vector<BvhNode> to_bvh2(const BinaryBvh& bvh) {
    std::vector<BvhNode> out;
    const BinaryBvhNode& root = bvh.nodes[0];
    // bvh2's root must be an inner node (traversal starts by testing its two children), so a
    // one-leaf tree becomes a root with the leaf on the left and a leaf of no triangles on the right.
    if (root.is_leaf()) {
        check_bvh2_leaf(root);
        BvhNode n{};
        set_child(root.box, &n.lmin_x, &n.lmax_x, &n.lmin_y, &n.lmax_y, &n.lmin_z, &n.lmax_z);
        set_child(Aabb{}, &n.rmin_x, &n.rmax_x, &n.rmin_y, &n.rmax_y, &n.rmin_z, &n.rmax_z);
        n.left = bvh2_leaf_ref(static_cast<int32_t>(root.first), static_cast<int32_t>(root.count));
        n.right = bvh2_leaf_ref(0, 0);
        out.push_back(n);
        return out;
    }
    // Depth-first order with the two children of a node in adjacent slots, so a subtree stays
    // together in memory. Leaves are not nodes here: the parent holds their triangle run.
    out.reserve(bvh.nodes.size() / 2 + 1);
    std::vector<std::pair<int32_t, int32_t>> todo;  // (binary node, output slot)
    out.emplace_back();
    todo.push_back({0, 0});
    while (!todo.empty()) {
        auto [bi, slot] = todo.back();
        todo.pop_back();
        const BinaryBvhNode& b = bvh.nodes[bi];
        const BinaryBvhNode* kids[2] = {&bvh.nodes[b.left], &bvh.nodes[b.right]};
        BvhNode n{};
        set_child(kids[0]->box, &n.lmin_x, &n.lmax_x, &n.lmin_y, &n.lmax_y, &n.lmin_z, &n.lmax_z);
        set_child(kids[1]->box, &n.rmin_x, &n.rmax_x, &n.rmin_y, &n.rmax_y, &n.rmin_z, &n.rmax_z);
        int32_t refs[2];
        int32_t pending[2] = {-1, -1};
        for (int c = 0; c < 2; ++c) {
            if (kids[c]->is_leaf()) {
                check_bvh2_leaf(*kids[c]);
                refs[c] = bvh2_leaf_ref(static_cast<int32_t>(kids[c]->first), static_cast<int32_t>(kids[c]->count));
            } else {
                refs[c] = static_cast<int32_t>(out.size());
                out.emplace_back();
                pending[c] = c == 0 ? b.left : b.right;
            }
        }
        n.left = refs[0];
        n.right = refs[1];
        out[slot] = n;
        // Left pushed last so it is expanded first: the left subtree precedes the right one.
        if (pending[1] >= 0) todo.push_back({pending[1], refs[1]});
        if (pending[0] >= 0) todo.push_back({pending[0], refs[0]});
    }
    return out;
}

}  // namespace

std::string bvh_layout_name(BvhLayout layout) {
    switch (layout) {
        case BvhLayout::kBvh2: return "bvh2";
        case BvhLayout::kCwbvh: return "cwbvh";
    }
    throw Error("unknown BVH layout " + std::to_string(static_cast<int>(layout)));
}

BvhLayout parse_bvh_layout(const std::string& name, const std::string& what) {
    std::string valid;
    for (BvhLayout l : all_bvh_layouts()) {
        if (bvh_layout_name(l) == name) return l;
        valid += (valid.empty() ? "" : ", ") + bvh_layout_name(l);
    }
    throw Error((what.empty() ? "" : what + " " + name + ": ") + "unknown BVH layout '" + name + "' (valid: " + valid +
                ")");
}

const std::vector<BvhLayout>& all_bvh_layouts() {
    static const std::vector<BvhLayout> layouts = {BvhLayout::kBvh2, BvhLayout::kCwbvh};
    return layouts;
}

size_t SceneBvh::node_count() const {
    switch (layout) {
        case BvhLayout::kBvh2: return bvh2_nodes.size();
        case BvhLayout::kCwbvh: return cwbvh_nodes.size();
    }
    return 0;
}

size_t SceneBvh::memory_bytes() const {
    switch (layout) {
        case BvhLayout::kBvh2: return bvh2_nodes.size() * sizeof(BvhNode);
        case BvhLayout::kCwbvh: return cwbvh_nodes.size() * sizeof(CwbvhNode);
    }
    return 0;
}

BvhBuildOptions bvh_build_options(BvhLayout layout) {
    BvhBuildOptions opt;
    switch (layout) {
        case BvhLayout::kBvh2:
            // A node visit (two box tests) costs the traversal about what one watertight triangle test
            // does, yet a cost below 1 gave faster frames on the atria (BENCHMARKS.md, session 6): deeper
            // trees, smaller leaves.
            opt.traversal_cost = 0.7f;
            return opt;
        case BvhLayout::kCwbvh:
            // A binary tree down to single triangles, as Ylitie et al. build theirs: the collapse alone
            // decides which subtrees of up to three become leaves. On Crytek Sponza (spatial splits) a
            // ray tests 6.7 triangles, where leaves the SAH kept whole left it 9.4 (BENCHMARKS.md,
            // session 27).
            opt.max_leaf_size = 1;
            return opt;
    }
    throw Error("unknown BVH layout " + std::to_string(static_cast<int>(layout)));
}

SceneBvh convert_bvh(const BinaryBvh& bvh, BvhLayout layout, std::vector<uint32_t>& order) {
    if (bvh.nodes.empty()) throw Error("cannot convert an empty BVH");
    SceneBvh out;
    out.layout = layout;
    out.depth = bvh.depth;
    out.leaves = bvh.leaves;
    switch (layout) {
        case BvhLayout::kBvh2:
            out.bvh2_nodes = to_bvh2(bvh);
            order = bvh.order;
            return out;
        case BvhLayout::kCwbvh: {
            CwbvhResult r = convert_to_cwbvh(bvh);
            out.cwbvh_nodes = std::move(r.nodes);
            order = std::move(r.order);
            return out;
        }
    }
    throw Error("unknown BVH layout " + std::to_string(static_cast<int>(layout)));
}

BvhView bvh_view(const SceneBvh& bvh, const std::vector<TriVerts>& tris) {
    BvhView v{};
    v.tris = tris.data();
    v.num_nodes = static_cast<int32_t>(bvh.node_count());
    switch (bvh.layout) {
        case BvhLayout::kBvh2: v.nodes = bvh.bvh2_nodes.data(); return v;
        case BvhLayout::kCwbvh:
            v.wide_nodes = bvh.cwbvh_nodes.data();
            v.layout = BvhViewLayout::kCwbvh;
            return v;
    }
    throw Error("unknown BVH layout " + std::to_string(static_cast<int>(bvh.layout)));
}

Hit intersect_closest(const SceneBvh& bvh, const std::vector<TriVerts>& tris, const Ray& ray, float tmax) {
    return intersect_closest(bvh_view(bvh, tris), ray, tmax);
}

bool occluded(const SceneBvh& bvh, const std::vector<TriVerts>& tris, const Ray& ray, float tmax) {
    return occluded(bvh_view(bvh, tris), ray, tmax);
}

}  // namespace pkrt
