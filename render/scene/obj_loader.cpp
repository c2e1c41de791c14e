#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <limits>
#include <sstream>
#include <unordered_map>

#include <tiny_obj_loader.h>

#include "render/error.h"
#include "render/scene/input_file.h"
#include "render/scene/asset_path.h"
#include "render/scene/loaders.h"
#include "render/scene/mesh_builder.h"
#include "render/scene/obj_materials.h"
#include "render/scene/obj_scan.h"
#include "render/scene/tangents.h"

namespace pkrt {

namespace {

std::string first_line(const std::string& text) {
    std::string line = text.substr(0, text.find('\n'));
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    return line;
}

// tinyobjloader opens MTL files by name itself; this reader opens them through read_input_file (regular
// files only), records them as scene inputs and checks their values before tinyobjloader parses them.
class CheckedMtlReader : public tinyobj::MaterialReader {
public:
    CheckedMtlReader(Scene& scene, std::string obj_path, std::string base_dir, MtlConverter& converter)
        : scene_(scene), obj_path_(std::move(obj_path)), base_dir_(std::move(base_dir)), converter_(converter) {}
    bool operator()(const std::string& name, std::vector<tinyobj::material_t>* materials,
                    std::map<std::string, int>* material_map, std::string* warn, std::string* err) override {
        std::string path = resolve_asset_path(scene_, obj_path_, base_dir_, name);
        InputFile f = read_input_file(path);
        scene_.inputs.push_back({path, f.id});
        std::string text = normalize_line_endings(std::move(f.bytes));
        converter_.add_file(path, scan_mtl(path, text).keys);
        std::istringstream in(text);
        tinyobj::LoadMtl(material_map, materials, &in, warn, err);
        return true;
    }

private:
    Scene& scene_;
    std::string obj_path_, base_dir_;
    MtlConverter& converter_;
};

}  // namespace

size_t load_obj(Scene& scene, const std::string& path, const ObjOptions& options) {
    InputFile file = read_input_file(path);
    scene.inputs.push_back({path, file.id});
    std::string text = normalize_line_endings(std::move(file.bytes));
    ObjScan scan = scan_obj(path, text, scene.limits.max_polygon_corners);
    check_triangle_budget(scene.limits, path, scene.tris.size(), scan.triangles);
    std::string base_dir = std::filesystem::path(path).parent_path().string();
    tinyobj::attrib_t attrib;
    std::vector<tinyobj::shape_t> shapes;
    std::vector<tinyobj::material_t> mtls;
    std::string warning, error;
    MtlConverter converter(scene, base_dir);
    CheckedMtlReader mtl_reader(scene, path, base_dir, converter);
    std::istringstream in(text);
    if (!tinyobj::LoadObj(&attrib, &shapes, &mtls, &warning, &error, &in, &mtl_reader, /*triangulate=*/true,
                          /*default_vcols_fallback=*/false)) {
        std::string why = first_line(error);
        throw Error(path + ": cannot parse OBJ" + (why.empty() ? "" : ": " + why));
    }
    if (attrib.vertices.size() != scan.positions.size() || attrib.normals.size() != scan.normals.size() ||
        attrib.texcoords.size() != scan.texcoords.size())
        throw Error(path + ": the OBJ library read a different number of elements than the file has");
    // The strict pass's values, parsed and rounded correctly, replace the library's.
    attrib.vertices = scan.positions;
    attrib.normals = scan.normals;
    attrib.texcoords = scan.texcoords;
    // An MTL that was found but names no such material is an error, not a silent grey.
    if (warning.find("not found") != std::string::npos || warning.find("Failed to load material") != std::string::npos)
        throw Error(path + ": " + first_line(warning));

    std::vector<int32_t> material_map(mtls.size(), -1);
    if (options.material_override < 0) {
        for (size_t i = 0; i < mtls.size(); ++i) {
            try {
                material_map[i] = converter.convert(mtls[i]);
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
    size_t first_triangle = scene.tris.size();
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
    converter.flush_warnings();
    generate_tangents(scene, first_triangle);
    // Triangles the library's triangulation left out (degenerate polygons) are counted, not lost silently.
    if (faces < scan.triangles) scene.load_stats.degenerate_triangles += scan.triangles - faces;
    return builder.added();
}

}  // namespace pkrt
