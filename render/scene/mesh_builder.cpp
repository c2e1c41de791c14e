#include "render/scene/mesh_builder.h"

#include <cmath>

#include <glm/gtc/matrix_transform.hpp>

namespace pkrt {

MeshBuilder::MeshBuilder(Scene& scene, const glm::mat4& transform)
    : scene_(scene), transform_(transform), normal_matrix_(glm::transpose(glm::inverse(glm::mat3(transform)))) {}

Vec3 MeshBuilder::point(Vec3 p) const {
    glm::vec4 q = transform_ * glm::vec4(p.x, p.y, p.z, 1.0f);
    return {q.x, q.y, q.z};
}

Vec3 MeshBuilder::normal(Vec3 n) const {
    if (is_black(n)) return n;
    glm::vec3 q = normal_matrix_ * glm::vec3(n.x, n.y, n.z);
    float len = glm::length(q);
    if (!(len > 0.0f) || !std::isfinite(len)) return {0.0f, 0.0f, 0.0f};
    return {q.x / len, q.y / len, q.z / len};
}

bool MeshBuilder::add(const MeshVertex& a, const MeshVertex& b, const MeshVertex& c, int32_t material) {
    Vec3 p0 = point(a.p), p1 = point(b.p), p2 = point(c.p);
    if (!all_finite(p0) || !all_finite(p1) || !all_finite(p2)) {
        ++scene_.load_stats.nonfinite_triangles;
        return false;
    }
    Vec3 cr = cross(p1 - p0, p2 - p0);
    float area2 = dot(cr, cr);
    if (!(area2 > 0.0f) || !std::isfinite(area2)) {
        ++scene_.load_stats.degenerate_triangles;
        return false;
    }
    TriVerts t{};
    t.v0 = p0;
    t.v1 = p1;
    t.v2 = p2;
    TriShading s{};
    s.n0 = normal(a.n);
    s.n1 = normal(b.n);
    s.n2 = normal(c.n);
    if (is_black(s.n0) || is_black(s.n1) || is_black(s.n2) || !all_finite(s.n0) || !all_finite(s.n1) ||
        !all_finite(s.n2)) {
        s.n0 = s.n1 = s.n2 = Vec3{0.0f, 0.0f, 0.0f};  // incomplete normals: shade flat
    }
    auto finite_uv = [](Vec2 uv) { return std::isfinite(uv.x) && std::isfinite(uv.y) ? uv : Vec2{0.0f, 0.0f}; };
    s.uv0 = finite_uv(a.uv);
    s.uv1 = finite_uv(b.uv);
    s.uv2 = finite_uv(c.uv);
    s.material = material;
    scene_.tris.push_back(t);
    scene_.shading.push_back(s);
    ++added_;
    return true;
}

glm::mat4 make_transform(const glm::vec3& translate, float rotate_degrees, const glm::vec3& rotate_axis,
                         const glm::vec3& scale) {
    glm::mat4 m(1.0f);
    m = glm::translate(m, translate);
    if (rotate_degrees != 0.0f) m = glm::rotate(m, glm::radians(rotate_degrees), glm::normalize(rotate_axis));
    m = glm::scale(m, scale);
    return m;
}

}  // namespace pkrt
