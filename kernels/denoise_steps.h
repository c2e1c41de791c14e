// The denoiser (kernels/denoise.h) as one sequence of steps over an image's buffers, each step a pass over
// every pixel that reads only what the steps before it wrote. One definition for every runner: the CPU's
// rows (render/denoise/), the GPU's kernels, a kernel each (kernels/gpu/denoise.cu), and the resident
// kernel's sweeps (kernels/gpu/resident.cuh), which denoise without another kernel on the GPU.
#pragma once

#include "kernels/denoise.h"
#include "kernels/denoise_temporal.h"
#include "kernels/features.h"

namespace pkrt {

// Where a view's image is resolved to: the denoiser's inputs (DenoiseInputs' arrays) and each pixel's
// samples, for the temporal step.
struct DenoiseResolveTo {
    Vec3 *color, *albedo, *normal, *depth;
    float* samples;
};

// Pixel i resolved from its radiance sum, its samples and its feature sums (kFeatureFloats).
PKRT_HD void denoise_resolve_pixel(const DenoiseResolveTo& to, size_t i, Vec3 sum, float samples,
                                   const float* features) {
    to.color[i] = sum * (samples > 0.0f ? 1.0f / samples : 0.0f);
    to.samples[i] = samples;
    float depth;
    resolve_feature_pixel(features, samples, to.albedo[i], to.normal[i], depth);
    to.depth[i] = splat(depth);
}

// A packed image to resolve first (a resident grid's snapshot: RGBA sums and samples, then the feature
// sums, kFeatureFloats a pixel).
struct DenoiseResolve {
    const float* rgba;  // null: the inputs are there already
    const float* features;
    DenoiseResolveTo to;
};

PKRT_HD void denoise_resolve(const DenoiseResolve& r, size_t i) {
    assume_global(r.rgba, r.features, r.to.color, r.to.albedo, r.to.normal, r.to.depth, r.to.samples);
    const float* p = r.rgba + 4 * i;
    denoise_resolve_pixel(r.to, i, Vec3{p[0], p[1], p[2]}, p[3], r.features + kFeatureFloats * i);
}

struct DenoiseViewSteps {
    DenoiseResolve resolve;
    TemporalBuffers temporal;
};

struct DenoiseBuffers {
    DenoiseInputs in;     // the image and its features, width x height each
    DenoiseTexel *a, *b;  // ping-pong
    DenoiseGuide* guide;
    float* slope;
    float* smooth;  // the first pass's luminance (denoise_variance)
    Vec3* out;
    // Where set, the result again as RGBA32F (a = 1), 16-byte aligned: the display's texels, copied out by
    // the copy engines beside a resident grid.
    float* rgba;
    // A viewer's steps (render/denoise/view_denoiser.h), each where its flag is set: a resolve of a
    // packed image first, and SVGF's temporal step after the slope, whose blend the variance and a-trous
    // passes then filter (guide and slope are the view's own, kept as the next view's history). Their
    // buffers are behind a pointer (device memory on a GPU), so that the job a resident grid copies
    // stays small (BENCHMARKS.md, session 22).
    int resolve_first, temporal;
    const DenoiseViewSteps* view;
};

// Prepare (after the resolve where asked), slope, [temporal,] variance, the a-trous passes (at least one:
// the last also brings the texture back). A step reads its neighbours' values of the steps before; what
// needs only the pixel's own is done in the step before it, one pass over the image fewer each
// (BENCHMARKS.md, session 24).
PKRT_HD int denoise_step_count(int iterations, bool temporal) { return 3 + (temporal ? 1 : 0) + iterations; }
PKRT_HD int denoise_step_count(const DenoiseBuffers& b, const DenoiseParams& params) {
    return denoise_step_count(params.iterations, b.temporal != 0);
}
// The first a-trous pass's step.
PKRT_HD int denoise_first_pass(const DenoiseBuffers& b) { return 3 + (b.temporal ? 1 : 0); }

enum class DenoiseStep { kPrepare, kSlope, kTemporal, kVariance, kAtrous };

PKRT_HD DenoiseStep denoise_step_kind(int step, const DenoiseBuffers& b) {
    if (step < 2) return step == 0 ? DenoiseStep::kPrepare : DenoiseStep::kSlope;
    if (b.temporal) {
        if (step == 2) return DenoiseStep::kTemporal;
        --step;
    }
    return step == 2 ? DenoiseStep::kVariance : DenoiseStep::kAtrous;
}

template <DenoiseStep K> struct DenoiseStepKind { static constexpr DenoiseStep value = K; };

// Calls fn(DenoiseStepKind<K>{}) with the kind K of step `step`: each runner picks its code for that kind
// at compile time (the step itself, a kernel).
template <class Fn> PKRT_HD void with_denoise_step_kind(int step, const DenoiseBuffers& b, Fn&& fn) {
    switch (denoise_step_kind(step, b)) {
        case DenoiseStep::kPrepare: fn(DenoiseStepKind<DenoiseStep::kPrepare>{}); break;
        case DenoiseStep::kSlope: fn(DenoiseStepKind<DenoiseStep::kSlope>{}); break;
        case DenoiseStep::kTemporal: fn(DenoiseStepKind<DenoiseStep::kTemporal>{}); break;
        case DenoiseStep::kVariance: fn(DenoiseStepKind<DenoiseStep::kVariance>{}); break;
        default: fn(DenoiseStepKind<DenoiseStep::kAtrous>{}); break;
    }
}

// Step `step` (0 .. denoise_step_count - 1), of kind K, for pixel (x, y). The kind is a template
// argument so that a GPU kernel holds one step's code only (as one kernel for all, the filter took 9%
// longer: BENCHMARKS.md, session 21). True where the temporal step took something from the history
// (the GPU's runners count those pixels in b.view->temporal.reused).
template <DenoiseStep K>
PKRT_HD bool denoise_step_as(const DenoiseBuffers& b, int w, int h, const DenoiseParams& params, int step, int x,
                             int y) {
    const size_t i = static_cast<size_t>(y) * w + x;
    const int pass = step - denoise_first_pass(b);  // a-trous pass; they alternate a -> b, b -> a
    assume_global(b.in.color, b.in.albedo, b.in.normal, b.in.depth, b.a, b.b, b.guide, b.slope, b.smooth, b.out);
    if constexpr (K == DenoiseStep::kPrepare) {
        if (b.resolve_first) {
            assume_global(b.view);
            denoise_resolve(b.view->resolve, i);
        }
        denoise_prepare(b.in, b.temporal ? b.a : b.b, b.guide, i);
    } else if constexpr (K == DenoiseStep::kSlope) {
        b.slope[i] = denoise_slope(b.guide, w, h, x, y);
    } else if constexpr (K == DenoiseStep::kTemporal) {
        assume_global(b.view);
        // The view's own texels in a, its blend into b: the variance step reads b either way (a choice
        // of its input doubled its register spills in the resident kernel).
        const bool reused = temporal_pixel(b.view->temporal, b.a, b.guide, b.slope, w, h, x, y);
        b.b[i] = b.view->temporal.blend[i];
        return reused;
    } else if constexpr (K == DenoiseStep::kVariance) {
        b.a[i] = denoise_variance(b.b, DenoiseFrame{w, h, b.guide, b.slope, nullptr}, x, y, params, &b.smooth[i]);
    } else {
        const DenoiseFrame f{w, h, b.guide, b.slope, pass == 0 ? b.smooth : nullptr};
        const DenoiseTexel t = denoise_atrous(pass & 1 ? b.b : b.a, f, x, y, 1 << pass, params);
        if (pass + 1 < params.iterations) {
            DenoiseTexel* to = pass & 1 ? b.a : b.b;
            assume_global(to);
            to[i] = t;
            return false;
        }
        const Vec3 v = denoise_finish(t.rgb, b.in.albedo[i]);
        b.out[i] = v;
        if (b.rgba) {
#if defined(__CUDA_ARCH__)
            reinterpret_cast<float4*>(b.rgba)[i] = make_float4(v.x, v.y, v.z, 1.0f);
#else
            float* p = b.rgba + 4 * i;
            p[0] = v.x;
            p[1] = v.y;
            p[2] = v.z;
            p[3] = 1.0f;
#endif
        }
    }
    return false;
}

PKRT_HD bool denoise_step(const DenoiseBuffers& b, int w, int h, const DenoiseParams& params, int step, int x, int y) {
    bool reused = false;
    with_denoise_step_kind(
        step, b, [&](auto kind) { reused = denoise_step_as<decltype(kind)::value>(b, w, h, params, step, x, y); });
    return reused;
}

}  // namespace pkrt
