#include "device_scene.h"

namespace pkrt::cuda {

void DeviceScene::release_textures() {
    if (g_device_wedged) return;
    if (!objects_.empty() || !arrays_.empty()) quit_resident_kernels();
    for (auto o : objects_) cudaDestroyTextureObject(o);
    for (auto a : arrays_) cudaFreeArray(a);
    objects_.clear();
    arrays_.clear();
}

void DeviceScene::upload(const Scene& s) {
    // kernels/bvh_traverse.h: the kernels are built for bvh2 alone until each has a build per layout.
    if (s.bvh.layout != BvhLayout::kBvh2)
        throw Error("--bvh " + bvh_layout_name(s.bvh.layout) + ": the GPU kernels traverse bvh2 only so far (use --backend cpu "
                    "for " + bvh_layout_name(s.bvh.layout) + ")");
    nodes_.upload(s.bvh.bvh2_nodes);
    tris_.upload(s.tris);
    shading_.upload(s.shading);
    materials_.upload(s.materials);
    light_tris_.upload(s.light_tris);
    light_cdf_.upload(s.light_cdf);
    tri_pmf_.upload(s.tri_light_pmf);
    release_textures();
    std::vector<TextureView> views;
    for (const auto& t : s.textures) {
        cudaChannelFormatDesc fmt = cudaCreateChannelDesc<uchar4>();
        cudaArray_t arr = nullptr;
        check(cudaMallocArray(&arr, &fmt, t.width, t.height), "cudaMallocArray");
        arrays_.push_back(arr);
        check(cudaMemcpy2DToArray(arr, 0, 0, t.texels.data(), t.width * 4, t.width * 4, t.height, cudaMemcpyHostToDevice),
              "texture upload");
        cudaResourceDesc res{};
        res.resType = cudaResourceTypeArray;
        res.res.array.array = arr;
        cudaTextureDesc td{};
        td.addressMode[0] = cudaAddressModeWrap;
        td.addressMode[1] = cudaAddressModeWrap;
        td.filterMode = cudaFilterModeLinear;
        td.readMode = cudaReadModeNormalizedFloat;
        td.normalizedCoords = 1;
        td.sRGB = 1;
        cudaTextureObject_t obj = 0;
        check(cudaCreateTextureObject(&obj, &res, &td, nullptr), "cudaCreateTextureObject");
        objects_.push_back(obj);
        views.push_back(TextureView{nullptr, t.width, t.height, static_cast<unsigned long long>(obj)});
    }
    textures_.upload(views);

    view_ = view_scene(s);  // environment and counts
    view_.bvh.nodes = nodes_.get();
    view_.bvh.tris = tris_.get();
    view_.shading = shading_.get();
    view_.materials = materials_.get();
    view_.textures = textures_.get();
    view_.lights.tris = light_tris_.get();
    view_.lights.cdf = light_cdf_.get();
    view_.lights.tri_pmf = tri_pmf_.get();
    if (s.environment.type == kEnvMap) {
        env_texels_.upload(s.env_map.texels);
        env_marginal_cdf_.upload(s.env_map.marginal_cdf);
        env_conditional_cdf_.upload(s.env_map.conditional_cdf);
        view_.env.texels = env_texels_.get();
        view_.env.marginal_cdf = env_marginal_cdf_.get();
        view_.env.conditional_cdf = env_conditional_cdf_.get();
    } else {
        env_texels_.release();
        env_marginal_cdf_.release();
        env_conditional_cdf_.release();
    }
}

}  // namespace pkrt::cuda
