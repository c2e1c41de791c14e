// The denoiser (kernels/denoise.h) as one sequence of steps over an image's buffers, each step a pass over
// every pixel that reads only what the steps before it wrote. One definition for every runner: the CPU's
// rows (render/denoise/), the GPU's kernels, a kernel each (kernels/gpu/denoise.cu), and the resident
// kernel's sweeps (kernels/gpu/resident.cuh), which denoise without another kernel on the GPU.
#pragma once

#include "kernels/denoise.h"
#include "kernels/denoise_temporal.h"

namespace pkrt {

struct DenoiseBuffers {
    DenoiseInputs in;     // the image and its features, width x height each
    DenoiseTexel *a, *b;  // ping-pong
    DenoiseGuide* guide;
    float* slope;
    float* smooth;  // the first pass's luminance (denoise_variance)
    Vec3* out;
    // on: SVGF's temporal step after the slope, and the variance and a-trous passes filter its blend
    // (a viewer's moving camera: render/denoise/view_denoiser.h). guide and slope are then the view's
    // own, kept as the next view's history.
    TemporalBuffers temporal;
};

// prepare, slope, [temporal,] variance, the a-trous passes, finish.
PKRT_HD int denoise_step_count(int iterations, bool temporal) { return 4 + (temporal ? 1 : 0) + iterations; }
PKRT_HD int denoise_step_count(const DenoiseBuffers& b, const DenoiseParams& params) {
    return denoise_step_count(params.iterations, b.temporal.on != 0);
}

enum class DenoiseStep { kPrepare, kSlope, kTemporal, kVariance, kAtrous, kFinish };

PKRT_HD DenoiseStep denoise_step_kind(int step, const DenoiseBuffers& b, const DenoiseParams& params) {
    if (step < 2) return static_cast<DenoiseStep>(step);
    if (b.temporal.on) {
        if (step == 2) return DenoiseStep::kTemporal;
        --step;
    }
    return step == 2 ? DenoiseStep::kVariance
                     : (step - 3 < params.iterations ? DenoiseStep::kAtrous : DenoiseStep::kFinish);
}

template <DenoiseStep K> struct DenoiseStepKind { static constexpr DenoiseStep value = K; };

// Calls fn(DenoiseStepKind<K>{}) with the kind K of step `step`: each runner picks its code for that kind
// at compile time (the step itself, a kernel, the resident kernel's function).
template <class Fn>
PKRT_HD void with_denoise_step_kind(int step, const DenoiseBuffers& b, const DenoiseParams& params, Fn&& fn) {
    switch (denoise_step_kind(step, b, params)) {
        case DenoiseStep::kPrepare: fn(DenoiseStepKind<DenoiseStep::kPrepare>{}); break;
        case DenoiseStep::kSlope: fn(DenoiseStepKind<DenoiseStep::kSlope>{}); break;
        case DenoiseStep::kTemporal: fn(DenoiseStepKind<DenoiseStep::kTemporal>{}); break;
        case DenoiseStep::kVariance: fn(DenoiseStepKind<DenoiseStep::kVariance>{}); break;
        case DenoiseStep::kAtrous: fn(DenoiseStepKind<DenoiseStep::kAtrous>{}); break;
        default: fn(DenoiseStepKind<DenoiseStep::kFinish>{}); break;
    }
}

// Step `step` (0 .. denoise_step_count - 1), of kind K, for pixel (x, y). The kind is a template
// argument so that a GPU kernel holds one step's code only (as one kernel for all, the filter took 9%
// longer: BENCHMARKS.md, session 21). True where the temporal step took something from the history
// (the runner counts those pixels in b.temporal.reused).
template <DenoiseStep K>
PKRT_HD bool denoise_step_as(const DenoiseBuffers& b, int w, int h, const DenoiseParams& params, int step, int x,
                             int y) {
    const size_t i = static_cast<size_t>(y) * w + x;
    const int pass = step - (b.temporal.on ? 4 : 3);  // a-trous pass; they alternate a -> b, b -> a
    if constexpr (K == DenoiseStep::kPrepare) {
        denoise_prepare(b.in, b.b, b.guide, i);
    } else if constexpr (K == DenoiseStep::kSlope) {
        b.slope[i] = denoise_slope(b.guide, w, h, x, y);
    } else if constexpr (K == DenoiseStep::kTemporal) {
        return temporal_pixel(b.temporal, b.b, b.guide, b.slope, w, h, x, y);
    } else if constexpr (K == DenoiseStep::kVariance) {
        const DenoiseTexel* in = b.temporal.on ? b.temporal.blend : b.b;
        b.a[i] = denoise_variance(in, DenoiseFrame{w, h, b.guide, b.slope, nullptr}, x, y, params, &b.smooth[i]);
    } else if constexpr (K == DenoiseStep::kAtrous) {
        const DenoiseFrame f{w, h, b.guide, b.slope, pass == 0 ? b.smooth : nullptr};
        (pass & 1 ? b.a : b.b)[i] = denoise_atrous(pass & 1 ? b.b : b.a, f, x, y, 1 << pass, params);
    } else {
        b.out[i] = denoise_finish(params.iterations & 1 ? b.b : b.a, b.in, i);
    }
    return false;
}

PKRT_HD bool denoise_step(const DenoiseBuffers& b, int w, int h, const DenoiseParams& params, int step, int x, int y) {
    bool reused = false;
    with_denoise_step_kind(step, b, params, [&](auto kind) {
        reused = denoise_step_as<decltype(kind)::value>(b, w, h, params, step, x, y);
    });
    return reused;
}

}  // namespace pkrt
