#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <unordered_map>

#include <tiny_obj_loader.h>

#include "error.h"
#include "loaders.h"
#include "mesh_builder.h"

namespace pkrt {

namespace {

std::string first_line(const std::string& text) {
    std::string line = text.substr(0, text.find('\n'));
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    return line;
}

Vec3 vec3_of(const tinyobj::real_t v[3]) { return {v[0], v[1], v[2]}; }

// MTL to our three material models. The rules (documented in README.md):
//   d < 1, or illum 4, 6 or 7         -> dielectric, IOR Ni (1.5 if absent), tinted by Tf
//   max(Ks) > max(Kd)                 -> GGX conductor, F0 = Ks, alpha from Ns
//   otherwise                         -> Lambertian Kd (times map_Kd)
//   Ke                                -> emission, on any of the above
Material convert_material(Scene& scene, const tinyobj::material_t& m, const std::string& base_dir) {
    Material out = default_material();
    Vec3 kd = vec3_of(m.diffuse), ks = vec3_of(m.specular);
    out.emission = vec3_of(m.emission);
    bool glass = m.dissolve < 1.0f || m.illum == 4 || m.illum == 6 || m.illum == 7;
    if (glass) {
        out.type = kDielectric;
        out.ior = m.ior > 1.0f ? m.ior : 1.5f;
        Vec3 tf = vec3_of(m.transmittance);
        out.albedo = is_black(tf) ? splat(1.0f) : tf;
        out.alpha = 0.0f;
    } else if (max_component(ks) > max_component(kd)) {
        out.type = kConductor;
        out.albedo = ks;
        out.alpha = alpha_from_phong_exponent(m.shininess);
    } else {
        out.type = kDiffuse;
        out.albedo = kd;
        if (!m.diffuse_texname.empty()) {
            std::string tex = (std::filesystem::path(base_dir) / m.diffuse_texname).string();
            out.albedo_texture = load_texture(scene, tex);
        }
    }
    if (!all_finite(out.albedo) || !all_finite(out.emission))
        throw Error("material '" + m.name + "' has a non-finite colour");
    return out;
}

// tinyobjloader reads "nan", "inf" and non-numbers as 0 without a word, which would silently move
// vertices. This scan finds such coordinates first: NaN and infinities mark the vertex as non-finite
// (its triangles are then dropped and counted, like overflowing values), anything else that is not a
// number is an error. Plain numeric tokens are skipped by a character check, so the scan is cheap.
std::vector<bool> scan_nonfinite_vertices(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::vector<bool> bad;
    std::string line;
    size_t line_no = 0;
    while (std::getline(in, line)) {
        ++line_no;
        size_t i = line.find_first_not_of(" \t");
        if (i == std::string::npos || line[i] != 'v' || i + 1 >= line.size() || (line[i + 1] != ' ' && line[i + 1] != '\t'))
            continue;
        bad.push_back(false);
        std::istringstream tokens(line.substr(i + 2));
        std::string tok;
        for (int k = 0; k < 3 && (tokens >> tok); ++k) {
            if (tok.find_first_not_of("0123456789.eE+-") == std::string::npos) continue;
            char* end = nullptr;
            float v = std::strtof(tok.c_str(), &end);
            if (end != tok.c_str() + tok.size())
                throw Error(path + ":" + std::to_string(line_no) + ": vertex coordinate '" + tok + "' is not a number");
            if (!std::isfinite(v)) bad.back() = true;
        }
    }
    return bad;
}

}  // namespace

size_t load_obj(Scene& scene, const std::string& path, const ObjOptions& options) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
        throw Error(path + ": no such file");
    std::vector<bool> nonfinite = scan_nonfinite_vertices(path);
    std::string base_dir = std::filesystem::path(path).parent_path().string();
    tinyobj::ObjReaderConfig config;
    config.triangulate = true;
    config.vertex_color = false;
    config.mtl_search_path = base_dir.empty() ? "./" : base_dir + "/";
    tinyobj::ObjReader reader;
    if (!reader.ParseFromFile(path, config)) {
        std::string why = first_line(reader.Error());
        throw Error(path + ": cannot parse OBJ" + (why.empty() ? "" : ": " + why));
    }
    const tinyobj::attrib_t& attrib = reader.GetAttrib();
    const auto& shapes = reader.GetShapes();
    const auto& mtls = reader.GetMaterials();
    // tinyobjloader reports a missing or unreadable MTL only as a warning; treat it as the error it is.
    std::string warning = reader.Warning();
    if (warning.find("not found") != std::string::npos || warning.find("Failed to load material") != std::string::npos)
        throw Error(path + ": " + first_line(warning));

