// The queue records' fields, packed into and out of 16-byte rows in one place. The GPU moves records
// as whole rows (one vector access each, kernels/gpu/gpu_queue.cuh); the host can run the same packing, so
// a unit test round-trips every field (tests/kernels/test_records.cpp) and a field added to a record without a
// row to travel in fails it.
#pragma once

#include "kernels/gpu/gpu_records.h"

namespace pkrt {

struct alignas(16) Row16 {
    float x, y, z, w;
};

PKRT_HD float bits_f(uint32_t u) {
#if defined(__CUDA_ARCH__)
    return __uint_as_float(u);
#else
    float f;
    __builtin_memcpy(&f, &u, sizeof f);
    return f;
#endif
}

PKRT_HD uint32_t bits_u(float f) {
#if defined(__CUDA_ARCH__)
    return __float_as_uint(f);
#else
    uint32_t u;
    __builtin_memcpy(&u, &f, sizeof u);
    return u;
#endif
}

constexpr int kPathRows = sizeof(PathRecord) / sizeof(Row16);
constexpr int kShadowRows = sizeof(ShadowRecord) / sizeof(Row16);

PKRT_HD void pack_rows(const PathRecord& r, Row16 (&rows)[kPathRows]) {
    const PathState& p = r.path;
    unsigned long long st = p.rng.state;
    rows[0] = Row16{p.origin.x, p.origin.y, p.origin.z, p.dir.x};
    rows[1] = Row16{p.dir.y, p.dir.z, p.throughput.x, p.throughput.y};
    rows[2] = Row16{p.throughput.z, bits_f(p.pixel), bits_f(static_cast<uint32_t>(st)),
                    bits_f(static_cast<uint32_t>(st >> 32))};
    uint32_t depth_flags = static_cast<uint16_t>(p.depth) | (static_cast<uint32_t>(p.flags) << 16);
    rows[3] = Row16{bits_f(depth_flags), p.prev_pdf, bits_f(r.sample), 0.0f};
}

PKRT_HD void unpack_rows(const Row16 (&rows)[kPathRows], PathRecord& r) {
    const Row16 &a = rows[0], &b = rows[1], &c = rows[2], &d = rows[3];
    PathState& p = r.path;
    p.origin = {a.x, a.y, a.z};
    p.dir = {a.w, b.x, b.y};
    p.throughput = {b.z, b.w, c.x};
    p.pixel = bits_u(c.y);
    p.rng.state = static_cast<unsigned long long>(bits_u(c.z)) | (static_cast<unsigned long long>(bits_u(c.w)) << 32);
    uint32_t depth_flags = bits_u(d.x);
    p.depth = static_cast<int16_t>(depth_flags & 0xffffu);
    p.flags = static_cast<uint16_t>(depth_flags >> 16);
    p.prev_pdf = d.y;
    r.sample = bits_u(d.z);
    r.pad = 0;
}

PKRT_HD void pack_rows(const ShadowRecord& r, Row16 (&rows)[kShadowRows]) {
    const ShadowRay& s = r.ray;
    rows[0] = Row16{s.origin.x, s.origin.y, s.origin.z, s.dir.x};
    rows[1] = Row16{s.dir.y, s.dir.z, s.tmax, s.contribution.x};
    rows[2] = Row16{s.contribution.y, s.contribution.z, bits_f(s.pixel), bits_f(r.depth)};
}

PKRT_HD void unpack_rows(const Row16 (&rows)[kShadowRows], ShadowRecord& r) {
    const Row16 &a = rows[0], &b = rows[1], &c = rows[2];
    ShadowRay& s = r.ray;
    s.origin = {a.x, a.y, a.z};
    s.dir = {a.w, b.x, b.y};
    s.tmax = b.z;
    s.contribution = {b.w, c.x, c.y};
    s.pixel = bits_u(c.z);
    r.depth = bits_u(c.w);
}

}  // namespace pkrt
