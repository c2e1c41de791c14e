// libFuzzer target: an EXR as `pkrt render --resume` reads it (render/checkpoint.cpp): the header and its
// pkrt: attributes (the sample count read strictly, the render's identity compared), the radiance or
// its Noisy Image layer and the feature layers, each checked for what pkrt could have written. The
// render it resumes is fixed: an empty scene (so its identity is a constant), 4x4, depth 3, seed 0, 64
// spp; the input's last byte chooses whether the feature layers are asked for. Errors are pkrt Errors.
#include <new>

#include "render/checkpoint.h"
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const pkrt::Scene scene;
    pkrt::RenderSettings rs;
    rs.width = rs.height = 4;
    rs.max_depth = 3;
    rs.seed = 0;
    rs.spp = 64;
    std::vector<pkrt::Aov> aovs;
    if (size > 0 && (data[size - 1] & 1)) aovs = pkrt::kAllAovs;  // the magic number fixes the first byte
    std::string path = pkrt_fuzz::write_file("resume.exr", reinterpret_cast<const char*>(data), size);
    try {
        pkrt::ResumePoint r = pkrt::read_resume_point(path, scene, rs, aovs);
        if (r.spp == 0 || r.spp >= 64) std::abort();  // what it returns is within what it promises
        for (const pkrt::Vec3& p : r.image.pixels)
            if (!pkrt::all_finite(p) || p.x < 0 || p.y < 0 || p.z < 0) std::abort();
    } catch (const pkrt::Error&) {
    } catch (const std::bad_alloc&) {
        std::abort();
    }
    return 0;
}
