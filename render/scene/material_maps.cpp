#include "render/scene/material_maps.h"

#include <algorithm>
#include <cmath>

#include "render/scene/loaders.h"

namespace pkrt {

namespace {

uint32_t channel(uint32_t texel, int c) { return (texel >> (8 * c)) & 0xffu; }

uint32_t unit_byte(float v);

// Texel i as RGBA8: a float image's (linear data, as a map's levels are) clamped to [0, 1].
uint32_t texel8(const TextureImage& img, size_t i) {
    if (img.format != kTextureRgba32f) return img.texels[i];
    const float* f = &img.texels_f[4 * i];
    return unit_byte(f[0]) | unit_byte(f[1]) << 8 | unit_byte(f[2]) << 16 | unit_byte(f[3]) << 24;
}

size_t texel_count(const TextureImage& img) { return static_cast<size_t>(img.width) * img.height; }

uint32_t rgba(uint32_t r, uint32_t g, uint32_t b, uint32_t a) { return r | g << 8 | b << 16 | a << 24; }

// The derived image named `name`, made by `fill` at width x height unless it exists already.
template <class Fill> int32_t derived(Scene& scene, const std::string& name, int width, int height, Fill&& fill) {
    for (size_t i = 0; i < scene.textures.size(); ++i)
        if (scene.textures[i].path == name && scene.textures[i].id == FileIdentity{}) return static_cast<int32_t>(i);
    check_texel_budget(scene.limits, name, texel_budget_used(scene), uint64_t(width) * uint64_t(height));
    TextureImage t;
    t.path = name;
    t.width = width;
    t.height = height;
    t.texels.resize(static_cast<size_t>(width) * height);
    fill(t);
    scene.textures.push_back(std::move(t));
    return static_cast<int32_t>(scene.textures.size()) - 1;
}

// A map's level: the stored value (a mask's or height map's greys are data, not colour), Rec. 709 weights
// where the channels differ.
float grey(uint32_t texel) {
    return (0.2126f * channel(texel, 0) + 0.7152f * channel(texel, 1) + 0.0722f * channel(texel, 2)) * (1.0f / 255.0f);
}

// A height map's full range (grey 0 to 1) as a fraction of the texture's extent: what MTL leaves to the
// renderer. 1/64 gives the relief most viewers show for -bm 1.
constexpr float kHeightScale = 1.0f / 64.0f;

uint32_t unit_byte(float v) { return static_cast<uint32_t>(std::lround(std::clamp(v, 0.0f, 1.0f) * 255.0f)); }

}  // namespace

bool looks_like_normal_map(const TextureImage& image) {
    size_t n_texels = texel_count(image);
    if (n_texels == 0) return false;
    // Tangent-space normals point out of the surface: blue near 1 and above red and green, which
    // scatter around 0.5. A height map (grey, or a colour image reused as bump) fails this.
    double r = 0, g = 0, b = 0;
    size_t blue_top = 0;
    for (size_t i = 0; i < n_texels; ++i) {
        uint32_t p = texel8(image, i);
        r += channel(p, 0);
        g += channel(p, 1);
        b += channel(p, 2);
        blue_top += channel(p, 2) >= std::max(channel(p, 0), channel(p, 1));
    }
    double n = 255.0 * static_cast<double>(n_texels);
    r /= n;
    g /= n;
    b /= n;
    return b > 0.6 && std::fabs(r - 0.5) < 0.15 && std::fabs(g - 0.5) < 0.15 && blue_top >= n_texels * 9 / 10;
}

int32_t coverage_image(Scene& scene, int32_t image) {
    const TextureImage& src = scene.textures[static_cast<size_t>(image)];
    bool has_alpha = false;
    for (size_t i = 0; i < texel_count(src) && !has_alpha; ++i) has_alpha = channel(texel8(src, i), 3) != 255;
    if (has_alpha) return image;
    return derived(scene, src.path + " (coverage)", src.width, src.height, [&](TextureImage& t) {
        const TextureImage& s = scene.textures[static_cast<size_t>(image)];
        for (size_t i = 0; i < t.texels.size(); ++i) {
            uint32_t p = texel8(s, i);
            t.texels[i] = (p & 0x00ffffffu) | unit_byte(grey(p)) << 24;
        }
    });
}

int32_t normal_map_from_height(Scene& scene, int32_t image, float strength) {
    const TextureImage& src = scene.textures[static_cast<size_t>(image)];
    std::string name = src.path + " (normals from heights, bm " + std::to_string(strength) + ")";
    return derived(scene, name, src.width, src.height, [&](TextureImage& t) {
        const TextureImage& s = scene.textures[static_cast<size_t>(image)];
        int w = s.width, h = s.height;
        float su = strength * static_cast<float>(w) * kHeightScale,
              sv = strength * static_cast<float>(h) * kHeightScale;
        auto at = [&](int x, int y) {
            x = (x % w + w) % w;
            y = (y % h + h) % h;
            return grey(texel8(s, static_cast<size_t>(y) * w + x));
        };
        for (int y = 0; y < h; ++y) {
            for (int x = 0; x < w; ++x) {
                // Slopes along +u and +v (v up: the row above is +v), in texture space.
                float du = 0.5f * (at(x + 1, y) - at(x - 1, y)) * su;
                float dv = 0.5f * (at(x, y - 1) - at(x, y + 1)) * sv;
                float inv = 1.0f / std::sqrt(du * du + dv * dv + 1.0f);
                float nx = -du * inv, ny = -dv * inv, nz = inv;
                t.texels[static_cast<size_t>(y) * w + x] =
                    rgba(unit_byte(0.5f * nx + 0.5f), unit_byte(0.5f * ny + 0.5f), unit_byte(0.5f * nz + 0.5f), 255);
            }
        }
    });
}

int32_t pack_metal_rough(Scene& scene, int32_t roughness, int32_t metallic) {
    const TextureImage* r = roughness >= 0 ? &scene.textures[static_cast<size_t>(roughness)] : nullptr;
    const TextureImage* m = metallic >= 0 ? &scene.textures[static_cast<size_t>(metallic)] : nullptr;
    int w = std::max(r ? r->width : 1, m ? m->width : 1), h = std::max(r ? r->height : 1, m ? m->height : 1);
    std::string name = std::string(r ? r->path : "1") + " + " + (m ? m->path : "1") + " (metal-rough)";
    return derived(scene, name, w, h, [&](TextureImage& t) {
        const TextureImage* rr = roughness >= 0 ? &scene.textures[static_cast<size_t>(roughness)] : nullptr;
        const TextureImage* mm = metallic >= 0 ? &scene.textures[static_cast<size_t>(metallic)] : nullptr;
        auto level = [&](const TextureImage* img, int x, int y) -> uint32_t {
            if (!img) return 255;
            int sx = static_cast<int>(int64_t(x) * img->width / w), sy = static_cast<int>(int64_t(y) * img->height / h);
            return unit_byte(grey(texel8(*img, static_cast<size_t>(sy) * img->width + sx)));
        };
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                t.texels[static_cast<size_t>(y) * w + x] = rgba(0, level(rr, x, y), level(mm, x, y), 255);
    });
}

int32_t roughness_from_phong_map(Scene& scene, int32_t image, float ns) {
    const TextureImage& src = scene.textures[static_cast<size_t>(image)];
    std::string name = src.path + " (roughness from Ns " + std::to_string(ns) + ")";
    return derived(scene, name, src.width, src.height, [&](TextureImage& t) {
        const TextureImage& s = scene.textures[static_cast<size_t>(image)];
        for (size_t i = 0; i < t.texels.size(); ++i) {
            float perceptual = std::sqrt(alpha_from_phong_exponent(ns * grey(texel8(s, i))));
            t.texels[i] = rgba(0, unit_byte(perceptual), 255, 255);
        }
    });
}

}  // namespace pkrt
