// Textures: 8-bit RGBA texels sampled through a view that says how. A view carries the wrap mode per
// axis (glTF samplers: repeat, clamp to edge, mirrored repeat), whether the texels are sRGB colour
// (decoded to linear before bilinear filtering) or linear data (metal-rough and normal maps), and an
// affine uv transform (KHR_texture_transform). Several views may share one image's texels.
// On the GPU each view is a CUDA texture object with the matching address mode and sRGB flag. An image
// may instead hold linear float RGBA (Radiance .hdr, OpenEXR): it is linear whatever its views say.
//
// One uv convention throughout: v up, as in OBJ (v = 0 is the bottom row of the image). The glTF loader
// flips v (glTF has v down) and conjugates its texture transforms to match.
#pragma once

#include "kernels/vec3.h"

namespace pkrt {

enum TextureWrap : int32_t { kWrapRepeat = 0, kWrapClamp = 1, kWrapMirror = 2 };
enum TextureFormat : int16_t { kTextureRgba8 = 0, kTextureRgba32f = 1 };

struct TextureView {
    union {                      // host or device pointer, row 0 at the top of the image
        const uint32_t* texels;  // kTextureRgba8
        const float* texels_f;   // kTextureRgba32f: four floats a texel
    };
    int32_t width, height;
    unsigned long long object;  // cudaTextureObject_t on the GPU, 0 when sampling in software
    float uv[6];                // u' = uv[0] u + uv[1] v + uv[2], v' = uv[3] u + uv[4] v + uv[5]
    int32_t wrap_u, wrap_v;     // TextureWrap
    int16_t srgb;               // 1: sRGB-encoded colour, 0: linear data
    int16_t format;             // TextureFormat of the image
    int32_t image;              // the scene's image these texels are (host side: shared device arrays)
};
static_assert(sizeof(TextureView) == 64, "TextureView is sized for aligned device loads");

// A repeat, sRGB, untransformed view of `image`: what OBJ and JSON textures use.
inline TextureView default_texture_view(int32_t image) {
    return TextureView{{nullptr},     0,    0, 0, {1.0f, 0.0f, 0.0f, 0.0f, 1.0f, 0.0f}, kWrapRepeat, kWrapRepeat, 1,
                       kTextureRgba8, image};
}

PKRT_HD float srgb_to_linear(float c) {
    return c <= 0.04045f ? c * (1.0f / 12.92f) : powf((c + 0.055f) * (1.0f / 1.055f), 2.4f);
}

PKRT_HD Vec3 texel_linear(const TextureView& t, int x, int y) {
    const size_t i = static_cast<size_t>(y) * t.width + x;
    if (t.format == kTextureRgba32f) return {t.texels_f[4 * i], t.texels_f[4 * i + 1], t.texels_f[4 * i + 2]};
    uint32_t p = t.texels[i];
    Vec3 c = {static_cast<float>(p & 0xffu) * (1.0f / 255.0f), static_cast<float>((p >> 8) & 0xffu) * (1.0f / 255.0f),
              static_cast<float>((p >> 16) & 0xffu) * (1.0f / 255.0f)};
    if (!t.srgb) return c;
    return {srgb_to_linear(c.x), srgb_to_linear(c.y), srgb_to_linear(c.z)};
}

PKRT_HD int wrap_index(int i, int n) {
    int r = i % n;
    return r < 0 ? r + n : r;
}

// A texel index outside [0, n) to the one the wrap mode reads (the bilinear footprint's neighbours).
PKRT_HD int wrap_texel(int i, int n, int32_t mode) {
    if (mode == kWrapClamp) return i < 0 ? 0 : (i >= n ? n - 1 : i);
    if (mode == kWrapMirror) {
        int r = wrap_index(i, 2 * n);
        return r < n ? r : 2 * n - 1 - r;
    }
    return wrap_index(i, n);
}

// A coordinate into [0, 1] first, which also keeps huge coordinates from overflowing the texel index.
PKRT_HD float wrap_coord(float t, int32_t mode) {
    if (mode == kWrapClamp) return fminf(fmaxf(t, 0.0f), 1.0f);
    if (mode == kWrapMirror) {
        float r = t - 2.0f * floorf(0.5f * t);  // [0, 2)
        return r > 1.0f ? 2.0f - r : r;
    }
    return t - floorf(t);
}

PKRT_HD Vec2 texture_uv(const TextureView& t, float u, float v) {
    return {t.uv[0] * u + t.uv[1] * v + t.uv[2], t.uv[3] * u + t.uv[4] * v + t.uv[5]};
}

// The four texels bilinear filtering reads at (u, v) (already transformed), wrapped, and their weights.
struct BilinearFootprint {
    int xa, xb, ya, yb;
    float ax, ay;
};

PKRT_HD BilinearFootprint bilinear_footprint(const TextureView& t, float u, float v) {
    u = wrap_coord(u, t.wrap_u);
    v = wrap_coord(v, t.wrap_v);
    float x = u * static_cast<float>(t.width) - 0.5f;
    float y = (1.0f - v) * static_cast<float>(t.height) - 0.5f;
    float fx = floorf(x), fy = floorf(y);
    int x0 = static_cast<int>(fx), y0 = static_cast<int>(fy);
    return {wrap_texel(x0, t.width, t.wrap_u),
            wrap_texel(x0 + 1, t.width, t.wrap_u),
            wrap_texel(y0, t.height, t.wrap_v),
            wrap_texel(y0 + 1, t.height, t.wrap_v),
            x - fx,
            y - fy};
}

// (u, v) already transformed.
PKRT_HD Vec3 texture_sample_software(const TextureView& t, float u, float v) {
    BilinearFootprint f = bilinear_footprint(t, u, v);
    Vec3 top = lerp(texel_linear(t, f.xa, f.ya), texel_linear(t, f.xb, f.ya), f.ax);
    Vec3 bottom = lerp(texel_linear(t, f.xa, f.yb), texel_linear(t, f.xb, f.yb), f.ax);
    return lerp(top, bottom, f.ay);
}

// Coverage (the alpha channel, always linear) at (u, v) already transformed, filtered like the colour.
PKRT_HD float texture_alpha_software(const TextureView& t, float u, float v) {
    BilinearFootprint f = bilinear_footprint(t, u, v);
    auto a = [&](int tx, int ty) {
        size_t i = static_cast<size_t>(ty) * t.width + tx;
        if (t.format == kTextureRgba32f) return t.texels_f[4 * i + 3];
        return static_cast<float>(t.texels[i] >> 24) * (1.0f / 255.0f);
    };
    float top = a(f.xa, f.ya) * (1.0f - f.ax) + a(f.xb, f.ya) * f.ax;
    float bottom = a(f.xa, f.yb) * (1.0f - f.ax) + a(f.xb, f.yb) * f.ax;
    return top * (1.0f - f.ay) + bottom * f.ay;
}

// Coverage at the surface's (u, v), before the view's transform; 0 where the coordinates are not finite.
PKRT_HD float texture_alpha(const TextureView& t, float u, float v) {
    Vec2 st = texture_uv(t, u, v);
    if (!is_finite(st.x) || !is_finite(st.y)) return 0.0f;
#if defined(__CUDA_ARCH__)
    return tex2D<float4>(static_cast<cudaTextureObject_t>(t.object), st.x, 1.0f - st.y).w;
#else
    return texture_alpha_software(t, st.x, st.y);
#endif
}

// Linear RGB at the surface's (u, v), before the view's transform.
PKRT_HD Vec3 texture_sample(const TextureView& t, float u, float v) {
    Vec2 st = texture_uv(t, u, v);
    if (!is_finite(st.x) || !is_finite(st.y)) return splat(0.0f);
#if defined(__CUDA_ARCH__)
    // The device always has a texture object (address modes, sRGB decode and bilinear filtering in
    // hardware); the software path is not compiled there, which keeps its twelve powf calls out of the kernels.
    float4 c = tex2D<float4>(static_cast<cudaTextureObject_t>(t.object), st.x, 1.0f - st.y);
    return {c.x, c.y, c.z};
#else
    return texture_sample_software(t, st.x, st.y);
#endif
}

}  // namespace pkrt
