// coherence_bench: what regrouping rays could do for the GPU's traversal (issue 30), estimated on the CPU.
// It runs one sample of every pixel's path with the per-ray code (kernels/path.h) and records, for each
// extension ray, the passes of its bvh2 traversal (kernels/traversal/bvh.h: a node, or a leaf of k
// triangles). Rays of one bounce depth are then dealt to warps of 32 in some order, and each warp runs
// the if-if loop as the GPU does: pass t of the warp issues the node branch if any lane visits a node,
// and the leaf branch (its triangle loop as long as the longest leaf) if any lane is at a leaf.
//   lanes active  = useful lane work / (32 x issued work), with a node costing 1 and a leaf
//                   0.25 + 0.75 per triangle (a model; the GPU measured 10-11 of 32 in BENCHMARKS.md)
//   passes        = mean passes of a lane / the warp's longest lane's, the loop's divergence alone
// The orders: as generated (neighbouring pixels, as the persistent kernel's lanes hold them), and sorted
// within windows of W rays by a key, as a queue that bins what is in flight could deal them:
//   octant     the direction's octant
//   oct+org    octant, then the origin's cell of a 2^k grid over the scene (Morton order)
//   oct+dir    octant, then a finer direction cell (k bits per axis)
//   org+dir    Morton order of origin and direction together (Garanzha & Loop 2010's key)
// Then shading's divergence: how many materials and BSDF types a warp's hits hold, as generated, binned
// for traversal, and sorted by material (as Cycles sorts its shading).
// Not a ctest: run it by hand in a Release build, e.g.
//   build/tests/coherence_bench scenes/bench/crytek-sponza.json 480 270 --depth 4
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "kernels/path_stages.h"
#include "render/backend.h"
#include "render/bvh/bvh_layout.h"
#include "render/error.h"
#include "render/scene/scene.h"

using namespace pkrt;

