#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <utility>

#include "render/scene/loaders.h"
#include "render/scene/mesh_builder.h"

namespace pkrt {

Material default_material() {
    Material m{};
    m.albedo = splat(0.5f);
    m.albedo_texture = -1;
    m.emission = splat(0.0f);
    m.type = kDiffuse;
    m.alpha = 0.0f;
    m.ior = 1.5f;
    m.metallic = 0.0f;
    m.emission_texture = -1;
    m.metal_rough_texture = -1;
    m.normal_texture = -1;
    m.normal_scale = 1.0f;
    return m;
}

float alpha_from_phong_exponent(float ns) {
    // Walter et al. 2007's Beckmann/Phong correspondence, alpha = sqrt(2 / (Ns + 2)); GGX with the same
    // alpha has the same width near the peak.
    if (!(ns >= 0.0f)) ns = 0.0f;
    return std::sqrt(2.0f / (ns + 2.0f));
}

size_t add_sphere(Scene& scene, const glm::mat4& transform, Vec3 center, float radius, int subdivisions, bool inward,
                  int32_t material) {
    // Icosahedron, then each subdivision splits every triangle into four and pushes midpoints out.
    const float t = (1.0f + std::sqrt(5.0f)) / 2.0f;
    std::vector<Vec3> verts = {{-1, t, 0},  {1, t, 0},  {-1, -t, 0}, {1, -t, 0}, {0, -1, t},  {0, 1, t},
                               {0, -1, -t}, {0, 1, -t}, {t, 0, -1},  {t, 0, 1},  {-t, 0, -1}, {-t, 0, 1}};
    for (auto& v : verts) v = normalize(v);
    std::vector<std::array<int, 3>> faces = {{0, 11, 5}, {0, 5, 1},  {0, 1, 7},   {0, 7, 10}, {0, 10, 11},
                                             {1, 5, 9},  {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8},
                                             {3, 9, 4},  {3, 4, 2},  {3, 2, 6},   {3, 6, 8},  {3, 8, 9},
                                             {4, 9, 5},  {2, 4, 11}, {6, 2, 10},  {8, 6, 7},  {9, 8, 1}};
    for (int s = 0; s < subdivisions; ++s) {
        std::map<std::pair<int, int>, int> midpoint;
        auto mid = [&](int a, int b) {
            auto key = std::minmax(a, b);
            auto it = midpoint.find(key);
            if (it != midpoint.end()) return it->second;
            verts.push_back(normalize(verts[a] + verts[b]));
            int idx = static_cast<int>(verts.size()) - 1;
            midpoint.emplace(key, idx);
            return idx;
        };
        std::vector<std::array<int, 3>> next;
        next.reserve(faces.size() * 4);
        for (const auto& f : faces) {
            int a = mid(f[0], f[1]), b = mid(f[1], f[2]), c = mid(f[2], f[0]);
            next.push_back({f[0], a, c});
            next.push_back({f[1], b, a});
            next.push_back({f[2], c, b});
            next.push_back({a, b, c});
        }
        faces = std::move(next);
    }
    MeshBuilder builder(scene, transform);
    for (const auto& f : faces) {
        MeshVertex v[3];
        for (int k = 0; k < 3; ++k) {
            Vec3 n = verts[f[k]];
            v[k].p = center + n * radius;
            v[k].n = inward ? -n : n;
            float u = 0.5f + std::atan2(n.z, n.x) / (2.0f * kPi);
            v[k].uv = {u, 0.5f + std::asin(clamp_f(n.y, -1.0f, 1.0f)) / kPi};
        }
        if (inward) builder.add(v[0], v[2], v[1], material);
        else builder.add(v[0], v[1], v[2], material);
    }
    return builder.added();
}

size_t add_quad(Scene& scene, const glm::mat4& transform, const Vec3 corners[4], int32_t material) {
    MeshBuilder builder(scene, transform);
    MeshVertex v[4];
    const Vec2 uv[4] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
    for (int k = 0; k < 4; ++k) v[k] = MeshVertex{corners[k], {0, 0, 0}, uv[k]};
    builder.add(v[0], v[1], v[2], material);
    builder.add(v[0], v[2], v[3], material);
    return builder.added();
}

}  // namespace pkrt
