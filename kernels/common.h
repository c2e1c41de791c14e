// Shared per-ray code is compiled twice: by the host compiler for the CPU backend and by nvcc for the
// GPU. Everything in kernels/ that both use is marked PKRT_HD and must stay free of host-only things
// (files, exceptions, std containers), so the two backends run the very same arithmetic.
#pragma once

#include <cmath>
#include <cstdint>

#if defined(__CUDACC__)
#define PKRT_HD __host__ __device__ __forceinline__
// For large, branch-specific code (the glass and metal BSDFs): one out-of-line copy in a kernel instead
// of one per call site keeps the kernels small enough for the instruction cache.
#define PKRT_HD_OUTLINE inline __host__ __device__ __noinline__
#define PKRT_DEVICE __device__
#else
#define PKRT_HD inline
#define PKRT_HD_OUTLINE inline
#define PKRT_DEVICE
#endif

namespace pkrt {

constexpr float kPi = 3.14159265358979323846f;
constexpr float kInvPi = 0.31830988618379067154f;
constexpr float kInv4Pi = 0.07957747154594766788f;
constexpr float kInfinity = 3.402823466e+38f;  // FLT_MAX: usable as "no hit yet" in comparisons

// Ray and path limits shared by the scheduler and the CPU loop.
constexpr int kMaxTraversalStack = 64;
constexpr int kRussianRouletteDepth = 3;

PKRT_HD bool is_finite(float x) {
#if defined(__CUDA_ARCH__)
    return isfinite(x);
#else
    return __builtin_isfinite(x);
#endif
}

// sin and cos of an angle known to lie in [-2pi, 2pi] (sampling angles). On the GPU the hardware
// approximation (about 2^-21 absolute error there) replaces sinf/cosf, whose argument reduction for
// huge angles would otherwise be inlined at every call site: kilobytes of code that the shading
// kernels' instruction cache cannot afford.
PKRT_HD void sincos_angle(float x, float* s, float* c) {
#if defined(__CUDA_ARCH__)
    __sincosf(x, s, c);
#else
    *s = sinf(x);
    *c = cosf(x);
#endif
}

// Tells the compiler that each pointer points into global memory. It knows a kernel's parameters are global, but
// not pointers read from memory (the resident grid's jobs), and its loads through those were generic
// ones (BENCHMARKS.md, session 24). Only for pointers that are never null nor shared or local.
template <class... T> PKRT_HD void assume_global(const T*... p) {
#if defined(__CUDA_ARCH__)
    (__builtin_assume(__isGlobal(p)), ...);
#else
    ((void)p, ...);
#endif
}

PKRT_HD float min_f(float a, float b) { return a < b ? a : b; }
PKRT_HD float max_f(float a, float b) { return a > b ? a : b; }

// Minimum and maximum as IEEE minNum/maxNum (a NaN operand yields the other one): one FMNMX instruction
// on the GPU, where min_f's comparison and select are two (its NaN rule is not FMNMX's). The box tests
// use these: compare-and-select pairs were 38% of the persistent kernel's instructions, mostly theirs
// (Nsight Compute, session 6). The host computes the same values, so CPU and GPU traversals agree.
PKRT_HD float min_num(float a, float b) {
#if defined(__CUDA_ARCH__)
    return fminf(a, b);
#else
    return (a < b || b != b) ? a : b;
#endif
}
PKRT_HD float max_num(float a, float b) {
#if defined(__CUDA_ARCH__)
    return fmaxf(a, b);
#else
    return (a > b || b != b) ? a : b;
#endif
}
PKRT_HD float clamp_f(float x, float lo, float hi) { return x < lo ? lo : (x > hi ? hi : x); }
PKRT_HD int min_i(int a, int b) { return a < b ? a : b; }
PKRT_HD int max_i(int a, int b) { return a > b ? a : b; }

}  // namespace pkrt
