// Environment maps: equirectangular Radiance .hdr and OpenEXR, decoded as float textures are
// (render/texture/texture_decoders.h: stb_image after a walk of the HDR stream, OpenEXR from memory) within
// the texel budget at an environment texel's weight, and their sampling distribution.
#include <algorithm>
#include <climits>
#include <cmath>
#include <new>

#include "render/error.h"
#include "render/scene/input_file.h"
#include "render/scene/load_limits.h"
#include "render/scene/loaders.h"
#include "render/texture/texture_decoders.h"

namespace pkrt {

namespace {

constexpr int kMaxMapSide = kMaxTextureSide;

void check_map_size(const Scene& scene, const std::string& path, int64_t w, int64_t h) {
    if (w <= 0 || h <= 0) throw Error(path + ": empty environment map");
    if (w > kMaxMapSide || h > kMaxMapSide)
        throw Error(path + ": environment map of " + std::to_string(w) + "x" + std::to_string(h) + " is larger than " +
                    std::to_string(kMaxMapSide) + " on a side");
    check_texel_budget(
        scene.limits, path + " (an environment texel counts as " + std::to_string(kEnvironmentTexelWeight) + ")",
        texel_budget_used(scene), static_cast<uint64_t>(w) * static_cast<uint64_t>(h) * kEnvironmentTexelWeight);
}

void decode_map(const Scene& scene, const InputFile& f, EnvironmentMap& m) {
    SizeCheck check = [&](uint64_t w, uint64_t h) { check_map_size(scene, f.path, int64_t(w), int64_t(h)); };
    FloatImage img;
    if (is_radiance(f.bytes)) decode_radiance(f, check, img);
    else if (is_openexr(f.bytes)) decode_openexr(f, check, img);
    else throw Error(f.path + ": unsupported environment map format (pkrt reads Radiance .hdr and OpenEXR .exr)");
    m.width = img.width;
    m.height = img.height;
    m.texels = std::move(img.texels);
}

}  // namespace

void set_environment_map(Scene& scene, const std::string& path, float intensity, float rotation_degrees) {
    // The largest map that fits a 32-bit read; far beyond the default texel budget anyway.
    InputFile f = read_input_file(path, "environment map not found", uint64_t(INT_MAX));
    scene.env_map = EnvironmentMap{};  // a replaced map no longer counts against the budget
    EnvironmentMap m;
    m.path = path;
    try {
        decode_map(scene, f, m);
    } catch (const std::bad_alloc&) {
        throw Error(f.path + ": not enough memory to decode this environment map");
    }
    // The file's bytes are held while it decodes; the decoded copies are in kEnvironmentTexelWeight.
    scene.load_stats.decode_peak_bytes = std::max(scene.load_stats.decode_peak_bytes, uint64_t(f.bytes.size()));
    scene.inputs.push_back({f.path, f.id});

    install_environment_map(scene, std::move(m), intensity, rotation_degrees);
}

void install_environment_map(Scene& scene, EnvironmentMap m, float intensity, float rotation_degrees) {
    // Negative or non-finite radiance has no physical meaning, and one NaN texel would poison every
    // sample that reads it. A few such texels are common in real EXRs (a resampling filter's ringing, a
    // renderer's stray NaN), so they become black and are counted rather than refusing the whole map.
    size_t invalid = 0;
    float max_c = 0.0f;
    for (Vec3& t : m.texels) {
        bool bad = false;
        for (float* c : {&t.x, &t.y, &t.z}) {
            if (!std::isfinite(*c) || *c < 0.0f) {
                *c = 0.0f;
                bad = true;
            }
            max_c = std::max(max_c, *c);
        }
        invalid += bad ? 1 : 0;
    }
    m.max_component = max_c;
    // In double: the brightest texel and the intensity are each finite, their product may not be.
    if (static_cast<double>(max_c) * intensity > 1e20)
        throw Error(m.path + ": the brightest texel times the intensity is " +
                    std::to_string(double(max_c) * intensity) + ", more than 1e20");
    scene.load_stats.invalid_environment_texels = invalid;
    scene.env_map = std::move(m);

    Environment& env = scene.environment;
    env.type = kEnvMap;
    env.intensity = intensity;
    double rad = static_cast<double>(rotation_degrees) * 3.14159265358979323846 / 180.0;
    env.sin_rotation = static_cast<float>(std::sin(rad));
    env.cos_rotation = static_cast<float>(std::cos(rad));
}

void build_environment_distribution(EnvironmentMap& map) {
    // Over the cells of the lookup's bilinear reconstruction (kernels/shading/environment.h says why and
    // how they lie): width cells in each of height + 1 rows, the first and last half cells at the poles.
    // A cell's weight is its luminance integral (the corners' mean times its area) times sin(theta) at its
    // centre, which stands for its solid angle.
    const int w = map.width, h = map.height, rows = h + 1;
    map.conditional_cdf.assign(static_cast<size_t>(w + 1) * rows, 0.0f);
    map.marginal_cdf.assign(static_cast<size_t>(rows) + 1, 0.0f);
    std::vector<double> lum(static_cast<size_t>(w) * h);
    for (size_t k = 0; k < lum.size(); ++k) lum[k] = static_cast<double>(luminance(map.texels[k]));
    std::vector<double> row_sum(rows, 0.0), partial(static_cast<size_t>(w) + 1, 0.0);
    for (int r = 0; r < rows; ++r) {
        const double v0 = std::max(0.0, (r - 0.5) / h), v1 = std::min(1.0, (r + 0.5) / h);
        const double weight = (v1 - v0) * std::sin(3.14159265358979323846 * 0.5 * (v0 + v1)) / 4.0;
        const double* top = lum.data() + static_cast<size_t>(std::max(r - 1, 0)) * w;
        const double* bottom = lum.data() + static_cast<size_t>(std::min(r, h - 1)) * w;
        for (int i = 0; i < w; ++i) {
            const int i1 = i + 1 == w ? 0 : i + 1;
            partial[i + 1] = partial[i] + (top[i] + top[i1] + bottom[i] + bottom[i1]) * weight;
        }
        double sum = partial[w];
        row_sum[r] = sum;
        float* cdf = map.conditional_cdf.data() + static_cast<size_t>(r) * (w + 1);
        // A black row is never chosen; a uniform CDF keeps its entries well defined all the same.
        for (int i = 1; i <= w; ++i) cdf[i] = static_cast<float>(sum > 0.0 ? partial[i] / sum : double(i) / w);
        cdf[w] = 1.0f;
    }
    double total = 0.0;
    for (int r = 0; r < rows; ++r) total += row_sum[r];
    if (!(total > 0.0)) return;  // all black: the marginal stays 0 and the map is no light
    double acc = 0.0;
    for (int r = 0; r < rows; ++r) {
        acc += row_sum[r];
        map.marginal_cdf[r + 1] = static_cast<float>(acc / total);
    }
    map.marginal_cdf[rows] = 1.0f;
}

}  // namespace pkrt
