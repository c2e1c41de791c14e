// IEEE 754 binary16 <-> binary32 by bit manipulation: the U-Net's weight file stores fp16 (half the size,
// and what PyTorch's exporter writes with numpy's float16), and no Debian package offers a small
// host-only converter. Every finite half converts to a float exactly; floats round to the nearest half,
// ties to even, as numpy does.
#pragma once

#include <cstdint>
#include <cstring>

namespace pkrt {

inline float half_to_float(uint16_t h) {
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    const uint32_t exponent = (h >> 10) & 0x1fu;
    uint32_t mantissa = h & 0x3ffu;
    uint32_t bits;
    if (exponent == 0x1f) {
        bits = sign | 0x7f800000u | (mantissa << 13);  // Inf, NaN (payload kept)
    } else if (exponent != 0) {
        bits = sign | ((exponent + 112u) << 23) | (mantissa << 13);  // 112 = 127 - 15
    } else if (mantissa == 0) {
        bits = sign;
    } else {
        // Subnormal half: normalise, a float holds every one of them as a normal number.
        uint32_t e = 113;  // the exponent of 2^-14, the subnormals' scale, in float bias
        while (!(mantissa & 0x400u)) {
            mantissa <<= 1;
            --e;
        }
        bits = sign | (e << 23) | ((mantissa & 0x3ffu) << 13);
    }
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

inline uint16_t float_to_half(float f) {
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
    const uint32_t abs = bits & 0x7fffffffu;
    if (abs >= 0x7f800000u)  // Inf stays Inf; NaN stays a (quiet) NaN
        return static_cast<uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u | ((abs >> 13) & 0x3ffu) : 0u));
    if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds past 65504: Inf
    if (abs < 0x38800000u) {
        // Below the smallest normal half (2^-14): a subnormal half, units of 2^-24, rounded to even.
        if (abs < 0x33000000u) return sign;  // at most 2^-25, half the smallest subnormal: rounds to 0
        const uint32_t mantissa = (abs & 0x7fffffu) | 0x800000u;
        const int shift = 126 - static_cast<int>(abs >> 23);  // 14..24
        uint32_t result = mantissa >> shift;
        const uint32_t rest = mantissa & ((1u << shift) - 1), halfway = 1u << (shift - 1);
        if (rest > halfway || (rest == halfway && (result & 1u))) ++result;
        return static_cast<uint16_t>(sign | result);
    }
    // Normal: rebias the exponent and round the 13 dropped mantissa bits to even (a carry may bump the
    // exponent, correctly).
    uint32_t result = ((abs >> 13) - (112u << 10));
    const uint32_t rest = abs & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (result & 1u))) ++result;
    return static_cast<uint16_t>(sign | result);
}

}  // namespace pkrt
