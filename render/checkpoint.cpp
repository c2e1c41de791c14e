#include "render/checkpoint.h"

#include <sys/stat.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <utility>

#include "render/error.h"
#include "render/image/aov.h"
#include "render/image/exr_input.h"
#include "render/scene/input_file.h"
#include "render/quote.h"
#include "render/strict_number.h"

namespace pkrt {

namespace {

struct Fnv {
    uint64_t h = 1469598103934665603ull;
    void bytes(const void* data, size_t n) {
        const unsigned char* p = static_cast<const unsigned char*>(data);
        for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
    }
    template <class T> void value(const T& v) { bytes(&v, sizeof v); }
};

std::string hex(uint64_t h) {
    char s[17];
    std::snprintf(s, sizeof s, "%016llx", static_cast<unsigned long long>(h));
    return s;
}

// The scene as it renders: its triangles' vertices, and every file it read by size and modification
// time (a texture or material edited since changes the image without moving a vertex).
std::string scene_hash(const Scene& scene) {
    Fnv f;
    for (const TriVerts& t : scene.tris) {
        const float v[9] = {t.v0.x, t.v0.y, t.v0.z, t.v1.x, t.v1.y, t.v1.z, t.v2.x, t.v2.y, t.v2.z};
        f.bytes(v, sizeof v);
    }
    f.value(static_cast<uint64_t>(scene.materials.size()));
    f.value(static_cast<uint64_t>(scene.textures.size()));
    f.value(static_cast<uint64_t>(scene.env_map.texels.size()));
    for (const SceneInput& in : scene.inputs) {
        struct stat st {};
        if (::stat(in.path.c_str(), &st) != 0) continue;
        f.value(static_cast<int64_t>(st.st_size));
        f.value(static_cast<int64_t>(st.st_mtim.tv_sec));
        f.value(static_cast<int64_t>(st.st_mtim.tv_nsec));
    }
    return hex(f.h);
}

const char* const kSpp = "pkrt:spp";

// The first pixel of `layer` that pkrt could not have written, as a message; empty where there is none.
std::string bad_pixels(const Image& layer, const std::string& name, bool radiance) {
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < layer.pixels.size(); ++i) {
        const Vec3& p = layer.pixels[i];
        bool ok = all_finite(p) && (!radiance || (p.x >= 0.0f && p.y >= 0.0f && p.z >= 0.0f));
        if (!ok && bad++ == 0) first = i;
    }
    if (!bad) return "";
    return "its " + name + " has " + std::to_string(bad) + " pixels that are " +
           (radiance ? "NaN, infinite or negative" : "NaN or infinite") + " (the first at " +
           std::to_string(first % layer.width) + "," + std::to_string(first / layer.width) + ")";
}

}  // namespace

uint64_t camera_fingerprint(const CameraSpec& c) {
    const float v[] = {c.eye.x, c.eye.y, c.eye.z, c.look_at.x,    c.look_at.y,       c.look_at.z,
                       c.up.x,  c.up.y,  c.up.z,  c.vfov_degrees, c.aperture_radius, c.focus_distance};
    Fnv f;
    f.bytes(v, sizeof v);
    return f.h;
}

ExrAttributes render_attributes(const Scene& scene, const RenderSettings& rs, uint32_t spp) {
    return {{kSpp, std::to_string(spp)},
            {"pkrt:size", std::to_string(rs.width) + "x" + std::to_string(rs.height)},
            {"pkrt:max_depth", std::to_string(rs.max_depth)},
            {"pkrt:seed", std::to_string(rs.seed)},
            {"pkrt:camera", hex(camera_fingerprint(scene.camera))},
            {"pkrt:scene", scene_hash(scene)}};
}

