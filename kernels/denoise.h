// The denoiser's per-pixel steps, for the CPU (render/denoise/) and the GPU (kernels/gpu/denoise.cu) alike:
// an edge-avoiding a-trous wavelet filter (Dammertz et al. 2010) guided by the feature buffers
// (kernels/features.h), with the variance guidance of SVGF (Schied et al. 2017):
//
//   prepare    radiance / albedo (the texture comes back at the end, so it is never blurred) and the
//              guide: unit normal, depth, depth's screen-space slope
//   variance   of the demodulated luminance around the pixel on its surface (SVGF's spatial estimate,
//              for images without a history of moments, made robust to edges of light), and the
//              3x3 mean luminance the first pass compares
//   a-trous    iterations of the 5x5 B3-spline kernel with holes (step 1, 2, 4, ...), each sample
//              weighted by how alike its normal, depth and luminance are to the centre's, the luminance
//              test scaled by the centre's standard deviation (the first pass compares 3x3 means: at low
//              spp one sample's spike is no edge); the variance is filtered with the squares of the
//              weights, so each pass's test reflects the noise that is left
//   finish     times the albedo again (with the last pass)
// Every step reads the previous step's buffer and writes its own, one pixel per call.
#pragma once

#include "kernels/vec3.h"

namespace pkrt {

struct DenoiseParams {
    int iterations = 5;            // a-trous passes (1 or more): the footprint is 4 * 2^iterations pixels wide
    float sigma_luminance = 4.0f;  // in standard deviations of the centre's luminance
    float sigma_depth = 8.0f;      // in depth slopes times distance
};

// The normals' test: their cosine to the 2^kNormalSquarings = 8th power (BENCHMARKS.md's tuning kept 8),
// as squarings: a power in the weight's exp2 cost a log2 per tap.
constexpr int kNormalSquarings = 3;

// Demodulated radiance and the variance of its luminance.
struct alignas(16) DenoiseTexel {
    Vec3 rgb;
    float variance;
};

// The surface a pixel shows: its unit normal, packed (pack_guide_normal; 0 where its samples escaped),
// and its depth. Eight bytes, not sixteen: every tap of the filter's passes reads a guide, and the passes
// are bound by the L1 cache's bandwidth (BENCHMARKS.md, session 23).
struct alignas(8) DenoiseGuide {
    uint32_t normal;
    float depth;
};

// A unit normal as three 10-bit fields, each component rounded to 1/511 (a cosine between two normals
// changes by under 0.005, which neither the filter's nor the temporal step's normal test resolves); the
// zero vector as 0, which no unit normal packs to (each field of one lies in 1 .. 1023).
PKRT_HD uint32_t pack_guide_normal(Vec3 n) {
    if (n.x == 0.0f && n.y == 0.0f && n.z == 0.0f) return 0u;
    auto field = [](float c) {
        return static_cast<uint32_t>(static_cast<int>(rintf(fminf(fmaxf(c, -1.0f), 1.0f) * 511.0f)) + 512);
    };
    return field(n.x) | field(n.y) << 10 | field(n.z) << 20;
}
PKRT_HD Vec3 guide_normal(uint32_t p) {
    const float k = p != 0u ? 1.0f / 511.0f : 0.0f;
    return Vec3{static_cast<float>(static_cast<int>(p & 1023u) - 512) * k,
                static_cast<float>(static_cast<int>(p >> 10 & 1023u) - 512) * k,
                static_cast<float>(static_cast<int>(p >> 20 & 1023u) - 512) * k};
}

struct DenoiseFrame {
    int width, height;
    const DenoiseGuide* guide;
    const float* slope;
    const float* smooth;  // null, or the luminance the first pass's test compares (denoise_variance)
};

// A pass's input and frame are in global memory (assume_global).
PKRT_HD void assume_frame_global(const DenoiseTexel* in, const DenoiseFrame& f) {
    assume_global(in);
    assume_global(f.guide);
    assume_global(f.slope);
}

// What the luminance test compares at pixel q: the frame's smoothed luminance where it has one.
PKRT_HD float test_luminance(const DenoiseFrame& f, size_t q, Vec3 rgb) {
    if (!f.smooth) return luminance(rgb);
    assume_global(f.smooth);
    return f.smooth[q];
}

PKRT_HD int clamp_coord(int v, int n) { return v < 0 ? 0 : (v >= n ? n - 1 : v); }

// Radiance is divided by the albedo and multiplied by it again at the end, so the filter never blurs a
// texture. Below this floor an albedo divides by the floor instead: a near-black texel would otherwise
// turn its little radiance into a bright irradiance that leaks into its neighbours' means.
constexpr float kDemodulateFloor = 0.05f;

PKRT_HD Vec3 demodulation_albedo(Vec3 albedo) {
    return Vec3{fmaxf(albedo.x, kDemodulateFloor), fmaxf(albedo.y, kDemodulateFloor),
                fmaxf(albedo.z, kDemodulateFloor)};
}

// The image to denoise and its features (kernels/features.h), a Vec3 a pixel each (depth in every
// component).
struct DenoiseInputs {
    const Vec3 *color, *albedo, *normal, *depth;
};

// Step 1 for pixel i: radiance over albedo, and the guide.
PKRT_HD void denoise_prepare(const DenoiseInputs& in, DenoiseTexel* texel, DenoiseGuide* guide, size_t i) {
    assume_global(texel);
    Vec3 a = demodulation_albedo(in.albedo[i]);
    Vec3 c = in.color[i];
    texel[i] = DenoiseTexel{Vec3{c.x / a.x, c.y / a.y, c.z / a.z}, 0.0f};
    Vec3 n = in.normal[i];
    float len = length(n);
    guide[i] = DenoiseGuide{len > 1e-3f ? pack_guide_normal(n * (1.0f / len)) : 0u, in.depth[i].x};
}

// The guide's depth slope at (x, y): of the two neighbours along each axis the nearer in depth (an
// edge's far side is not the surface's slope).
PKRT_HD float denoise_slope(const DenoiseGuide* g, int w, int h, int x, int y) {
    auto z = [&](int xx, int yy) { return g[static_cast<size_t>(clamp_coord(yy, h)) * w + clamp_coord(xx, w)].depth; };
    float c = z(x, y);
    float dx = fminf(fabsf(z(x + 1, y) - c), fabsf(z(x - 1, y) - c));
    float dy = fminf(fabsf(z(x, y + 1) - c), fabsf(z(x, y - 1) - c));
    return fmaxf(dx, dy);
}

constexpr float kLog2e = 1.44269504f;

// The distances between a window's pixels, in pixels (the square roots of 1, 2, 4, 5, 8, 9, 10, 13, 18):
// a 5x5 window has the first 5, a 7x7 window all 9.
constexpr int kTapDistances = 9;
PKRT_HD float tap_distance(int k) {
    const float d[kTapDistances] = {1.0f, 1.41421356f, 2.0f,        2.23606798f, 2.82842712f,
                                    3.0f, 3.16227766f, 3.60555128f, 4.24264069f};
    return d[k];
}
// The index of the distance of offset (dx, dy) (0 < dx^2 + dy^2 <= 18).
PKRT_HD int tap_distance_index(int dx, int dy) {
    switch (dx * dx + dy * dy) {
        case 1: return 0;
        case 2: return 1;
        case 4: return 2;
        case 5: return 3;
        case 8: return 4;
        case 9: return 5;
        case 10: return 6;
        case 13: return 7;
        default: return 8;
    }
}

// How much a neighbour counts beside the centre from their surfaces alone: the normals' cosine to the
// 8th power, and the depths' difference against sigma_depth of the centre's depth slopes per pixel of
// distance. What the centre's taps share is worked out once: the depth test's scale per distance, so a
// tap costs one exp2 (an exact powf and expf per tap, and then a log2 and a division, were most of the
// GPU filter's time: BENCHMARKS.md, the denoiser's cost).
// Where every sample escaped, a pixel shows the environment itself, which has no noise to take out (and
// its horizon is an edge no feature marks): its normal is 0, so it is never mixed with anything, and a
// sky pixel at the centre keeps its value.
struct SurfaceTest {
    Vec3 normal;
    float depth;
    float depth_scale[kTapDistances];  // log2(e) over the depth test's scale, per tap distance

