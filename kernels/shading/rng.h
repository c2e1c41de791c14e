// Per-path random numbers. Each (pixel, sample, seed) gets its own PCG32 stream whose state travels
// with the path through every queue, so a path draws the same numbers whichever backend, scheduler,
// warp or thread runs it: the CPU and GPU renders agree sample for sample.
#pragma once

#include "kernels/common.h"

namespace pkrt {

// Bijective 32-bit mix (Wellons' "lowbias32"); used only to derive stream seeds.
PKRT_HD uint32_t hash_u32(uint32_t x) {
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

PKRT_HD uint64_t hash_u64(uint64_t x) {  // splitmix64 finaliser
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

// PCG32 (O'Neill 2014), XSH-RR output. One fixed odd increment: streams differ by their start state,
// which is a 64-bit hash of (seed, pixel, sample) so neighbouring pixels are decorrelated.
struct Rng {
    uint64_t state;

    static constexpr uint64_t kMultiplier = 6364136223846793005ULL;
    static constexpr uint64_t kIncrement = 1442695040888963407ULL;

    PKRT_HD uint32_t next_u32() {
        uint64_t old = state;
        state = old * kMultiplier + kIncrement;
        uint32_t xorshifted = static_cast<uint32_t>(((old >> 18u) ^ old) >> 27u);
        uint32_t rot = static_cast<uint32_t>(old >> 59u);
        return (xorshifted >> rot) | (xorshifted << ((32u - rot) & 31u));
    }

    // Uniform in [0, 1): 24 random mantissa bits, so 1.0 is never returned.
    PKRT_HD float next_float() { return static_cast<float>(next_u32() >> 8) * 0x1p-24f; }
};

PKRT_HD Rng make_rng(uint32_t seed, uint32_t pixel, uint32_t sample) {
    uint64_t key = (static_cast<uint64_t>(pixel) << 32) | sample;
    Rng r;
    r.state = hash_u64(key ^ hash_u64(0x9e3779b97f4a7c15ULL + seed));
    r.next_u32();  // step once so the first output depends on the whole key through the LCG as well
    return r;
}

}  // namespace pkrt