    std::vector<int32_t> material_map(mtls.size(), -1);
    if (options.material_override < 0) {
        for (size_t i = 0; i < mtls.size(); ++i) {
            try {
                material_map[i] = static_cast<int32_t>(scene.materials.size());
                scene.materials.push_back(convert_material(scene, mtls[i], base_dir));
                scene.material_names.push_back(mtls[i].name);
            } catch (const Error& e) {
                throw Error(path + ": " + e.what());
            }
        }
    }
    int32_t fallback = -1;
    auto material_for = [&](int id) -> int32_t {
        if (options.material_override >= 0) return options.material_override;
        if (id >= 0 && static_cast<size_t>(id) < material_map.size()) return material_map[id];
        if (fallback < 0) {
            fallback = static_cast<int32_t>(scene.materials.size());
            scene.materials.push_back(default_material());
            scene.material_names.push_back("default");
        }
        return fallback;
    };

    size_t nv = attrib.vertices.size() / 3, nn = attrib.normals.size() / 3, nt = attrib.texcoords.size() / 2;
    MeshBuilder builder(scene, options.transform);
    size_t faces = 0;
    for (const auto& shape : shapes) {
        const auto& mesh = shape.mesh;
        size_t offset = 0;
        for (size_t f = 0; f < mesh.num_face_vertices.size(); ++f) {
            size_t fv = mesh.num_face_vertices[f];
            if (fv != 3) throw Error(path + ": face " + std::to_string(faces + 1) + " could not be triangulated");
            MeshVertex v[3];
            for (size_t k = 0; k < 3; ++k) {
                const tinyobj::index_t& idx = mesh.indices[offset + k];
                if (idx.vertex_index < 0 || static_cast<size_t>(idx.vertex_index) >= nv) {
                    throw Error(path + ": face " + std::to_string(faces + 1) + " uses vertex " +
                                std::to_string(idx.vertex_index + 1) + " but the file has " + std::to_string(nv));
                }
                const float* p = &attrib.vertices[3 * static_cast<size_t>(idx.vertex_index)];
                v[k].p = {p[0], p[1], p[2]};
                if (static_cast<size_t>(idx.vertex_index) < nonfinite.size() && nonfinite[idx.vertex_index])
                    v[k].p.x = std::numeric_limits<float>::quiet_NaN();
                v[k].n = {0.0f, 0.0f, 0.0f};
                if (idx.normal_index >= 0) {
                    if (static_cast<size_t>(idx.normal_index) >= nn)
                        throw Error(path + ": face " + std::to_string(faces + 1) + " uses normal " +
                                    std::to_string(idx.normal_index + 1) + " but the file has " + std::to_string(nn));
                    const float* n = &attrib.normals[3 * static_cast<size_t>(idx.normal_index)];
                    v[k].n = {n[0], n[1], n[2]};
                }
                v[k].uv = {0.0f, 0.0f};
                if (idx.texcoord_index >= 0) {
                    if (static_cast<size_t>(idx.texcoord_index) >= nt)
                        throw Error(path + ": face " + std::to_string(faces + 1) + " uses texture coordinate " +
                                    std::to_string(idx.texcoord_index + 1) + " but the file has " + std::to_string(nt));
                    const float* t = &attrib.texcoords[2 * static_cast<size_t>(idx.texcoord_index)];
                    v[k].uv = {t[0], t[1]};
                }
            }
            int mat_id = f < mesh.material_ids.size() ? mesh.material_ids[f] : -1;
            builder.add(v[0], v[1], v[2], material_for(mat_id));
            offset += 3;
            ++faces;
        }
    }
    if (faces == 0) throw Error(path + ": no faces (is this an OBJ file?)");
    return builder.added();
}

}  // namespace pkrt
