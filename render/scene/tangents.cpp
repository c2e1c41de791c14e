#include "render/scene/tangents.h"

#include <cmath>
#include <cstring>
#include <unordered_map>

#include <glm/glm.hpp>

#include "kernels/shading/lights.h"

namespace pkrt {

namespace {

struct CornerKey {
    float v[8];
    bool operator==(const CornerKey& o) const { return std::memcmp(v, o.v, sizeof v) == 0; }
};

struct CornerHash {
    size_t operator()(const CornerKey& k) const {
        uint32_t bits[8];
        std::memcpy(bits, k.v, sizeof bits);
        uint64_t h = 1469598103934665603ull;
        for (uint32_t b : bits) h = (h ^ b) * 1099511628211ull;
        return static_cast<size_t>(h);
    }
};

struct Sums {
    glm::dvec3 s{0.0}, t{0.0};
};

}  // namespace

void generate_tangents(Scene& scene, size_t first) {
    size_t end = scene.tris.size();
    auto mapped = [&](size_t i) {
        return scene.materials[static_cast<size_t>(scene.shading[i].material)].normal_texture >= 0;
    };
    bool any = false;
    for (size_t i = first; i < end && !any; ++i) any = mapped(i);
    if (!any) return;
    scene.tangents.resize(end, TriTangents{});

    auto corner = [&](size_t i, int c, Vec3& p, Vec3& n, Vec2& uv) {
        const TriVerts& t = scene.tris[i];
        const TriShading& sh = scene.shading[i];
        p = c == 0 ? t.v0 : c == 1 ? t.v1 : t.v2;
        n = c == 0 ? sh.n0 : c == 1 ? sh.n1 : sh.n2;
        uv = c == 0 ? sh.uv0 : c == 1 ? sh.uv1 : sh.uv2;
        float area;
        if (is_black(n)) n = triangle_geometric_normal(t.v0, t.v1, t.v2, &area);
    };
    auto key = [](Vec3 p, Vec3 n, Vec2 uv) { return CornerKey{{p.x, p.y, p.z, n.x, n.y, n.z, uv.x, uv.y}}; };

    std::unordered_map<CornerKey, Sums, CornerHash> sums;
    for (size_t i = first; i < end; ++i) {
        if (!mapped(i)) continue;
        Vec3 P[3], N[3];
        Vec2 UV[3];
        for (int c = 0; c < 3; ++c) corner(i, c, P[c], N[c], UV[c]);
        glm::dvec3 e1(P[1].x - P[0].x, P[1].y - P[0].y, P[1].z - P[0].z);
        glm::dvec3 e2(P[2].x - P[0].x, P[2].y - P[0].y, P[2].z - P[0].z);
        double du1 = UV[1].x - UV[0].x, dv1 = UV[1].y - UV[0].y, du2 = UV[2].x - UV[0].x, dv2 = UV[2].y - UV[0].y;
        double det = du1 * dv2 - du2 * dv1;
        Sums add;
        if (std::fabs(det) > 1e-20 && std::isfinite(det)) {
            add.s = (e1 * dv2 - e2 * dv1) / det;
            add.t = (e2 * du1 - e1 * du2) / det;
        }
        for (int c = 0; c < 3; ++c) {
            Sums& s = sums[key(P[c], N[c], UV[c])];
            s.s += add.s;
            s.t += add.t;
        }
    }
    for (size_t i = first; i < end; ++i) {
        if (!mapped(i)) continue;
        TriTangents out{};
        Vec3* dst[3] = {&out.t0, &out.t1, &out.t2};
        float* w[3] = {&out.w0, &out.w1, &out.w2};
        for (int c = 0; c < 3; ++c) {
            Vec3 p, n;
            Vec2 uv;
            corner(i, c, p, n, uv);
            const Sums& s = sums[key(p, n, uv)];
            glm::dvec3 nn(n.x, n.y, n.z);
            double nl = glm::length(nn);
            if (!(nl > 0.0) || !std::isfinite(nl)) continue;
            nn /= nl;
            glm::dvec3 t = s.s - nn * glm::dot(nn, s.s);
            double tl = glm::length(t);
            if (!(tl > 0.0) || !std::isfinite(tl)) continue;
            t /= tl;
            *dst[c] = {float(t.x), float(t.y), float(t.z)};
            *w[c] = glm::dot(glm::cross(nn, t), s.t) < 0.0 ? -1.0f : 1.0f;
        }
        scene.tangents[i] = out;
    }
}

}  // namespace pkrt
