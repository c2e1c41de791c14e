#include "render/bvh/bvh_cwbvh.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "render/error.h"

namespace pkrt {

namespace {

constexpr int kWidth = 8;

// The same ulp padding as bvh2's boxes (bvh_layout.cpp), for the same reason: a ray with a zero
// direction component lying exactly in a box face, or a flat box, must not see an empty slab.
float pad_down(float v) { return v - (std::fabs(v) * 0x1p-21f + 1e-30f); }
float pad_up(float v) { return v + (std::fabs(v) * 0x1p-21f + 1e-30f); }
Aabb padded(const Aabb& b) {
    return Aabb{{pad_down(b.lo.x), pad_down(b.lo.y), pad_down(b.lo.z)},
                {pad_up(b.hi.x), pad_up(b.hi.y), pad_up(b.hi.z)}};
}

// The collapse's dynamic programme (paper, section 3.1). cost(n, i) is the SAH cost of turning the
// binary subtree n into a forest of at most i roots (i = 1: one leaf or one wide node); each entry
// remembers how it was reached so the forest can be read back.
struct Choice {
    float cost;
    int8_t split;  // i >= 2: roots given to the left child (1..i-1); 0: fewer roots (i - 1) are cheaper
    bool leaf;     // i == 1: the subtree becomes a leaf rather than a wide node
};

class Collapser {
public:
    Collapser(const BinaryBvh& bvh, const CwbvhCostModel& cost)
        : bvh_(bvh), cost_(cost), table_(bvh.nodes.size() * kWidth), root_split_(bvh.nodes.size(), 0) {}

    CwbvhResult run() {
        solve();
        emit();
        return std::move(out_);
    }

private:
    Choice& at(int32_t n, int i) { return table_[static_cast<size_t>(n) * kWidth + (i - 1)]; }

    // Children before parents: the reverse of a preorder walk.
    void solve() {
        std::vector<int32_t> pre;
        pre.reserve(bvh_.nodes.size());
        std::vector<int32_t> todo{0};
        while (!todo.empty()) {
            int32_t n = todo.back();
            todo.pop_back();
            pre.push_back(n);
            const BinaryBvhNode& b = bvh_.nodes[n];
            if (!b.is_leaf()) {
                todo.push_back(b.left);
                todo.push_back(b.right);
            }
        }
        for (auto it = pre.rbegin(); it != pre.rend(); ++it) solve_node(*it);
    }

    void solve_node(int32_t n) {
        const BinaryBvhNode& b = bvh_.nodes[n];
        float area = b.box.area();
        float leaf = b.count <= static_cast<uint32_t>(kCwbvhMaxLeafSize)
                         ? area * cost_.triangle_cost * static_cast<float>(b.count)
                         : kInfinity;
        if (b.is_leaf()) {
            if (b.count > static_cast<uint32_t>(kCwbvhMaxLeafSize))
                throw Error("cwbvh cannot hold a leaf of " + std::to_string(b.count) + " triangles (at most " +
                            std::to_string(kCwbvhMaxLeafSize) + ")");
            for (int i = 1; i <= kWidth; ++i) at(n, i) = Choice{leaf, 0, true};
            return;
        }
        // distribute[j]: the best split of j roots between the two children.
        std::array<Choice, kWidth + 1> distribute{};
        for (int j = 2; j <= kWidth; ++j) {
            distribute[j] = Choice{kInfinity, 0, false};
            for (int k = 1; k < j; ++k) {
                float c = at(b.left, k).cost + at(b.right, j - k).cost;
                if (c < distribute[j].cost) distribute[j] = Choice{c, static_cast<int8_t>(k), false};
            }
        }
        float internal = distribute[kWidth].cost + area * cost_.node_cost;
        at(n, 1) = leaf <= internal ? Choice{leaf, 0, true} : Choice{internal, 0, false};
        // The wide node made at n takes its children from distribute[kWidth]: keep its split apart.
        root_split_[n] = distribute[kWidth].split;
        for (int i = 2; i <= kWidth; ++i) {
            const Choice& fewer = at(n, i - 1);
            at(n, i) = distribute[i].cost < fewer.cost ? distribute[i] : Choice{fewer.cost, 0, false};
        }
    }

