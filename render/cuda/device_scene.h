// The scene in device memory: geometry, BVH, materials, light tables, and textures as CUDA texture
// objects, one per view over one array per image (hardware filtering and address modes; sRGB colour
// decoded to linear before filtering as the software path does).
#pragma once

#include "device_memory.h"
#include "render/scene.h"

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
    std::vector<cudaArray_t> arrays_;
    std::vector<cudaTextureObject_t> objects_;
    SceneView view_{};
};

}  // namespace pkrt::cuda
