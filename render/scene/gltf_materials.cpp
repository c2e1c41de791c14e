// glTF materials and their texture views (KHR_texture_transform, the sampler's wrap modes), converted to
// pkrt's materials once per file material. See gltf_loader.cpp.
#include <algorithm>
#include <cmath>

#include "render/scene/gltf_reader.h"

namespace pkrt::gltf {

namespace {

int wrap_mode(int gl) {
    switch (gl) {
        case TINYGLTF_TEXTURE_WRAP_REPEAT: return kWrapRepeat;
        case TINYGLTF_TEXTURE_WRAP_CLAMP_TO_EDGE: return kWrapClamp;
        case TINYGLTF_TEXTURE_WRAP_MIRRORED_REPEAT: return kWrapMirror;
        default: return -1;
    }
}

// A glTF textureInfo as a view: the image, the sampler's wrap modes, the colour space the slot implies,
// and KHR_texture_transform conjugated into pkrt's v-up convention. Sets *uv_set to the TEXCOORD set.

}  // namespace

int32_t Reader::texture_view(const tinygltf::TextureInfo& info, int tex_coord, const tinygltf::ExtensionMap& ext,
                             bool srgb, int material_index, int* uv_set) {
    std::string where = "material " + std::to_string(material_index);
    const tinygltf::Texture& tex = at(m_.textures, info.index, (where + ": texture").c_str());
    const tinygltf::Image& img =
        at(m_.images, tex.source, (where + ": texture " + std::to_string(info.index) + ": image").c_str());
    (void)img;
    size_t src = static_cast<size_t>(tex.source);
    if (src >= image_texture_.size() || image_texture_[src] < 0)
        fail("image " + std::to_string(src) + " could not be loaded");
    TextureView v = default_texture_view(image_texture_[src]);
    v.srgb = srgb ? 1 : 0;
    if (tex.sampler >= 0) {
        const tinygltf::Sampler& s = at(m_.samplers, tex.sampler, (where + ": sampler").c_str());
        v.wrap_u = wrap_mode(s.wrapS);
        v.wrap_v = wrap_mode(s.wrapT);
        if (v.wrap_u < 0 || v.wrap_v < 0) fail("sampler " + std::to_string(tex.sampler) + ": unknown wrap mode");
    }
    *uv_set = tex_coord;
    if (const tinygltf::Value* t = extension(ext, "KHR_texture_transform")) {
        double ox = 0, oy = 0, sx = 1, sy = 1, rot = number(t->Get("rotation"), 0.0);
        if (t->Has("offset") && t->Get("offset").ArrayLen() == 2) {
            ox = number(t->Get("offset").Get(0), 0.0);
            oy = number(t->Get("offset").Get(1), 0.0);
        }
        if (t->Has("scale") && t->Get("scale").ArrayLen() == 2) {
            sx = number(t->Get("scale").Get(0), 1.0);
            sy = number(t->Get("scale").Get(1), 1.0);
        }
        if (t->Has("texCoord")) *uv_set = static_cast<int>(std::clamp(number(t->Get("texCoord"), 0.0), -1.0, 1e6));
        // glTF's uv' = T(offset) R(rotation) S(scale) uv with v down, R turning (1, 0) towards (cos, -sin):
        // counter-clockwise as the image is seen (v down), as the sample renderers and
        // TextureTransformTest's markers have it. (The extension's GLSL sample writes R transposed; its
        // arrow then points at the test's red "opposite direction" marker.) With F(u, v) = (u, 1 - v)
        // the same map in pkrt's v-up coordinates is F G F.
        double c = std::cos(rot), s = std::sin(rot);
        double a = c * sx, b = s * sy, e0 = ox, d = -s * sx, e = c * sy, f = oy;
        double uv[6] = {a, -b, b + e0, -d, e, 1.0 - e - f};
        for (int k = 0; k < 6; ++k) {
            if (!std::isfinite(uv[k]) || std::fabs(uv[k]) > 1e6) fail(where + ": KHR_texture_transform is not finite");
            v.uv[k] = static_cast<float>(uv[k]);
        }
    }
    return add_texture_view(scene_, v);
}

int32_t Reader::material(int index) {
    if (options_.material_override >= 0) return options_.material_override;
    if (index < 0) {
        if (default_material_ < 0) {
            // glTF's default material: white, fully metallic, fully rough.
            Material d = default_material();
            d.type = kMetalRough;
            d.albedo = splat(1.0f);
            d.metallic = 1.0f;
            d.alpha = 1.0f;
            scene_.materials.push_back(d);
            scene_.material_names.push_back("glTF default");
            default_material_ = static_cast<int32_t>(scene_.materials.size()) - 1;
        }
        return default_material_;
    }
    return at(material_slot_, index, "material");
}

}  // namespace pkrt::gltf