    // A wide node's children (binary node indices), without a heap allocation per node.
    struct Kids {
        std::array<int32_t, kWidth> node;
        int count = 0;
    };

    // The roots of the forest (n, i): binary subtrees that become one child each.
    void forest(int32_t n, int i, Kids& roots) {
        const BinaryBvhNode& b = bvh_.nodes[n];
        if (i == 1 || b.is_leaf()) {
            roots.node[roots.count++] = n;
            return;
        }
        const Choice& c = at(n, i);
        if (c.split == 0) return forest(n, i - 1, roots);
        forest(b.left, c.split, roots);
        forest(b.right, i - c.split, roots);
    }

    // The children of the wide node made from binary node n (the root of a subtree of at most three
    // triangles included: its one child is itself, as a leaf).
    Kids children_of(int32_t n) {
        Kids roots;
        const BinaryBvhNode& b = bvh_.nodes[n];
        if (b.is_leaf()) {
            roots.node[roots.count++] = n;
            return roots;
        }
        forest(b.left, root_split_[n], roots);
        forest(b.right, kWidth - root_split_[n], roots);
        return roots;
    }

    bool is_leaf_child(int32_t n) { return bvh_.nodes[n].is_leaf() || at(n, 1).leaf; }

    // Slot per child: slot s is visited first by rays of octant s, so it should hold the child lying
    // furthest against that octant's direction. Greedy over all (child, slot) pairs, cheapest first
    // (the paper uses an auction; greedy is within noise of it for eight slots).
    std::array<int32_t, kWidth> assign_slots(const Kids& kids, const Aabb& parent) {
        std::array<int32_t, kWidth> slot_child;
        slot_child.fill(-1);
        Vec3 pc = (parent.lo + parent.hi) * 0.5f;
        struct Pair {
            float cost;
            int child, slot;
        };
        std::array<Pair, kWidth * kWidth> pairs;
        int count = 0;
        for (int c = 0; c < kids.count; ++c) {
            const Aabb& box = bvh_.nodes[kids.node[c]].box;
            Vec3 off = (box.lo + box.hi) * 0.5f - pc;
            for (int s = 0; s < kWidth; ++s) {
                Vec3 dir{(s & 4) ? -1.0f : 1.0f, (s & 2) ? -1.0f : 1.0f, (s & 1) ? -1.0f : 1.0f};
                pairs[count++] = {dot(off, dir), c, s};
            }
        }
        // Ties broken by (child, slot), so the assignment does not depend on the sort's stability.
        std::sort(pairs.begin(), pairs.begin() + count, [](const Pair& a, const Pair& b) {
            return a.cost != b.cost ? a.cost < b.cost : (a.child != b.child ? a.child < b.child : a.slot < b.slot);
        });
        std::array<bool, kWidth> placed{};
        for (int i = 0; i < count; ++i) {
            const Pair& p = pairs[i];
            if (placed[p.child] || slot_child[p.slot] >= 0) continue;
            placed[p.child] = true;
            slot_child[p.slot] = kids.node[p.child];
        }
        return slot_child;
    }