namespace {

// A traversal's passes: 0 a node, k > 0 a leaf of k triangles (an empty leaf counts as 1).
struct RecordSteps {
    std::vector<uint8_t>* passes;
    void node() const { passes->push_back(0); }
    void leaf(int32_t triangles) const { passes->push_back(static_cast<uint8_t>(std::max(triangles, 1))); }
};

struct TracedRay {
    Ray ray;
    std::vector<uint8_t> passes;
    int32_t material = -1, type = -1;  // of the hit (-1: it escaped); what shading it next branches on
};

constexpr double kNode = 1.0, kLeaf = 0.25, kTriangle = 0.75;

struct Efficiency {
    double lanes = 0.0, passes = 0.0;
};

// The rays in `order`, 32 to a warp.
Efficiency simulate(const std::vector<TracedRay>& rays, const std::vector<uint32_t>& order) {
    double useful = 0.0, issued = 0.0, lane_passes = 0.0, warp_passes = 0.0;
    for (size_t w = 0; w < order.size(); w += 32) {
        size_t end = std::min(order.size(), w + 32);
        size_t longest = 0;
        for (size_t i = w; i < end; ++i) longest = std::max(longest, rays[order[i]].passes.size());
        for (size_t t = 0; t < longest; ++t) {
            bool any_node = false;
            int max_tris = 0;
            for (size_t i = w; i < end; ++i) {
                const auto& p = rays[order[i]].passes;
                if (t >= p.size()) continue;
                if (p[t] == 0) {
                    any_node = true;
                    useful += kNode;
                } else {
                    max_tris = std::max(max_tris, static_cast<int>(p[t]));
                    useful += kLeaf + kTriangle * p[t];
                }
            }
            issued += 32.0 * ((any_node ? kNode : 0.0) + (max_tris > 0 ? kLeaf + kTriangle * max_tris : 0.0));
        }
        for (size_t i = w; i < end; ++i) lane_passes += static_cast<double>(rays[order[i]].passes.size());
        warp_passes += 32.0 * static_cast<double>(longest);
    }
    return Efficiency{32.0 * useful / issued, 32.0 * lane_passes / warp_passes};
}

// Shading's divergence in the same warps: the mean count of distinct materials, and of distinct BSDF
// types (the branches of kernels/shading/bsdf.h), among a warp's hits.
std::pair<double, double> shading_spread(const std::vector<TracedRay>& rays, const std::vector<uint32_t>& order) {
    double materials = 0.0, types = 0.0;
    size_t warps = 0;
    for (size_t w = 0; w < order.size(); w += 32, ++warps) {
        std::vector<int32_t> m, t;
        for (size_t i = w; i < std::min(order.size(), w + 32); ++i) {
            const TracedRay& r = rays[order[i]];
            if (r.material < 0) continue;
            m.push_back(r.material);
            t.push_back(r.type);
        }
        for (auto* v : {&m, &t}) {
            std::sort(v->begin(), v->end());
            v->erase(std::unique(v->begin(), v->end()), v->end());
        }
        materials += static_cast<double>(m.size());
        types += static_cast<double>(t.size());
    }
    return {materials / static_cast<double>(warps), types / static_cast<double>(warps)};
}

// Spreads the low 10 bits of v to every third bit.
uint64_t spread3(uint32_t v) {
    uint64_t x = v & 0x3ff;
    x = (x | x << 16) & 0x30000ff;
    x = (x | x << 8) & 0x300f00f;
    x = (x | x << 4) & 0x30c30c3;
    x = (x | x << 2) & 0x9249249;
    return x;
}
uint64_t morton(uint32_t x, uint32_t y, uint32_t z) { return spread3(x) | spread3(y) << 1 | spread3(z) << 2; }

uint32_t cell(float v, float lo, float hi, int bits) {
    float f = (v - lo) / std::max(hi - lo, 1e-20f);
    int n = 1 << bits;
    return static_cast<uint32_t>(std::clamp(static_cast<int>(f * n), 0, n - 1));
}

uint32_t octant(Vec3 d) { return (d.x < 0.0f ? 1u : 0u) | (d.y < 0.0f ? 2u : 0u) | (d.z < 0.0f ? 4u : 0u); }

// The rays as their paths were generated.
std::vector<uint32_t> as_generated(size_t n) {
    std::vector<uint32_t> order(n);
    for (size_t i = 0; i < n; ++i) order[i] = static_cast<uint32_t>(i);
    return order;
}

// Generation order, sorted by `key` within windows of `window` rays (stable: ties keep their order).
using Key = std::function<uint64_t(const TracedRay&)>;

std::vector<uint32_t> binned(const std::vector<TracedRay>& rays, size_t window, const Key& key) {
    std::vector<uint32_t> order = as_generated(rays.size());
    std::vector<uint64_t> keys(rays.size());
    for (size_t i = 0; i < rays.size(); ++i) keys[i] = key(rays[i]);
    for (size_t b = 0; b < order.size(); b += window)
        std::stable_sort(order.begin() + b, order.begin() + std::min(order.size(), b + window),
                         [&](uint32_t a, uint32_t c) { return keys[a] < keys[c]; });
    return order;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 4) {
        std::fprintf(stderr,
                     "usage: coherence_bench SCENE WIDTH HEIGHT [--depth D] [--bits K] [--bvh bvh2|cwbvh] [--sbvh]\n");
        return 2;
    }
    try {
        const int w = std::atoi(argv[2]), h = std::atoi(argv[3]);
        int max_depth = 4, bits = 4;
        BvhLayout layout = BvhLayout::kBvh2;
        bool sbvh = false;  // spatial splits, as pkrt render builds by default
        for (int i = 4; i < argc; ++i) {
            auto next = [&] { return i + 1 < argc ? argv[++i] : (throw Error("a flag without its value"), ""); };
            if (!std::strcmp(argv[i], "--depth")) max_depth = std::atoi(next());
            else if (!std::strcmp(argv[i], "--bits")) bits = std::atoi(next());
            else if (!std::strcmp(argv[i], "--bvh")) layout = parse_bvh_layout(next());
            else if (!std::strcmp(argv[i], "--sbvh")) sbvh = true;
            else throw Error(std::string("unknown flag ") + argv[i]);
        }
        if (w < 1 || h < 1 || max_depth < 1 || max_depth > 16 || bits < 1 || bits > 10)
            throw Error("WIDTH, HEIGHT >= 1, --depth 1..16, --bits 1..10");
        Scene scene = load_scene(argv[1]);
        const size_t source_triangles = scene.tris.size();
        prepare_scene(scene, layout, 0.0f, sbvh);
        std::printf("%zu triangles, %zu references in the BVH\n", source_triangles, scene.tris.size());
        const SceneView view = view_scene(scene);
        RenderSettings rs;
        rs.width = w;
        rs.height = h;
        rs.max_depth = max_depth;
        rs.spp = 1;
        const FrameRecord frame = make_frame_record(scene.camera, w, h, rs, 0, 1, 0);
        Vec3 lo = splat(kInfinity), hi = splat(-kInfinity);
        for (const auto& t : scene.tris) {
            lo = vmin(lo, vmin(t.v0, vmin(t.v1, t.v2)));
            hi = vmax(hi, vmax(t.v0, vmax(t.v1, t.v2)));
        }

        // Every path's extension rays by depth, in the order of their path numbers.
        std::vector<std::vector<TracedRay>> by_depth(max_depth + 1);
        const SurfacesOf<true>::Type surfaces = SurfacesOf<true>::of(view);
        for (uint32_t i = 0; i < frame.pixels(); ++i) {
            PathState path = generate_path(frame, path_index(frame, i));
            for (;;) {
                TracedRay t{Ray{path.origin, path.dir}, {}};
                Hit hit = layout == BvhLayout::kCwbvh
                              ? traverse_cwbvh<false>(view.bvh.wide_nodes, view.bvh.tris, view.bvh.num_nodes, t.ray,
                                                      0.0f, kInfinity, surfaces, RecordSteps{&t.passes})
                              : traverse_bvh<false>(view.bvh, t.ray, 0.0f, kInfinity, surfaces, RecordSteps{&t.passes});
                if (hit.prim >= 0) {
                    t.material = scene.shading[hit.prim].material;
                    t.type = static_cast<int32_t>(scene.materials[t.material].type);
                }
                by_depth[path.depth].push_back(std::move(t));
                ShadeResult out;
                shade_path(view, frame, path, hit, out);
                if (!out.continues) break;
            }
        }

        const Key oct = [](const TracedRay& t) -> uint64_t { return octant(t.ray.d); };
        const Key oct_org = [&](const TracedRay& t) -> uint64_t {
            const Ray& r = t.ray;
            return uint64_t{octant(r.d)} << 60 |
                   morton(cell(r.o.x, lo.x, hi.x, bits), cell(r.o.y, lo.y, hi.y, bits), cell(r.o.z, lo.z, hi.z, bits));
        };
        const Key oct_dir = [&](const TracedRay& t) -> uint64_t {
            const Ray& r = t.ray;
            return uint64_t{octant(r.d)} << 60 | morton(cell(r.d.x, -1.0f, 1.0f, bits), cell(r.d.y, -1.0f, 1.0f, bits),
                                                        cell(r.d.z, -1.0f, 1.0f, bits));
        };
        const Key org_dir = [&](const TracedRay& t) -> uint64_t {
            const Ray& r = t.ray;
            uint64_t o =
                morton(cell(r.o.x, lo.x, hi.x, bits), cell(r.o.y, lo.y, hi.y, bits), cell(r.o.z, lo.z, hi.z, bits));
            uint64_t d =
                morton(cell(r.d.x, -1.0f, 1.0f, bits), cell(r.d.y, -1.0f, 1.0f, bits), cell(r.d.z, -1.0f, 1.0f, bits));
            return o << 30 | d;
        };
        std::printf("%s %dx%d, depth %d, %s, grid 2^%d a side; lanes active of 32 (passes alone)\n", argv[1], w, h,
                    max_depth, bvh_layout_name(layout).c_str(), bits);
        double rays = 0.0, nodes = 0.0, leaves = 0.0, triangles = 0.0;
        for (const auto& depth_rays : by_depth)
            for (const auto& r : depth_rays) {
                rays += 1.0;
                for (uint8_t k : r.passes) {
                    nodes += k == 0;
                    leaves += k > 0;
                    triangles += k;
                }
            }
        std::printf("per ray: %.2f node visits, %.2f leaves (cwbvh: a node's triangle group), %.2f triangle tests\n",
                    nodes / rays, leaves / rays, triangles / rays);
        std::printf(
            "depth  rays     passes/ray  as generated  window    octant        oct+org       oct+dir       "
            "org+dir\n");
        for (int d = 0; d <= max_depth; ++d) {
            const auto& rays = by_depth[d];
            if (rays.empty()) continue;
            double passes = 0.0;
            for (const auto& r : rays) passes += static_cast<double>(r.passes.size());
            Efficiency e0 = simulate(rays, as_generated(rays.size()));
            for (size_t window : {size_t{4096}, size_t{65536}, rays.size()}) {
                if (window == 4096)
                    std::printf("%5d  %7zu  %10.1f  %5.2f (%5.2f)", d, rays.size(), passes / rays.size(), e0.lanes,
                                e0.passes);
                else std::printf("%5s  %7s  %10s  %13s", "", "", "", "");
                std::printf("  %7zu", window);
                for (const Key* key : {&oct, &oct_org, &oct_dir, &org_dir}) {
                    Efficiency e = simulate(rays, binned(rays, window, *key));
                    std::printf("  %5.2f (%5.2f)", e.lanes, e.passes);
                }
                std::printf("\n");
            }
        }
        std::printf("\nshading: distinct materials (BSDF types) among a warp's hits, whole depth binned\n");
        std::printf("depth  as generated     oct+org          by material\n");
        const Key material = [](const TracedRay& t) -> uint64_t { return static_cast<uint64_t>(t.material + 1); };
        for (int d = 0; d <= max_depth; ++d) {
            const auto& rays = by_depth[d];
            if (rays.empty()) continue;
            std::printf("%5d", d);
            for (const std::vector<uint32_t>& order :
                 {as_generated(rays.size()), binned(rays, rays.size(), oct_org), binned(rays, rays.size(), material)}) {
                auto [m, t] = shading_spread(rays, order);
                std::printf("  %6.2f (%5.2f)  ", m, t);
            }
            std::printf("\n");
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "coherence_bench: error: %s\n", e.what());
        return 1;
    }
    return 0;
}
