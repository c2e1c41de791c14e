// Albedo textures: 8-bit sRGB RGBA texels, decoded to linear before bilinear filtering, repeat wrap.
// On the GPU a CUDA texture object with sRGB decode and linear filtering does the same in hardware.
#pragma once

#include "vec3.h"

namespace pkrt {

struct TextureView {
    const uint32_t* texels;       // host or device pointer, RGBA8, row 0 at the top of the image
    int32_t width, height;
    unsigned long long object;    // cudaTextureObject_t on the GPU, 0 when sampling in software
};

PKRT_HD float srgb_to_linear(float c) {
    return c <= 0.04045f ? c * (1.0f / 12.92f) : powf((c + 0.055f) * (1.0f / 1.055f), 2.4f);
}

PKRT_HD Vec3 texel_linear(const TextureView& t, int x, int y) {
    uint32_t p = t.texels[static_cast<size_t>(y) * t.width + x];
    return {srgb_to_linear(static_cast<float>(p & 0xffu) * (1.0f / 255.0f)),
            srgb_to_linear(static_cast<float>((p >> 8) & 0xffu) * (1.0f / 255.0f)),
            srgb_to_linear(static_cast<float>((p >> 16) & 0xffu) * (1.0f / 255.0f))};
}

PKRT_HD int wrap_index(int i, int n) {
    int r = i % n;
    return r < 0 ? r + n : r;
}

// OBJ texture coordinates have v up; images are stored top row first.
PKRT_HD Vec3 texture_sample_software(const TextureView& t, float u, float v) {
    u -= floorf(u);  // repeat; also keeps huge coordinates from overflowing the integer texel index
    v -= floorf(v);
    float x = u * static_cast<float>(t.width) - 0.5f;
    float y = (1.0f - v) * static_cast<float>(t.height) - 0.5f;
    float fx = floorf(x), fy = floorf(y);
    float ax = x - fx, ay = y - fy;
    int x0 = static_cast<int>(fx), y0 = static_cast<int>(fy);
    int xa = wrap_index(x0, t.width), xb = wrap_index(x0 + 1, t.width);
    int ya = wrap_index(y0, t.height), yb = wrap_index(y0 + 1, t.height);
    Vec3 top = lerp(texel_linear(t, xa, ya), texel_linear(t, xb, ya), ax);
    Vec3 bottom = lerp(texel_linear(t, xa, yb), texel_linear(t, xb, yb), ax);
    return lerp(top, bottom, ay);
}

PKRT_HD Vec3 texture_sample(const TextureView& t, float u, float v) {
    if (!is_finite(u) || !is_finite(v)) return splat(0.0f);
#if defined(__CUDA_ARCH__)
    // The device always has a texture object (sRGB decode and bilinear filtering in hardware); the
    // software path is not compiled there, which keeps its twelve powf calls out of the kernels.
    float4 c = tex2D<float4>(static_cast<cudaTextureObject_t>(t.object), u, 1.0f - v);
    return {c.x, c.y, c.z};
#else
    return texture_sample_software(t, u, v);
#endif
}

}  // namespace pkrt
