// temporal_bench: the denoiser along a moving camera, as the viewer sees it while the camera is dragged:
// each frame a new view (the scene's camera turned about its look-at point by `--yaw` degrees a frame)
// rendered at `--spp` samples, and three images of it against a reference of `--ref` samples:
//   noisy     the frame as rendered
//   spatial   denoised alone (render/denoise/denoiser.h)
//   temporal  blended with the views before (render/denoise/temporal.h), then denoised
//   blended   that blend before denoising
// relMSE per frame, and the mean of the last half of the frames (where the history has built up).
// Not a ctest: run it by hand in a Release build, e.g.
//   build/tests/temporal_bench scenes/cornell.json 128 128 --frames 12 --spp 1 --ref 1024
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "render/backend.h"
#include "render/denoise/denoiser.h"
#include "render/denoise/temporal.h"
#include "render/error.h"
#include "render/scene/scene.h"

using namespace pkrt;

namespace {

CameraSpec turned(CameraSpec c, float degrees) {
    float a = degrees * 3.14159265f / 180.0f;
    Vec3 v = c.eye - c.look_at;
    Vec3 u = normalize(c.up);
    // Rodrigues' rotation of v about u.
    Vec3 r = v * cosf(a) + cross(u, v) * sinf(a) + u * (dot(u, v) * (1.0f - cosf(a)));
    c.eye = c.look_at + r;
    return c;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 4) {
        std::fprintf(stderr,
                     "usage: temporal_bench SCENE WIDTH HEIGHT [--frames N] [--spp S] [--ref R] [--yaw DEG] "
                     "[--history H] [--same-seed] [--clip SIGMA [--clip-min-weight W] | --no-clip]\n");
        return 2;
    }
    try {
        std::string path = argv[1];
        int w = std::atoi(argv[2]), h = std::atoi(argv[3]), frames = 12, spp = 1, ref = 1024;
        float yaw = 0.5f;
        TemporalParams tp;
        bool same_seed = false;
        for (int i = 4; i < argc; ++i) {
            auto next = [&] { return i + 1 < argc ? argv[++i] : (throw Error("a flag without its value"), ""); };
            if (!std::strcmp(argv[i], "--frames")) frames = std::atoi(next());
            else if (!std::strcmp(argv[i], "--spp")) spp = std::atoi(next());
            else if (!std::strcmp(argv[i], "--ref")) ref = std::atoi(next());
            else if (!std::strcmp(argv[i], "--yaw")) yaw = static_cast<float>(std::atof(next()));
            else if (!std::strcmp(argv[i], "--history")) tp.max_history = static_cast<float>(std::atof(next()));
            else if (!std::strcmp(argv[i], "--same-seed")) same_seed = true;
            else if (!std::strcmp(argv[i], "--clip")) {
                tp.clip = true;
                tp.clip_sigma = static_cast<float>(std::atof(next()));
            } else if (!std::strcmp(argv[i], "--clip-min-weight"))
                tp.clip_min_weight = static_cast<float>(std::atof(next()));
            else if (!std::strcmp(argv[i], "--no-clip")) tp.clip = false;
            else throw Error(std::string("unknown flag ") + argv[i]);
        }
        Scene scene = load_scene(path);
        prepare_scene(scene);
        const CameraSpec start = scene.camera;
        auto cpu = make_cpu_backend();
        auto denoiser = make_cpu_denoiser();
        TemporalHistory history(tp);
        std::printf("frame  noisy      spatial    temporal   blended    reused  blend ms\n");
        double sum[3] = {};
        int counted = 0;
        for (int f = 0; f < frames; ++f) {
            scene.camera = turned(start, yaw * static_cast<float>(f));
            RenderSettings rs;
            rs.width = w;
            rs.height = h;
            rs.max_depth = 8;
            rs.spp = spp;
            rs.seed = same_seed ? 0u : static_cast<uint32_t>(f + 1);
            rs.features = true;
            RenderOutput out = render_image(*cpu, scene, rs, nullptr);
            RenderSettings rr = rs;
            rr.spp = ref;
            rr.seed = 1000u + static_cast<uint32_t>(f);
            rr.features = false;
            Image reference = render_image(*cpu, scene, rr, nullptr).image;
            CameraView view = make_camera_view(scene.camera, w, h);
            history.next_view();
            auto t0 = std::chrono::steady_clock::now();
            Image blended = history.blend(
                out.image, std::vector<float>(out.image.pixels.size(), static_cast<float>(spp)), out.features, view);
            double blend_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            double e[4] = {
                relative_mse(out.image, reference), relative_mse(denoiser->denoise(out.image, out.features), reference),
                relative_mse(denoiser->denoise(blended, out.features), reference), relative_mse(blended, reference)};
            std::printf("%5d  %.3e  %.3e  %.3e  %.3e  %.3f  %.1f\n", f, e[0], e[1], e[2], e[3],
                        static_cast<double>(history.reused()) / static_cast<double>(out.image.pixels.size()), blend_ms);
            if (f >= frames / 2) {
                for (int k = 0; k < 3; ++k) sum[k] += e[k];
                ++counted;
            }
        }
        std::printf("mean of frames %d..%d: noisy %.3e  spatial %.3e  temporal %.3e  (temporal/spatial %.3f)\n",
                    frames / 2, frames - 1, sum[0] / counted, sum[1] / counted, sum[2] / counted, sum[2] / sum[1]);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "temporal_bench: error: %s\n", e.what());
        return 1;
    }
    return 0;
}