ResumePoint read_resume_point(const std::string& path, const Scene& scene, const RenderSettings& rs,
                              const std::vector<Aov>& aovs) {
    const std::string what = "--resume " + path;
    if (rs.width <= 0 || rs.height <= 0) throw Error(what + ": no image size");
    // The file is read once: every layer and attribute below comes from the same bytes.
    ResumePoint r;
    std::unique_ptr<ExrInput> exr;
    check_reference_path(path, "--resume");
    try {
        InputFile in = read_input_file(path, "no such file");
        r.image = read_reference_exr(in, rs.width, rs.height);
        exr = std::make_unique<ExrInput>(std::move(in));
    } catch (const Error& e) {
        throw Error(what + ": " + e.what());
    } catch (const std::exception& e) {
        throw Error(what + ": cannot read EXR: " + quote_input(e.what()));
    }
    ExrAttributes have = read_exr_attributes(*exr);
    auto find = [&](const std::string& name) -> const std::string* {
        for (const auto& [n, v] : have)
            if (n == name) return &v;
        return nullptr;
    };
    const std::string* spp = find(kSpp);
    if (!spp) throw Error(what + ": not an image pkrt rendered (it records no samples per pixel)");
    for (const auto& [name, value] : render_attributes(scene, rs, 0)) {
        if (name == kSpp) continue;
        const std::string* got = find(name);
        std::string field = name.substr(5);
        if (!got) throw Error(what + ": records no " + field);
        if (*got == value) continue;
        if (field == "scene") throw Error(what + ": was rendered from another scene, or its files changed since");
        if (field == "camera") throw Error(what + ": was rendered from another camera");
        throw Error(what + ": was rendered with " + field + " " + quote_input(*got) + ", not " + value);
    }
    uint64_t n = 0;
    if (!parse_strict_unsigned(*spp, 0xffffffffu, &n) || n == 0)
        throw Error(what + ": records '" + quote_input(*spp) + "' samples per pixel (not a whole number from 1)");
    r.spp = static_cast<uint32_t>(n);
    if (r.spp >= static_cast<uint32_t>(rs.spp))
        throw Error(what + ": holds " + std::to_string(r.spp) + " spp already (ask for more with --spp)");
    bool noisy = false;
    try {
        noisy = has_noisy_layer(*exr);
        if (noisy) r.image = read_noisy_layer(*exr, rs.width, rs.height);
        if (!aovs.empty()) r.features = read_aov_layers(*exr, rs.width, rs.height, aovs);
    } catch (const Error& e) {
        throw Error("--resume " + std::string(e.what()));
    }
    std::string bad = bad_pixels(r.image, noisy ? "Noisy Image" : "image", true);
    for (Aov a : aovs) {
        if (!bad.empty()) break;
        const Image& layer = a == Aov::kAlbedo   ? r.features.albedo
                             : a == Aov::kNormal ? r.features.normal
                                                 : r.features.depth;
        bad = bad_pixels(layer, kAovNames[static_cast<int>(a)] + " layer", false);
    }
    if (!bad.empty()) throw Error(what + ": " + bad);
    return r;
}

Image combine_samples(const Image& prior, uint32_t prior_spp, const Image& later, uint32_t later_spp) {
    if (prior.pixels.size() != later.pixels.size()) throw Error("internal: combining images of different sizes");
    Image out = later;
    const double total = static_cast<double>(prior_spp) + later_spp;
    auto mix = [&](float a, float b) {
        return static_cast<float>((static_cast<double>(a) * prior_spp + static_cast<double>(b) * later_spp) / total);
    };
    for (size_t i = 0; i < out.pixels.size(); ++i) {
        const Vec3 &a = prior.pixels[i], &b = later.pixels[i];
        out.pixels[i] = Vec3{mix(a.x, b.x), mix(a.y, b.y), mix(a.z, b.z)};
    }
    return out;
}

FeatureImages combine_features(const FeatureImages& prior, uint32_t prior_spp, const FeatureImages& later,
                               uint32_t later_spp) {
    FeatureImages out;
    out.albedo = combine_samples(prior.albedo, prior_spp, later.albedo, later_spp);
    out.normal = combine_samples(prior.normal, prior_spp, later.normal, later_spp);
    out.depth = combine_samples(prior.depth, prior_spp, later.depth, later_spp);
    return out;
}

}  // namespace pkrt
