// MTL materials to pkrt's (render/scene/obj_loader.cpp reads the geometry). The rules, documented in docs/scenes.md:
//   Pr, Pm, map_Pr or map_Pm           -> glTF-style metal-rough: base Kd (map_Kd), roughness Pr, metallic Pm
//   d < 1 (no map_d), or illum 4, 6, 7 -> dielectric, IOR Ni (1.5 if absent), tinted by Tf
//   max(Ks) > max(Kd)                  -> GGX conductor, F0 = Ks (map_Ks), alpha from Ns (map_Ns)
//   otherwise                          -> Lambertian Kd (map_Kd)
//   Ke (map_Ke)                        -> emission, on any of the above
//   map_d                              -> coverage (cut-out), blended stochastically, times d
//   norm, bump / map_bump              -> tangent-space normal map; a bump map is a height map (-bm)
// Texture options -s and -o transform the coordinates, -clamp clamps them. Every statement or option
// pkrt does not honour is one warning line per kind per MTL file.
#pragma once

#include <map>
#include <set>
#include <string>

#include <tiny_obj_loader.h>

#include "render/scene/scene.h"

namespace pkrt {

class MtlConverter {
public:
    // `base_dir`: where texture names are relative to (the OBJ's folder, as tinyobjloader reads mtllib).
    MtlConverter(Scene& scene, std::string base_dir) : scene_(scene), base_dir_(std::move(base_dir)) {}

    // The keywords each material of `mtl_path` uses (obj_scan.h's MtlScan), for the rules and warnings.
    void add_file(const std::string& mtl_path, const std::map<std::string, std::set<std::string>>& keys);

    // Appends the material to the scene (with its cut-out, if any); returns its index.
    int32_t convert(const tinyobj::material_t& m);

    // Whether a converted material has a normal map (its meshes then need tangents).
    bool normal_mapped(int32_t material) const {
        return scene_.materials[static_cast<size_t>(material)].normal_texture >= 0;
    }

    // One warning per ignored kind per MTL file, with the number of materials it was seen in.
    void flush_warnings();

private:
    int32_t view(const std::string& name, const tinyobj::texture_option_t& opt, bool srgb, const std::string& key);
    int32_t image(const std::string& name);
    void ignore(const std::string& what);

    Scene& scene_;
    std::string base_dir_;
    std::string mtl_path_;                        // the file the material being converted came from
    std::map<std::string, std::string> file_of_;  // material name -> MTL path
    std::map<std::string, std::set<std::string>> keys_;
    std::map<std::string, std::map<std::string, int>> ignored_;  // MTL path -> what -> materials
    std::vector<std::string> order_;                             // MTL paths, first seen first
};

}  // namespace pkrt