    // One wide node from binary node n into out_.nodes[index]; returns the inner children to emit,
    // with the indices allocated for them (contiguous, in slot order).
    void make_node(int32_t n, uint32_t index, std::vector<std::pair<int32_t, uint32_t>>& pending) {
        Kids kids = children_of(n);
        Aabb node_box;
        std::array<Aabb, kWidth> boxes;
        for (int c = 0; c < kids.count; ++c) node_box.grow(padded(bvh_.nodes[kids.node[c]].box));
        std::array<int32_t, kWidth> slots = assign_slots(kids, bvh_.nodes[n].box);

        CwbvhNode nd{};
        nd.origin_x = node_box.lo.x;
        nd.origin_y = node_box.lo.y;
        nd.origin_z = node_box.lo.z;
        int exps[3];
        for (int a = 0; a < 3; ++a) exps[a] = grid_exponent(static_cast<double>(node_box.hi[a]) - node_box.lo[a]);
        nd.exp_x = static_cast<int8_t>(exps[0]);
        nd.exp_y = static_cast<int8_t>(exps[1]);
        nd.exp_z = static_cast<int8_t>(exps[2]);
        nd.child_base = static_cast<uint32_t>(out_.nodes.size());
        nd.tri_base = static_cast<uint32_t>(out_.order.size());
        uint32_t next_child = nd.child_base;
        for (int s = 0; s < kWidth; ++s) {
            int32_t k = slots[s];
            if (k < 0) continue;  // empty: meta 0, box all zero (never tested as a hit)
            boxes[s] = padded(bvh_.nodes[k].box);
            uint8_t* lo[3] = {nd.lo_x, nd.lo_y, nd.lo_z};
            uint8_t* hi[3] = {nd.hi_x, nd.hi_y, nd.hi_z};
            for (int a = 0; a < 3; ++a)
                quantise(node_box.lo[a], exps[a], boxes[s].lo[a], boxes[s].hi[a], &lo[a][s], &hi[a][s]);
            const BinaryBvhNode& kb = bvh_.nodes[k];
            if (is_leaf_child(k)) {
                uint32_t offset = static_cast<uint32_t>(out_.order.size()) - nd.tri_base;
                nd.meta[s] = static_cast<uint8_t>((((1u << kb.count) - 1u) << 5) | offset);
                for (uint32_t t = kb.first; t < kb.first + kb.count; ++t) out_.order.push_back(bvh_.order[t]);
            } else {
                nd.imask |= static_cast<uint8_t>(1u << s);
                nd.meta[s] = static_cast<uint8_t>((1u << 5) | (24u + s));
                pending.push_back({k, next_child++});
            }
        }
        out_.nodes.resize(next_child);
        out_.nodes[index] = nd;
    }

    // Smallest e with 255 * 2^e >= extent (so the grid spans the node), kept a normal float's exponent.
    static int grid_exponent(double extent) {
        int e = extent > 0.0 ? static_cast<int>(std::ceil(std::log2(extent / 255.0))) : -126;
        e = std::clamp(e, -126, 127);
        while (e < 127 && 255.0 * std::ldexp(1.0, e) < extent) ++e;
        while (e > -126 && 255.0 * std::ldexp(1.0, e - 1) >= extent) --e;
        return e;
    }

    // lo rounded down and hi rounded up on the grid, checked in double, so the decoded box holds [lo, hi].
    static void quantise(float origin, int e, float lo, float hi, uint8_t* qlo, uint8_t* qhi) {
        double s = std::ldexp(1.0, e), o = origin;
        double ql = std::clamp(std::floor((lo - o) / s), 0.0, 255.0);
        double qh = std::clamp(std::ceil((hi - o) / s), 0.0, 255.0);
        while (ql > 0.0 && o + ql * s > lo) ql -= 1.0;
        while (qh < 255.0 && o + qh * s < hi) qh += 1.0;
        *qlo = static_cast<uint8_t>(ql);
        *qhi = static_cast<uint8_t>(qh);
    }

    // Depth first, so a subtree's nodes and triangles stay together in memory.
    void emit() {
        out_.order.reserve(bvh_.order.size());
        out_.nodes.reserve(bvh_.nodes.size() / 4 + 1);
        out_.nodes.resize(1);
        std::vector<std::pair<int32_t, uint32_t>> todo{{0, 0}}, kids;
        std::vector<int> node_depth(1, 1);
        while (!todo.empty()) {
            auto [n, index] = todo.back();
            todo.pop_back();
            int d = node_depth[index];
            out_.depth = std::max(out_.depth, d);
            kids.clear();
            make_node(n, index, kids);
            node_depth.resize(out_.nodes.size(), d + 1);
            for (auto it = kids.rbegin(); it != kids.rend(); ++it) todo.push_back(*it);
        }
        if (out_.order.size() != bvh_.order.size()) throw Error("cwbvh conversion lost triangles");
        // Each level of a traversal's path may leave a node group and a postponed triangle group on its stack.
        if (2 * out_.depth > kMaxTraversalStack) throw Error("cwbvh deeper than the traversal stack");
    }

    const BinaryBvh& bvh_;
    CwbvhCostModel cost_;
    std::vector<Choice> table_;
    std::vector<int8_t> root_split_;
    CwbvhResult out_;
};

}  // namespace

CwbvhResult convert_to_cwbvh(const BinaryBvh& bvh, const CwbvhCostModel& cost) {
    if (bvh.nodes.empty()) throw Error("cannot convert an empty BVH");
    return Collapser(bvh, cost).run();
}

}  // namespace pkrt
