#include "render/scene/obj_materials.h"

#include <algorithm>
#include <cmath>

#include "render/scene/asset_path.h"
#include "render/error.h"
#include "render/quote.h"
#include "render/scene/loaders.h"
#include "render/scene/material_maps.h"
#include "render/scene/obj_scan.h"

namespace pkrt {

namespace {

Vec3 vec3_of(const tinyobj::real_t v[3]) { return {v[0], v[1], v[2]}; }

// Statements pkrt reads; every other one is reported once per file.
const std::set<std::string> kHonoured = {
    "newmtl", "Kd",     "Ks",     "Ke",    "Ns",   "Ni",   "d",        "Tr",       "Tf", "illum", "Ka",     "map_Kd",
    "map_Ks", "map_Ns", "map_Ke", "map_d", "norm", "bump", "map_bump", "map_Bump", "Pr", "Pm",    "map_Pr", "map_Pm"};

// -s and -o: u' = s u + o (MTL's texture space, v up as pkrt's); -clamp.
void apply_options(TextureView& v, const tinyobj::texture_option_t& o, const std::string& what) {
    float uv[6] = {o.scale[0], 0.0f, o.origin_offset[0], 0.0f, o.scale[1], o.origin_offset[1]};
    for (int k = 0; k < 6; ++k) {
        if (!std::isfinite(uv[k]) || std::fabs(uv[k]) > 1e6f) throw Error(what + ": -s or -o is not finite");
        v.uv[k] = uv[k];
    }
    if (o.clamp) v.wrap_u = v.wrap_v = kWrapClamp;
}

// Ke times a float map_Ke texel must stay a radiance pkrt renders, as Ke alone must (at most 1e20): Ke 1e20
// times a texel of 10 is infinite in single precision, and every sample that met it was dropped. An
// 8-bit texel is at most 1 and cannot overflow.
void check_emission_texture(const Scene& scene, Vec3 emission, int32_t view, const std::string& where) {
    const TextureImage& img = scene.textures[static_cast<size_t>(scene.texture_views[static_cast<size_t>(view)].image)];
    if (img.format != kTextureRgba32f) return;
    double brightest = 0.0;
    for (size_t i = 0; i < img.texels_f.size(); ++i)
        if (i % 4 != 3) brightest = std::max(brightest, static_cast<double>(img.texels_f[i]));
    double product = brightest * std::max({emission.x, emission.y, emission.z});
    if (product > kMaxRadiance)
        throw Error(where + ": Ke times its brightest texel (" + std::to_string(brightest) +
                    ") is more than 1e20, which renders as infinity");
}

}  // namespace

void MtlConverter::add_file(const std::string& mtl_path, const std::map<std::string, std::set<std::string>>& keys) {
    order_.push_back(mtl_path);
    for (const auto& [name, k] : keys) {
        file_of_[name] = mtl_path;
        keys_[name] = k;
    }
}

void MtlConverter::ignore(const std::string& what) { ++ignored_[mtl_path_][what]; }

int32_t MtlConverter::image(const std::string& name) {
    return load_asset_texture(scene_, mtl_path_.empty() ? base_dir_ : mtl_path_, base_dir_, name);
}

// A view of `name` with the options of its statement `key`; -1 when there is no name or no file (with
// --missing-textures warn).
int32_t MtlConverter::view(const std::string& name, const tinyobj::texture_option_t& opt, bool srgb,
                           const std::string& key) {
    if (name.empty()) return -1;
    int32_t img = image(name);
    if (img < 0) return -1;
    TextureView v = default_texture_view(img);
    v.srgb = srgb ? 1 : 0;
    if (opt.colorspace == "linear") v.srgb = 0;
    else if (opt.colorspace == "sRGB" || opt.colorspace == "srgb") v.srgb = 1;
    else if (!opt.colorspace.empty()) ignore(key + " -colorspace " + opt.colorspace);
    apply_options(v, opt, key + " " + name);
    if (opt.brightness != 0.0f || opt.contrast != 1.0f) ignore(key + " -mm");
    if (opt.turbulence[0] != 0.0f || opt.turbulence[1] != 0.0f || opt.turbulence[2] != 0.0f) ignore(key + " -t");
    if (opt.sharpness != 1.0f) ignore(key + " -boost");
    if (opt.texture_resolution != -1) ignore(key + " -texres");
    if (!opt.blendu || !opt.blendv) ignore(key + " -blendu/-blendv");
    if (opt.bump_multiplier != 1.0f && key != "bump" && key != "norm") ignore(key + " -bm");
    return add_texture_view(scene_, v);
}

int32_t MtlConverter::convert(const tinyobj::material_t& m) {
    auto file = file_of_.find(m.name);
    mtl_path_ = file == file_of_.end() ? std::string() : file->second;
    static const std::set<std::string> none;
    auto found = keys_.find(m.name);
    const std::set<std::string>& keys = found == keys_.end() ? none : found->second;
    auto has = [&](const char* k) { return keys.count(k) > 0; };
    for (const auto& k : keys)
        if (!kHonoured.count(k)) ignore("'" + quote_input(k) + "'");
    if (m.ambient[0] != 0.0f || m.ambient[1] != 0.0f || m.ambient[2] != 0.0f) ignore("'Ka' (ambient; lights are Ke)");
    if (!m.ambient_texname.empty() && !has("map_Ka")) ignore("'map_Ka'");

    Material out = default_material();
    Vec3 kd = vec3_of(m.diffuse), ks = vec3_of(m.specular);
    out.emission = vec3_of(m.emission);
    bool cutout = !m.alpha_texname.empty();
    bool pbr = has("Pr") || has("Pm") || has("map_Pr") || has("map_Pm");
    bool glass = !pbr && ((m.dissolve < 1.0f && !cutout) || m.illum == 4 || m.illum == 6 || m.illum == 7);
    if (pbr) {
        out.type = kMetalRough;
        out.albedo = kd;
        out.albedo_texture = view(m.diffuse_texname, m.diffuse_texopt, true, "map_Kd");
        float rough = has("Pr") ? m.roughness : std::sqrt(alpha_from_phong_exponent(m.shininess));
        out.alpha = rough * rough;
        out.metallic = m.metallic;
        int32_t r = m.roughness_texname.empty() ? -1 : image(m.roughness_texname);
        int32_t mt = m.metallic_texname.empty() ? -1 : image(m.metallic_texname);
        if (r >= 0 || mt >= 0) {
            if (!has("Pr")) out.alpha = 1.0f;  // the map alone gives the roughness
            if (!has("Pm") && mt >= 0) out.metallic = 1.0f;
            TextureView v = default_texture_view(pack_metal_rough(scene_, r, mt));
            v.srgb = 0;
            apply_options(v, r >= 0 ? m.roughness_texopt : m.metallic_texopt, r >= 0 ? "map_Pr" : "map_Pm");
            out.metal_rough_texture = add_texture_view(scene_, v);
        }
        if (!m.specular_texname.empty()) ignore("'map_Ks' (a metal-rough material's specular follows Pm)");
        if (!m.specular_highlight_texname.empty()) ignore("'map_Ns' (a metal-rough material's roughness is Pr)");
    } else if (glass) {
        out.type = kDielectric;
        out.ior = m.ior > 1.0f ? m.ior : 1.5f;
        Vec3 tf = vec3_of(m.transmittance);
        out.albedo = is_black(tf) ? splat(1.0f) : tf;
        out.alpha = 0.0f;
        if (!m.diffuse_texname.empty()) ignore("'map_Kd' on glass");
    } else if (max_component(ks) > max_component(kd) || (!m.specular_texname.empty() && is_black(kd))) {
        out.type = kConductor;
        out.albedo = ks;
        out.albedo_texture = view(m.specular_texname, m.specular_texopt, true, "map_Ks");
        out.alpha = alpha_from_phong_exponent(m.shininess);
        if (!m.specular_highlight_texname.empty()) {
            int32_t img = image(m.specular_highlight_texname);
            if (img >= 0) {
                out.alpha = 1.0f;  // the map holds the whole roughness
                TextureView v = default_texture_view(roughness_from_phong_map(scene_, img, m.shininess));
                v.srgb = 0;
                out.metal_rough_texture = add_texture_view(scene_, v);
            }
        }
        if (!m.diffuse_texname.empty()) ignore("'map_Kd' on a metal (Ks > Kd)");
    } else {
        out.type = kDiffuse;
        out.albedo = kd;
        out.albedo_texture = view(m.diffuse_texname, m.diffuse_texopt, true, "map_Kd");
        if (!m.specular_texname.empty()) ignore("'map_Ks' on a diffuse material (Kd >= Ks)");
        if (!m.specular_highlight_texname.empty()) ignore("'map_Ns' on a diffuse material");
    }
    if (!m.emissive_texname.empty()) {
        // Blender writes map_Ke with Ke 0 0 0 or without Ke: the texture is then the emission.
        if (is_black(out.emission)) out.emission = splat(1.0f);
        out.emission_texture = view(m.emissive_texname, m.emissive_texopt, true, "map_Ke");
        if (out.emission_texture >= 0)
            check_emission_texture(scene_, out.emission, out.emission_texture,
                                   mtl_path_ + ": material '" + quote_input(m.name) + "' map_Ke");
        if (out.emission_texture < 0) out.emission = vec3_of(m.emission);
    }

    // Normal map: `norm`, or a bump map: a height map (-bm scales its relief), unless it reads as a
    // tangent-space normal map (exporters such as Blender's write normal maps as map_Bump).
    const std::string& normal_name = !m.normal_texname.empty() ? m.normal_texname : m.bump_texname;
    const tinyobj::texture_option_t& nopt = !m.normal_texname.empty() ? m.normal_texopt : m.bump_texopt;
    if (!normal_name.empty()) {
        if (!m.normal_texname.empty() && !m.bump_texname.empty()) ignore("'bump' beside 'norm'");
        int32_t img = image(normal_name);
        if (img >= 0) {
            TextureView v = default_texture_view(img);
            bool height = m.normal_texname.empty() && !looks_like_normal_map(scene_.textures[static_cast<size_t>(img)]);
            out.normal_scale = 1.0f;
            if (height) v.image = normal_map_from_height(scene_, img, nopt.bump_multiplier);
            else out.normal_scale = nopt.bump_multiplier;
            v.srgb = 0;
            apply_options(v, nopt, normal_name);
            out.normal_texture = add_texture_view(scene_, v);
        }
    }
    if (!m.displacement_texname.empty()) ignore("'disp'");
    if (!m.reflection_texname.empty()) ignore("'refl'");
    if (!all_finite(out.albedo) || !all_finite(out.emission))
        throw Error("material '" + m.name + "' has a non-finite colour");

    int32_t index = static_cast<int32_t>(scene_.materials.size());
    scene_.materials.push_back(out);
    scene_.material_names.push_back(m.name);
    if (cutout) {
        int32_t img = image(m.alpha_texname);
        if (img >= 0) {
            TextureView v = default_texture_view(coverage_image(scene_, img));
            v.srgb = 0;
            apply_options(v, m.alpha_texopt, m.alpha_texname);
            set_material_cutout(scene_, index, add_texture_view(scene_, v), m.dissolve, 0.0f);
        }
    }
    return index;
}

void MtlConverter::flush_warnings() {
    for (const auto& file : order_) {
        auto it = ignored_.find(file);
        if (it == ignored_.end()) continue;
        for (const auto& [what, n] : it->second)
            scene_.load_stats.warnings.push_back(file + ": " + what + " ignored (" + std::to_string(n) +
                                                 (n == 1 ? " material)" : " materials)"));
    }
    ignored_.clear();
}

}  // namespace pkrt
