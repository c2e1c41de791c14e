// The denoiser's temporal step (SVGF, Schied et al. 2017): while the camera moves, each new view starts
// with a handful of samples, so the image to denoise takes in what the views before it left, carried
// to the pixels that show the same surface now. Per pixel of the new view:
//
//   reproject  the pixel's surface point (its depth along the view axis, through the pixel's centre)
//              projected into the previous view; of the four history pixels around that position the
//              ones that show the same surface (normal and depth alike) are blended bilinearly
//   clip       optionally (off: it measured worse on a textured scene, BENCHMARKS.md session 19), the
//              history into the box of the new view's own neighbourhood (the mean of the 3x3 pixels of
//              its surface, +- clip_sigma of their spread, as TAA clips its history): a firefly or a
//              change of light the history holds is not carried on for frames
//   blend      the pixel's own mean and the history's, each weighted by the samples behind it, the
//              history's capped (SVGF's exponential moving average, counted in samples): an old view's
//              error, blurred by each reprojection, fades within a few frames
//
// Both work on demodulated radiance (kernels/denoise.h), so a texture moves with its surface and is
// never smeared by the history. The blend keeps its sample count, which the next view's blend weighs.
#pragma once

#include "kernels/denoise.h"
#include "kernels/shading/camera.h"

namespace pkrt {

// The history a view leaves for the next: its demodulated radiance, the surfaces it shows (with their
// depth slopes, denoise_slope), and how many samples stand behind each pixel (0: none).
struct TemporalFrame {
    CameraView camera;
    int width, height;  // 0: no history (the first view)
    const DenoiseTexel* radiance;
    const DenoiseGuide* guide;
    const float* slope;
    const float* samples;
};

struct TemporalParams {
    float max_history = 8.0f;       // samples the history counts for at most (SVGF's alpha 0.2 is ~4 frames)
    float min_cos = 0.9f;           // normals this alike show the same surface
    float depth_tolerance = 0.03f;  // relative to the depth, plus the history pixel's depth slope
    bool clip = false;              // clip the history: off, as it measured worse on a textured scene
    float clip_sigma = 2.0f;        // the history's box: the neighbourhood's mean +- this many deviations
    float clip_min_weight = 4.0f;   // a box of fewer same-surface samples' weight (the centre's is 1) clips nothing
};

struct TemporalSample {
    Vec3 radiance;
    float samples;  // 0: nothing in the history shows this pixel's surface
};

// Where `point` lands in `c`'s image of width x height, in pixels (pixel (x, y)'s centre at x, y), and
// its depth along the view axis; false behind the camera. The inverse of camera_ray's pinhole ray.
PKRT_HD bool project_point(const CameraView& c, int width, int height, Vec3 point, float& px, float& py, float& z) {
    Vec3 v = point - c.eye;
    z = dot(v, c.forward);
    if (!(z > 1e-6f)) return false;
    float sx = dot(v, c.right) / (z * c.tan_half_fov_y * c.aspect);
    float sy = dot(v, c.up) / (z * c.tan_half_fov_y);
    px = (sx + 1.0f) * 0.5f * static_cast<float>(width) - 0.5f;
    py = (1.0f - sy) * 0.5f * static_cast<float>(height) - 0.5f;
    return true;
}

// The surface point pixel (x, y) of `c` shows at view-axis depth `depth` (through the pixel's centre).
PKRT_HD Vec3 unproject_pixel(const CameraView& c, int width, int height, int x, int y, float depth) {
    float sx = (2.0f * (static_cast<float>(x) + 0.5f) / static_cast<float>(width) - 1.0f) * c.tan_half_fov_y * c.aspect;
    float sy = (1.0f - 2.0f * (static_cast<float>(y) + 0.5f) / static_cast<float>(height)) * c.tan_half_fov_y;
    return c.eye + (c.forward + c.right * sx + c.up * sy) * depth;
}

// The history at pixel (x, y) of the view `camera` (width x height), whose surface is `g`.
PKRT_HD TemporalSample temporal_reproject(const TemporalFrame& prev, const CameraView& camera, int width, int height,
                                          int x, int y, const DenoiseGuide& g, const TemporalParams& p) {
    TemporalSample none{splat(0.0f), 0.0f};
    if (g.normal == 0u || !(g.depth > 0.0f)) return none;  // the sky: nothing to carry
    const Vec3 n = guide_normal(g.normal);
    float px, py, z;
    if (!project_point(prev.camera, prev.width, prev.height, unproject_pixel(camera, width, height, x, y, g.depth), px,
                       py, z))
        return none;
    if (!(px > -1.0f && py > -1.0f && px < static_cast<float>(prev.width) && py < static_cast<float>(prev.height)))
        return none;
    int x0 = static_cast<int>(floorf(px)), y0 = static_cast<int>(floorf(py));
    float fx = px - static_cast<float>(x0), fy = py - static_cast<float>(y0);
    Vec3 sum = splat(0.0f);
    float sum_w = 0.0f, sum_n = 0.0f;
    for (int k = 0; k < 4; ++k) {
        int qx = x0 + (k & 1), qy = y0 + (k >> 1);
        if (qx < 0 || qy < 0 || qx >= prev.width || qy >= prev.height) continue;
        float w = ((k & 1) ? fx : 1.0f - fx) * ((k >> 1) ? fy : 1.0f - fy);
        if (!(w > 0.0f)) continue;
        size_t q = static_cast<size_t>(qy) * prev.width + qx;
        const DenoiseGuide h = prev.guide[q];
        if (!(prev.samples[q] > 0.0f) || dot(guide_normal(h.normal), n) < p.min_cos) continue;
        if (fabsf(h.depth - z) > p.depth_tolerance * z + 2.0f * prev.slope[q]) continue;
        sum += prev.radiance[q].rgb * w;
        sum_n += prev.samples[q] * w;
        sum_w += w;
    }
    // A history of a sliver of the footprint (one tap at the far corner) is too little to trust.
    if (!(sum_w > 0.05f)) return none;
    return TemporalSample{sum * (1.0f / sum_w), sum_n / sum_w};
}

// The box the history at (x, y) is clipped to: per channel, the mean of the new view's demodulated
// radiance over the 3x3 pixels of the centre's surface that hold samples (each weighted by
// SurfaceTest), +- clip_sigma standard deviations of a pixel's value about it. False where those
// pixels weigh less than clip_min_weight: a box of the centre's one or two samples says nothing of
// the history, and would throw it away.
PKRT_HD bool temporal_clip_box(const DenoiseTexel* now, const float* samples, const DenoiseGuide* guide,
                               const float* slope, int width, int height, int x, int y, const TemporalParams& p,
                               Vec3& lo, Vec3& hi) {
    const size_t i = static_cast<size_t>(y) * width + x;
    const SurfaceTest surface(guide[i], slope[i], 1.0f, 2, DenoiseParams{});
    Vec3 m1 = splat(0.0f), m2 = splat(0.0f);
    float sum_w = 0.0f;
    for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
            int qx = x + dx, qy = y + dy;
            if (qx < 0 || qy < 0 || qx >= width || qy >= height) continue;
            size_t q = static_cast<size_t>(qy) * width + qx;
            if (!(samples[q] > 0.0f)) continue;
            float w = dx == 0 && dy == 0 ? 1.0f : surface.weight(guide[q], tap_distance_index(dx, dy));
            Vec3 c = now[q].rgb;
            m1 += c * w;
            m2 += Vec3{c.x * c.x, c.y * c.y, c.z * c.z} * w;
            sum_w += w;
        }
    if (!(sum_w >= p.clip_min_weight)) return false;
    Vec3 mean = m1 * (1.0f / sum_w), sq = m2 * (1.0f / sum_w);
    Vec3 sigma{sqrtf(fmaxf(0.0f, sq.x - mean.x * mean.x)), sqrtf(fmaxf(0.0f, sq.y - mean.y * mean.y)),
               sqrtf(fmaxf(0.0f, sq.z - mean.z * mean.z))};
    lo = mean - sigma * p.clip_sigma;
    hi = mean + sigma * p.clip_sigma;
    return true;
}