    // `distances`: how many of the tap distances the window has; `step`: the window's holes.
    PKRT_HD SurfaceTest(const DenoiseGuide& centre, float slope, float step, int distances, const DenoiseParams& s)
        : normal(guide_normal(centre.normal)), depth(centre.depth) {
        const float floor = 1e-4f * fabsf(centre.depth) + 1e-6f;
        for (int k = 0; k < distances; ++k)
            depth_scale[k] = kLog2e / (s.sigma_depth * slope * step * tap_distance(k) + floor);
    }

    // The weight of neighbour q at tap distance k, times exp2(log2_other): the caller's other tests.
    PKRT_HD float weight(const DenoiseGuide& q, int k, float log2_other = 0.0f) const {
        float c = fmaxf(dot(normal, guide_normal(q.normal)), 0.0f);
        for (int i = 0; i < kNormalSquarings; ++i) c *= c;
        return c * exp2f(log2_other - fabsf(depth - q.depth) * depth_scale[k]);
    }
};

// Step 2 at (x, y): the luminance variance around the centre, of its surface's samples (weighted by
// SurfaceTest). SVGF takes a 7x7 window; here one of its four 4x4 quadrants that hold the centre
// (as Kuwahara's filter chooses), so that a pixel beside a light or a shadow's edge, on the same
// surface, is not taken for a noisy one and blurred across it (BENCHMARKS.md, the denoiser).
// With it, from the same weights, `*smooth`: the demodulated luminance through a 3x3 Gaussian of its
// surface's samples, what the first a-trous pass's luminance test compares, so that one sample's spike
// at low spp does not pass for an edge.
PKRT_HD DenoiseTexel denoise_variance(const DenoiseTexel* in, const DenoiseFrame& f, int x, int y,
                                      const DenoiseParams& s, float* smooth) {
    const float k3[3] = {0.25f, 0.5f, 0.25f};
    assume_frame_global(in, f);
    const size_t i = static_cast<size_t>(y) * f.width + x;
    const SurfaceTest surface(f.guide[i], f.slope[i], 1.0f, kTapDistances, s);
    float sum_w[4] = {}, m1[4] = {}, m2[4] = {}, smooth_sum = 0.0f, smooth_w = 0.0f;
#if defined(__CUDA_ARCH__)
#pragma unroll  // each tap's offsets, distance and kernel weight folded to constants
#endif
    for (int tap = 0; tap < 49; ++tap) {
        const int dx = tap % 7 - 3, dy = tap / 7 - 3;
        int qx = x + dx, qy = y + dy;
        if (qx < 0 || qy < 0 || qx >= f.width || qy >= f.height) continue;
        size_t q = static_cast<size_t>(qy) * f.width + qx;
        float w = dx == 0 && dy == 0 ? 1.0f : surface.weight(f.guide[q], tap_distance_index(dx, dy));
        float l = luminance(in[q].rgb);
        if (dx >= -1 && dx <= 1 && dy >= -1 && dy <= 1) {
            float ws = k3[dx + 1] * k3[dy + 1] * w;
            smooth_sum += ws * l;
            smooth_w += ws;
        }
        for (int k = 0; k < 4; ++k) {
            bool in_k = ((k & 1) ? dx >= 0 : dx <= 0) && ((k & 2) ? dy >= 0 : dy <= 0);
            if (!in_k) continue;
            sum_w[k] += w;
            m1[k] += w * l;
            m2[k] += w * l * l;
        }
    }
    *smooth = smooth_sum / smooth_w;
    float v[4];
    for (int k = 0; k < 4; ++k) {  // the centre is in every quadrant (weight 1)
        float mean = m1[k] / sum_w[k];
        v[k] = fmaxf(0.0f, m2[k] / sum_w[k] - mean * mean);
    }
    // The second least: the least alone takes a quadrant of black pixels in a sparse, dark image for
    // one without noise.
    float lo = fminf(v[0], v[1]), hi = fmaxf(v[0], v[1]), lo2 = fminf(v[2], v[3]), hi2 = fmaxf(v[2], v[3]);
    float var = fminf(fmaxf(lo, lo2), fminf(hi, hi2));
    return DenoiseTexel{in[i].rgb, var};
}

// The centre's variance through a 3x3 Gaussian (SVGF: a steadier guide than one pixel's estimate).
PKRT_HD float blurred_variance(const DenoiseTexel* in, int w, int h, int x, int y) {
    const float k[3] = {0.25f, 0.5f, 0.25f};
    float v = 0.0f;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int tap = 0; tap < 9; ++tap) {
        const int dx = tap % 3 - 1, dy = tap / 3 - 1;
        v += k[dx + 1] * k[dy + 1] *
             in[static_cast<size_t>(clamp_coord(y + dy, h)) * w + clamp_coord(x + dx, w)].variance;
    }
    return v;
}

