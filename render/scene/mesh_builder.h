// Adds triangles to a Scene with a transform applied, dropping (and counting) those with non-finite
// vertices or zero area, so that nothing downstream ever sees a NaN vertex or a degenerate triangle.
#pragma once

#include <glm/glm.hpp>

#include "render/scene/scene.h"

namespace pkrt {

struct MeshVertex {
    Vec3 p;
    Vec3 n;  // zero = none
    Vec2 uv;
};

class MeshBuilder {
public:
    MeshBuilder(Scene& scene, const glm::mat4& transform);
    // Returns false when the triangle was dropped.
    bool add(const MeshVertex& a, const MeshVertex& b, const MeshVertex& c, int32_t material);
    size_t added() const { return added_; }

private:
    Vec3 point(Vec3 p) const;
    Vec3 normal(Vec3 n) const;

    Scene& scene_;
    glm::mat4 transform_;
    glm::mat3 normal_matrix_;
    size_t added_ = 0;
};

// JSON transform helpers build this: scale, then rotate, then translate.
glm::mat4 make_transform(const glm::vec3& translate, float rotate_degrees, const glm::vec3& rotate_axis,
                         const glm::vec3& scale);

}  // namespace pkrt
