// The scene in device memory: geometry, BVH, materials, light tables, textures as CUDA texture objects
// (one per view over one array per image: hardware filtering and address modes; sRGB colour decoded to
// linear before filtering as the software path does), and the environment map with its sampling tables.
#pragma once

#include "render/cuda/device_memory.h"
#include "render/scene/scene.h"

namespace pkrt::cuda {

class DeviceScene {
public:
    DeviceScene() = default;
    DeviceScene(const DeviceScene&) = delete;
    DeviceScene& operator=(const DeviceScene&) = delete;
    ~DeviceScene() { release_textures(); }

    void upload(const Scene& s);
    // The scene for the kernels: device pointers, and the environment and counts by value.
    SceneView view() const { return view_; }

private:
    void release_textures();

    DeviceArray<BvhNode> nodes_;
    DeviceArray<CwbvhNode> wide_nodes_;
    DeviceArray<TriVerts> tris_;
    DeviceArray<TriShading> shading_;
    DeviceArray<TriTangents> tangents_;  // empty unless a material has a normal map
    DeviceArray<Material> materials_;
    DeviceArray<int32_t> light_tris_;
    DeviceArray<float> light_cdf_, tri_pmf_;
    DeviceArray<TextureView> textures_;
    // The environment map as plain float RGB in global memory, not a texture object: the kernels filter it
    // in software like the CPU, so both backends give the same radiance (hardware filtering weights are
    // 8-bit fixed point).
    DeviceArray<Vec3> env_texels_;
    DeviceArray<float> env_marginal_cdf_, env_conditional_cdf_;
    std::vector<cudaArray_t> arrays_;
    std::vector<cudaTextureObject_t> objects_;
    SceneView view_{};
};

}  // namespace pkrt::cuda
