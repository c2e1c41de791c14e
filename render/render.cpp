#include <chrono>

#include "backend.h"
#include "devices.h"
#include "error.h"
#include "progress.h"

#if defined(PKRT_HAVE_CUDA)
#include "cuda_backend.h"
#endif

namespace pkrt {


std::unique_ptr<Backend> make_backend(const std::string& kind, std::string* why) {
    if (kind == "cpu") {
        if (why) *why = "CPU backend (asked for)";
        return make_cpu_backend();
    }
    if (kind != "cuda" && kind != "auto") throw Error("--backend " + kind + ": must be auto, cpu or cuda");
    std::string reason;
    std::vector<GpuDevice> devices = cuda_devices(&reason);
#if defined(PKRT_HAVE_CUDA)
    if (!devices.empty()) {
        if (why) *why = "CUDA backend on " + devices[0].name + (kind == "auto" ? " (auto: a CUDA device was found)" : "");
        return make_cuda_backend(devices[0], cuda_options_from_environment());
    }
#else
    if (!devices.empty()) reason = "this pkrt was built without the CUDA backend";
#endif
    if (kind == "cuda") throw Error("--backend cuda: " + reason);
    if (why) *why = "CPU backend (auto: " + reason + ")";
    return make_cpu_backend();
}

RenderOutput render_image(Backend& backend, const Scene& scene, const RenderSettings& rs, Progress* progress) {
    RenderOutput out;
    RenderStats& st = out.stats;
    st.backend = backend.name();
    st.device = backend.device();
    st.mode = rs.mode.empty() ? backend.default_mode() : rs.mode;
    st.width = rs.width;
    st.height = rs.height;
    st.spp = rs.spp;
    st.max_depth = rs.max_depth;
    st.seed = rs.seed;
    st.triangles = scene.tris.size();
    st.bvh_build_seconds = scene.bvh_build_seconds;
    backend.set_scene(scene);
    backend.reset(rs.width, rs.height);
    // Passes of about a million paths (at least one sample each) keep progress updates frequent
    // without making passes so short that their overhead shows.
    uint64_t pixels = static_cast<uint64_t>(rs.width) * rs.height;
    uint32_t per_pass = static_cast<uint32_t>(std::max<uint64_t>(1, (1u << 20) / std::max<uint64_t>(1, pixels)));
    auto t0 = std::chrono::steady_clock::now();
    for (uint32_t s = 0; s < static_cast<uint32_t>(rs.spp);) {
        uint32_t n = std::min<uint32_t>(per_pass, static_cast<uint32_t>(rs.spp) - s);
        backend.accumulate(rs, s, n, st);
        s += n;
        if (progress) progress->add(pixels * n);
    }
    st.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (progress) progress->finish();
    out.image = backend.resolve();
    return out;
}

}  // namespace pkrt
