#include "render/cuda/device_scene.h"

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
    nodes_.upload(s.bvh.bvh2_nodes);  // one of the two is empty
    wide_nodes_.upload(s.bvh.cwbvh_nodes);
    tris_.upload(s.tris);
    shading_.upload(s.shading);
    tangents_.upload(s.tangents);
    materials_.upload(s.materials);
    light_tris_.upload(s.light_tris);
    light_cdf_.upload(s.light_cdf);
    tri_pmf_.upload(s.tri_light_pmf);
    release_textures();
    // One array per image; one texture object per view over it, with the view's address modes and
    // sRGB flag (colour maps decode sRGB before filtering, metal-rough and normal maps do not). A float
    // image is a float4 array, read as it is stored (linear): tex2D<float4> samples either kind.
    for (const auto& t : s.textures) {
        const bool f32 = t.format == kTextureRgba32f;
        cudaChannelFormatDesc fmt = f32 ? cudaCreateChannelDesc<float4>() : cudaCreateChannelDesc<uchar4>();
        cudaArray_t arr = nullptr;
        check(cudaMallocArray(&arr, &fmt, t.width, t.height), "cudaMallocArray");
        arrays_.push_back(arr);
        const size_t row = static_cast<size_t>(t.width) * (f32 ? 16 : 4);
        const void* src = f32 ? static_cast<const void*>(t.texels_f.data()) : static_cast<const void*>(t.texels.data());
        check(cudaMemcpy2DToArray(arr, 0, 0, src, row, row, t.height, cudaMemcpyHostToDevice), "texture upload");
    }
    auto address_mode = [](int32_t wrap) {
        return wrap == kWrapClamp    ? cudaAddressModeClamp
               : wrap == kWrapMirror ? cudaAddressModeMirror
                                     : cudaAddressModeWrap;
    };
    std::vector<TextureView> views;
    for (const auto& host : s.texture_views) {
        cudaResourceDesc res{};
        res.resType = cudaResourceTypeArray;
        res.res.array.array = arrays_.at(static_cast<size_t>(host.image));
        cudaTextureDesc td{};
        td.addressMode[0] = address_mode(host.wrap_u);
        td.addressMode[1] = address_mode(host.wrap_v);
        td.filterMode = cudaFilterModeLinear;
        const bool f32 = s.textures.at(static_cast<size_t>(host.image)).format == kTextureRgba32f;
        td.readMode = f32 ? cudaReadModeElementType : cudaReadModeNormalizedFloat;
        td.normalizedCoords = 1;
        td.sRGB = host.srgb && !f32 ? 1 : 0;
        cudaTextureObject_t obj = 0;
        check(cudaCreateTextureObject(&obj, &res, &td, nullptr), "cudaCreateTextureObject");
        objects_.push_back(obj);
        TextureView v = host;
        v.texels = nullptr;
        v.format = f32 ? kTextureRgba32f : kTextureRgba8;
        v.object = static_cast<unsigned long long>(obj);
        views.push_back(v);
    }
    textures_.upload(views);

    view_ = view_scene(s);  // environment and counts
    if (view_.bvh.layout == BvhViewLayout::kCwbvh) view_.bvh.wide_nodes = wide_nodes_.get();
    else view_.bvh.nodes = nodes_.get();
    view_.bvh.tris = tris_.get();
    view_.shading = shading_.get();
    view_.tangents = s.tangents.empty() ? nullptr : tangents_.get();
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
