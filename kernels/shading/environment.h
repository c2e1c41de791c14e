// Light arriving from infinitely far away: none, a constant colour, a simple analytic sky
// (zenith-to-horizon gradient above, a flat ground colour below), or an equirectangular radiance map.
#pragma once

#include "kernels/shading/sampling.h"

namespace pkrt {

enum EnvironmentType : int32_t { kEnvNone = 0, kEnvConstant = 1, kEnvSky = 2, kEnvMap = 3 };

// Map layout (equirectangular, +Y up): column u in [0, 1) is the azimuth phi = 2 pi (u - 1/2) measured
// from -Z towards +X, row v in [0, 1) the polar angle theta = pi v from +Y, so a camera looking down -Z
// sees the middle of the image, unmirrored. The map is turned about +Y by `rotation` (right-handed).
struct Environment {
    int32_t type;
    Vec3 color;   // constant: the radiance; sky: unused
    Vec3 zenith;  // sky colours, already scaled by intensity
    Vec3 horizon;
    Vec3 ground;

    // kEnvMap. Host or device pointers, like TextureView's; the texels are float RGB (12 bytes, not a
    // padded float4: a 8k x 4k map is 400 MiB as it is, and each lookup is a handful of loads next to a
    // ray's hundreds).
    const Vec3* texels;  // width x height radiance before `intensity`, row 0 at +Y
    // The sampling distribution over the cells of the lookup's bilinear reconstruction (environment_map_cell):
    const float* marginal_cdf;     // height + 2 entries from 0 to 1: cell rows
    const float* conditional_cdf;  // height + 1 rows of width + 1 entries from 0 to 1: cells within a row
    int32_t width, height;
    float intensity;
    float sin_rotation, cos_rotation;
};

// World direction -> the map's own frame (the inverse of the rotation about +Y).
PKRT_HD Vec3 environment_to_map(const Environment& env, Vec3 d) {
    return {env.cos_rotation * d.x - env.sin_rotation * d.z, d.y, env.sin_rotation * d.x + env.cos_rotation * d.z};
}
PKRT_HD Vec3 environment_from_map(const Environment& env, Vec3 l) {
    return {env.cos_rotation * l.x + env.sin_rotation * l.z, l.y, -env.sin_rotation * l.x + env.cos_rotation * l.z};
}

// Map coordinates of a direction in the map's frame, both in [0, 1].
PKRT_HD Vec2 environment_map_uv(Vec3 l) {
    float u = 0.5f + atan2f(l.x, -l.z) * (0.5f * kInvPi);
    float v = acosf(clamp_f(l.y, -1.0f, 1.0f)) * kInvPi;
    return {clamp_f(u, 0.0f, 1.0f), clamp_f(v, 0.0f, 1.0f)};
}

// Bilinear: a map seen directly as the backdrop is magnified, and nearest texels show as blocks. Columns
// wrap around the azimuth seam; rows clamp at the poles.
PKRT_HD Vec3 environment_map_lookup(const Environment& env, Vec2 uv) {
    float x = uv.x * static_cast<float>(env.width) - 0.5f;
    float y = uv.y * static_cast<float>(env.height) - 0.5f;
    float fx = floorf(x), fy = floorf(y);
    float ax = x - fx, ay = y - fy;
    int x0 = static_cast<int>(fx), y0 = static_cast<int>(fy);
    int xa = x0 < 0 ? x0 + env.width : x0;
    int xb = x0 + 1 >= env.width ? x0 + 1 - env.width : x0 + 1;
    int ya = max_i(y0, 0), yb = min_i(y0 + 1, env.height - 1);
    const Vec3* ra = env.texels + static_cast<size_t>(ya) * env.width;
    const Vec3* rb = env.texels + static_cast<size_t>(yb) * env.width;
    Vec3 top = lerp(ra[xa], ra[xb], ax);
    Vec3 bottom = lerp(rb[xa], rb[xb], ax);
    return lerp(top, bottom, ay) * env.intensity;
}

// kFull: the scene may use the glTF-era inputs (environment maps, metal-rough, material textures beyond
// the base colour). The GPU kernels are built with and without them and the host picks per scene
// (SceneView::full_shading): without, their code is not in the kernel and costs it no registers. The
// CPU always runs the full code; on a scene without those inputs both give the same samples.
template <bool kFull = true> PKRT_HD Vec3 environment_radiance(const Environment& env, Vec3 dir) {
    switch (env.type) {
        case kEnvConstant: return env.color;
        case kEnvSky: {
            if (dir.y < 0.0f) return env.ground;
            // sqrt keeps the sky bright near the horizon, as a real sky's airmass does.
            return lerp(env.horizon, env.zenith, sqrtf(clamp_f(dir.y, 0.0f, 1.0f)));
        }
        case kEnvMap:
            if constexpr (kFull) return environment_map_lookup(env, environment_map_uv(environment_to_map(env, dir)));
            else return splat(0.0f);
        default: return splat(0.0f);
    }
}

PKRT_HD bool environment_is_light(const Environment& env) {
    switch (env.type) {
        case kEnvConstant: return !is_black(env.color);
        case kEnvSky: return !(is_black(env.zenith) && is_black(env.horizon) && is_black(env.ground));
        // An all-black map has a marginal CDF of nothing to sample (the host builds it that way).
        case kEnvMap:
            return env.intensity > 0.0f && env.marginal_cdf != nullptr && env.marginal_cdf[env.height + 1] > 0.0f;
        default: return false;
    }
}

// Importance sampling follows the lookup's bilinear reconstruction, not the texels: a texel's light spreads
// over its neighbours' area, and a distribution of texels would leave that light to BSDF samples (fireflies
// around a small sun, and a sun three texels across seemed dim: BENCHMARKS.md, session 29). The
// reconstruction is bilinear between texel centres, so the sampler's cells are the squares between them:
// cell (i, r) spans u from (i + 1/2) / width to (i + 3/2) / width (wrapping past 1) and v from (r - 1/2) /
// height to (r + 1/2) / height clipped to [0, 1], with columns i, i + 1 and rows r - 1, r (clamped: the
// rows r = 0 and r = height are half cells at the poles, constant in v as the lookup is). A cell is chosen
// by the CDFs in proportion to its luminance integral times sin(theta) at its centre (the host's
// build_environment_distribution), and a point within it in proportion to the bilinear luminance.
struct EnvCell {
    int32_t i, r;              // the cell
    float s, t;                // the point within it, in [0, 1]^2 (s along u, t along v)
    float v0, height;          // the cell's v range: v0 .. v0 + height
    float w00, w10, w01, w11;  // the corners' luminance: (column i or i + 1, row r - 1 or r)
};

PKRT_HD float env_texel_luminance(const Environment& env, int i, int j) {
    return luminance(env.texels[static_cast<size_t>(j) * env.width + i]);
}

PKRT_HD void env_cell_corners(const Environment& env, EnvCell& c) {
    const int i1 = c.i + 1 == env.width ? 0 : c.i + 1;
    const int top = max_i(c.r - 1, 0), bottom = min_i(c.r, env.height - 1);
    const float inv_h = 1.0f / static_cast<float>(env.height);
    c.v0 = max_f(0.0f, (static_cast<float>(c.r) - 0.5f) * inv_h);
    c.height = min_f(1.0f, (static_cast<float>(c.r) + 0.5f) * inv_h) - c.v0;
    c.w00 = env_texel_luminance(env, c.i, top);
    c.w10 = env_texel_luminance(env, i1, top);
    c.w01 = env_texel_luminance(env, c.i, bottom);
    c.w11 = env_texel_luminance(env, i1, bottom);
}

// The cell holding map coordinates (u, v), and the point's place in it.
PKRT_HD EnvCell environment_map_cell(const Environment& env, Vec2 uv) {
    EnvCell c;
    float x = uv.x * static_cast<float>(env.width) - 0.5f;
    float fx = floorf(x);
    c.i = static_cast<int>(fx);
    c.s = x - fx;
    if (c.i < 0) c.i += env.width;
    if (c.i >= env.width) c.i -= env.width;
    c.r = min_i(static_cast<int>(uv.y * static_cast<float>(env.height) + 0.5f), env.height);
    env_cell_corners(env, c);
    c.t = c.height > 0.0f ? clamp_f((uv.y - c.v0) / c.height, 0.0f, 1.0f) : 0.0f;
    return c;
}

// The bilinear luminance's density over the unit square at (s, t): 1 where the corners are equal.
PKRT_HD float env_bilinear_density(const EnvCell& c) {
    float sum = c.w00 + c.w10 + c.w01 + c.w11;
    if (!(sum > 0.0f)) return 0.0f;
    float f = (1.0f - c.s) * (1.0f - c.t) * c.w00 + c.s * (1.0f - c.t) * c.w10 + (1.0f - c.s) * c.t * c.w01 +
              c.s * c.t * c.w11;
    return 4.0f * f / sum;
}

// Density per unit area of [0, 1]^2 at cell c's point. The cell's probability comes from the CDFs
// themselves, so that it is exactly the probability the sampler gives it.
PKRT_HD float environment_map_pdf_uv(const Environment& env, const EnvCell& c) {
    float row = env.marginal_cdf[c.r + 1] - env.marginal_cdf[c.r];
    const float* cdf = env.conditional_cdf + static_cast<size_t>(c.r) * (env.width + 1);
    float col = cdf[c.i + 1] - cdf[c.i];
    float area = c.height / static_cast<float>(env.width);
    return area > 0.0f ? row * col * env_bilinear_density(c) / area : 0.0f;
}

// (u, v) -> direction has Jacobian d(omega) = 2 pi^2 sin(theta) du dv.
PKRT_HD float environment_map_pdf(const Environment& env, Vec3 dir) {
    Vec3 l = environment_to_map(env, dir);
    float sin_theta = sqrtf(max_f(0.0f, 1.0f - l.y * l.y));
    if (sin_theta <= 0.0f) return 0.0f;
    return environment_map_pdf_uv(env, environment_map_cell(env, environment_map_uv(l))) /
           (2.0f * kPi * kPi * sin_theta);
}

// Interval k of an inclusive CDF with cdf[0] = 0 and cdf[n] = 1 such that cdf[k] <= u < cdf[k + 1]
// (intervals of zero probability are never returned). Binary search, no recursion.
PKRT_HD int32_t find_interval(const float* cdf, int32_t n, float u) {
    int32_t lo = 0, hi = n - 1;
    while (lo < hi) {
        int32_t mid = (lo + hi + 1) >> 1;
        if (cdf[mid] <= u) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

// A point of [0, 1] in proportion to the line from a (at 0) to b (at 1), both >= 0 (pbrt-v4's SampleLinear).
PKRT_HD float sample_linear(float u, float a, float b) {
    if (u == 0.0f && a == 0.0f) return 0.0f;
    float x = u * (a + b) / (a + sqrtf((1.0f - u) * a * a + u * b * b));
    return min_f(x, 0.99999994f);
}

// Importance sampling of the map: a cell row from the marginal CDF, a cell from the row's conditional CDF,
// the point within the cell in proportion to its bilinear luminance. Returns the direction, its
// solid-angle pdf (0: no sample) and radiance.
PKRT_HD Vec3 environment_map_sample(const Environment& env, float u0, float u1, float* pdf, Vec3* radiance) {
    *pdf = 0.0f;
    *radiance = splat(0.0f);
    const float* m = env.marginal_cdf;
    EnvCell c;
    c.r = find_interval(m, env.height + 1, u1);
    float row = m[c.r + 1] - m[c.r];
    if (!(row > 0.0f)) return Vec3{0.0f, 1.0f, 0.0f};
    const float* cdf = env.conditional_cdf + static_cast<size_t>(c.r) * (env.width + 1);
    c.i = find_interval(cdf, env.width, u0);
    float col = cdf[c.i + 1] - cdf[c.i];
    if (!(col > 0.0f)) return Vec3{0.0f, 1.0f, 0.0f};
    env_cell_corners(env, c);
    // The two random numbers' places within their intervals, reused (0x1.fffffep-1: the largest float
    // below 1): t along v by the marginal of the bilinear, s along u given t.
    float du = clamp_f((u0 - cdf[c.i]) / col, 0.0f, 0.99999994f);
    float dv = clamp_f((u1 - m[c.r]) / row, 0.0f, 0.99999994f);
    c.t = sample_linear(dv, c.w00 + c.w10, c.w01 + c.w11);
    c.s = sample_linear(du, (1.0f - c.t) * c.w00 + c.t * c.w01, (1.0f - c.t) * c.w10 + c.t * c.w11);
    float u = (static_cast<float>(c.i) + 0.5f + c.s) / static_cast<float>(env.width);
    if (u >= 1.0f) u -= 1.0f;
    float v = c.v0 + c.t * c.height;
    float st, ct, sp, cp;
    sincos_angle(kPi * v, &st, &ct);
    sincos_angle(2.0f * kPi * (u - 0.5f), &sp, &cp);
    if (st <= 0.0f) return Vec3{0.0f, 1.0f, 0.0f};
    Vec3 l = {st * sp, ct, -st * cp};
    *pdf = environment_map_pdf_uv(env, c) / (2.0f * kPi * kPi * st);
    *radiance = environment_map_lookup(env, Vec2{u, v});
    return environment_from_map(env, l);
}

// Constant and sky: uniform over the sphere. Both are smooth and fill the sphere, so a uniform proposal
// is within a small factor of their shape and MIS with the BSDF covers the rest. Maps: importance
// sampled, since a sun or a window in a map is a small, very bright light.
template <bool kFull = true>
PKRT_HD Vec3 environment_sample(const Environment& env, float u0, float u1, float* pdf, Vec3* radiance) {
    if constexpr (kFull) {
        if (env.type == kEnvMap) return environment_map_sample(env, u0, u1, pdf, radiance);
    }
    *pdf = uniform_sphere_pdf();
    Vec3 d = sample_uniform_sphere(u0, u1);
    *radiance = environment_radiance<kFull>(env, d);
    return d;
}

template <bool kFull = true> PKRT_HD float environment_pdf(const Environment& env, Vec3 dir) {
    if constexpr (kFull) {
        if (env.type == kEnvMap) return environment_map_pdf(env, dir);
    }
    return uniform_sphere_pdf();
}

}  // namespace pkrt