// Step 3, one a-trous pass at (x, y) with holes of `step` pixels.
PKRT_HD DenoiseTexel denoise_atrous(const DenoiseTexel* in, const DenoiseFrame& f, int x, int y, int step,
                                    const DenoiseParams& s) {
    const float kernel[3] = {3.0f / 8.0f, 1.0f / 4.0f, 1.0f / 16.0f};
    assume_frame_global(in, f);
    const size_t i = static_cast<size_t>(y) * f.width + x;
    const DenoiseTexel c = in[i];
    const SurfaceTest surface(f.guide[i], f.slope[i], static_cast<float>(step), 5, s);
    const float lp = test_luminance(f, i, c.rgb);
    const float l_scale = kLog2e / (s.sigma_luminance * sqrtf(blurred_variance(in, f.width, f.height, x, y)) + 1e-6f);
    Vec3 sum = c.rgb * kernel[0] * kernel[0];
    float sum_w = kernel[0] * kernel[0], sum_v = sum_w * sum_w * c.variance;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int tap = 0; tap < 25; ++tap) {
        const int dx = tap % 5 - 2, dy = tap / 5 - 2;
        if (dx == 0 && dy == 0) continue;
        int qx = x + dx * step, qy = y + dy * step;
        if (qx < 0 || qy < 0 || qx >= f.width || qy >= f.height) continue;
        size_t q = static_cast<size_t>(qy) * f.width + qx;
        const DenoiseTexel t = in[q];
        float l_q = test_luminance(f, q, t.rgb);
        float w = kernel[dx < 0 ? -dx : dx] * kernel[dy < 0 ? -dy : dy] *
                  surface.weight(f.guide[q], tap_distance_index(dx, dy), -fabsf(l_q - lp) * l_scale);
        sum += t.rgb * w;
        sum_w += w;
        sum_v += w * w * t.variance;
    }
    return DenoiseTexel{sum * (1.0f / sum_w), sum_v / (sum_w * sum_w)};
}

// The texture back (the last a-trous pass's end).
PKRT_HD Vec3 denoise_finish(Vec3 demodulated, Vec3 albedo) {
    Vec3 a = demodulation_albedo(albedo);
    return Vec3{demodulated.x * a.x, demodulated.y * a.y, demodulated.z * a.z};
}

}  // namespace pkrt