// The pixel's radiance (`samples` of them averaged) blended with its history; `samples` becomes the
// blend's count.
PKRT_HD Vec3 temporal_blend(Vec3 radiance, float& samples, const TemporalSample& h, const TemporalParams& p) {
    float n_h = fminf(h.samples, p.max_history);
    float n = samples + n_h;
    if (!(n > 0.0f)) return radiance;
    Vec3 out = (radiance * samples + h.radiance * n_h) * (1.0f / n);
    samples = n;
    return out;
}

// The temporal step over a view's buffers: a step of the denoiser (kernels/denoise_steps.h) between the
// slope and the variance, or the CPU's TemporalHistory (render/denoise/temporal.h) on its own.
struct TemporalBuffers {
    TemporalFrame prev;    // the history (prev.width 0: none, and the blend is the view's own)
    CameraView camera;     // the view being blended
    const float* samples;  // its own samples per pixel
    DenoiseTexel* blend;   // the blend's demodulated radiance: the next view's history
    float* blend_samples;  // and the samples behind it
    unsigned* reused;      // null, or a count the GPU's runners add the pixels that took a history to
    TemporalParams params;
};

// Pixel (x, y)'s blend, from the view's own demodulated radiance `own` and its surfaces (guide,
// slope). True where it took something from the history.
PKRT_HD bool temporal_pixel(const TemporalBuffers& t, const DenoiseTexel* own, const DenoiseGuide* guide,
                            const float* slope, int width, int height, int x, int y) {
    assume_global(own, guide, slope, t.samples, t.blend, t.blend_samples);
    const size_t i = static_cast<size_t>(y) * width + x;
    Vec3 r = own[i].rgb;
    float n = t.samples[i];
    bool reused = false;
    if (t.prev.width > 0) {
        assume_global(t.prev.radiance, t.prev.guide, t.prev.slope, t.prev.samples);
        TemporalSample s = temporal_reproject(t.prev, t.camera, width, height, x, y, guide[i], t.params);
        Vec3 lo, hi;
        if (s.samples > 0.0f) {
            reused = true;
            if (t.params.clip && temporal_clip_box(own, t.samples, guide, slope, width, height, x, y, t.params, lo, hi))
                s.radiance = vmin(vmax(s.radiance, lo), hi);
        }
        r = temporal_blend(r, n, s, t.params);
    }
    t.blend[i] = DenoiseTexel{r, 0.0f};
    t.blend_samples[i] = n;
    return reused;
}

}  // namespace pkrt
