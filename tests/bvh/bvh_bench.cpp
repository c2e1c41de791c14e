// bvh_bench: per layout, the BVH's node count and bytes, its build + conversion time (wall, and the
// CPU time of all threads), and single-threaded CPU closest-hit rays/s for two ray sets over the same scene:
//   random  - origins uniform in the scene's bounds, directions uniform on the sphere (incoherent);
//   diffuse - camera rays' first hits, bounced once in a cosine lobe about the geometric normal,
//             offset as the path tracer does (kernels/path.h): what a path tracer's bounces look like.
// Both layouts trace the very same rays. Rates are in thread CPU time (the machine may be shared).
// Not a ctest: run it by hand in a Release build, e.g.
//   build/tests/bvh_bench ../shared/scenes/stanford-bunny/stanford-bunny.obj
#include <algorithm>
#include <ctime>
#include <cstdio>
#include <string>
#include <vector>

#include "kernels/shading/camera.h"
#include "kernels/path.h"
#include "kernels/shading/rng.h"
#include "kernels/shading/sampling.h"
#include "render/bvh/bvh_build.h"
#include "render/bvh/bvh_layout.h"
#include "render/error.h"
#include "render/scene/scene.h"

using namespace pkrt;

namespace {

// This thread's CPU time: the machine is shared, and wall time would count other processes' turns.
double cpu_seconds(clockid_t clock) {
    timespec ts{};
    clock_gettime(clock, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}
double thread_seconds() { return cpu_seconds(CLOCK_THREAD_CPUTIME_ID); }
// All threads' CPU time (the build runs on every core): the work, whatever else the machine runs.
double process_seconds() { return cpu_seconds(CLOCK_PROCESS_CPUTIME_ID); }

std::vector<Ray> random_rays(const Scene& s, int n) {
    Vec3 lo = splat(kInfinity), hi = splat(-kInfinity);
    for (const auto& t : s.tris) {
        lo = vmin(lo, vmin(t.v0, vmin(t.v1, t.v2)));
        hi = vmax(hi, vmax(t.v0, vmax(t.v1, t.v2)));
    }
    Rng rng = make_rng(77, 0, 0);
    std::vector<Ray> rays;
    for (int i = 0; i < n; ++i) {
        Vec3 o = lo + (hi - lo) * Vec3{rng.next_float(), rng.next_float(), rng.next_float()};
        rays.push_back(Ray{o, sample_uniform_sphere(rng.next_float(), rng.next_float())});
    }
    return rays;
}

std::vector<Ray> diffuse_rays(const Scene& s, int n) {
    CameraView cam = make_camera_view(s.camera, 512, 512);
    Rng rng = make_rng(78, 0, 0);
    std::vector<Ray> rays;
    for (int i = 0; rays.size() < static_cast<size_t>(n) && i < 8 * n; ++i) {
        Ray primary =
            camera_ray(cam, 512, 512, static_cast<int>(rng.next_u32() % 512), static_cast<int>(rng.next_u32() % 512),
                       rng.next_float(), rng.next_float(), 0.5f, 0.5f);  // the scenes' cameras are pinholes
        Hit h = intersect_closest(s.bvh, s.tris, primary);
        if (h.prim < 0) continue;
        const TriVerts& t = s.tris[h.prim];
        Vec3 pos = primary.o + primary.d * h.t;
        Vec3 ng = normalize(cross(t.v1 - t.v0, t.v2 - t.v0));
        if (dot(ng, primary.d) > 0.0f) ng = -ng;
        Vec3 d = normalize(make_frame(ng).to_world(sample_cosine_hemisphere(rng.next_float(), rng.next_float())));
        rays.push_back(Ray{offset_ray_origin(pos, ng), d});
    }
    return rays;
}

// Best of three passes, in thread CPU time; returns rays/s and the hit count.
double trace_rate(const Scene& s, const std::vector<Ray>& rays, size_t* hits) {
    double best = 0.0;
    for (int pass = 0; pass < 3; ++pass) {
        size_t h = 0;
        double t0 = thread_seconds();
        for (const Ray& r : rays) h += intersect_closest(s.bvh, s.tris, r).prim >= 0;
        double dt = thread_seconds() - t0;
        best = std::max(best, rays.size() / dt);
        *hits = h;
    }
    return best;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: bvh_bench SCENE... (rays per set: 200000)\n");
        return 2;
    }
    const int kRays = 200000;
    try {
        for (int a = 1; a < argc; ++a) {
            Scene base = load_scene(argv[a]);
            std::printf("%s: %zu triangles\n", argv[a], base.tris.size());
            std::vector<Ray> random, diffuse;
            for (BvhLayout layout : all_bvh_layouts())
                for (float splits : {0.0f, 0.3f, 1.0f, -1.0f}) {  // -1: spatial splits
                    double build = 1e30, build_cpu = 1e30;
                    Scene s;
                    for (int rep = 0; rep < 5; ++rep) {  // best of five: the build's wall time is noisy here
                        s = base;
                        double c0 = process_seconds();
                        prepare_scene(s, layout, std::max(splits, 0.0f), splits < 0.0f);
                        build_cpu = std::min(build_cpu, process_seconds() - c0);
                        build = std::min(build, s.bvh_build_seconds);
                    }
                    if (random.empty()) {  // the same rays for every layout
                        random = random_rays(s, kRays);
                        diffuse = diffuse_rays(s, kRays);
                    }
                    size_t hr = 0, hd = 0;
                    double rr = trace_rate(s, random, &hr), rd = trace_rate(s, diffuse, &hd);
                    std::printf(
                        "  %-6s %s: refs %8zu  SAH %7.2f  nodes %8zu  %7.2f MiB  build+convert %6.3f s (prepare_scene %6.3f CPU s)  "
                        "random %6.2f Mrays/s (%zu hits)  diffuse %6.2f Mrays/s (%zu of %zu hits)\n",
                        bvh_layout_name(layout).c_str(),
                        splits < 0.0f ? "sbvh       " : ("splits " + std::to_string(splits).substr(0, 3) + " ").c_str(),
                        s.tris.size(), s.bvh_sah_cost, s.bvh.node_count(), s.bvh.memory_bytes() / 1048576.0, build,
                        build_cpu, rr * 1e-6, hr, rd * 1e-6, hd, diffuse.size());
                }
        }
    } catch (const Error& e) {
        std::fprintf(stderr, "bvh_bench: error: %s\n", e.what());
        return 1;
    }
    return 0;
}
