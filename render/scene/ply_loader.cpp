// PLY meshes: the strict pass (ply_scan.h) reads the file and writes what assimp may see; assimp's PLY
// importer, the only one left registered, parses that; its mesh is checked against the pass's counts
// before a triangle is emitted.
#include <new>

#include <assimp/BaseImporter.h>
#include <assimp/Importer.hpp>
#include <assimp/scene.h>

#include "render/error.h"
#include "render/scene/input_file.h"
#include "render/scene/loaders.h"
#include "render/scene/mesh_builder.h"
#include "render/scene/ply_scan.h"

namespace pkrt {

namespace {

// assimp picks an importer by extension and then by sniffing the bytes; with every other importer
// gone, a file its PLY importer turns down cannot be read as some other format instead.
void keep_only_the_ply_importer(Assimp::Importer& importer) {
    size_t index = importer.GetImporterIndex("ply");
    const aiImporterDesc* desc = index < importer.GetImporterCount() ? importer.GetImporterInfo(index) : nullptr;
    if (!desc || std::string(desc->mName).find("(PLY)") == std::string::npos)
        throw Error("the assimp library pkrt was built with has no PLY importer");
    Assimp::BaseImporter* ply = importer.GetImporter(index);
    std::vector<Assimp::BaseImporter*> others;
    for (size_t i = 0; i < importer.GetImporterCount(); ++i)
        if (importer.GetImporter(i) != ply) others.push_back(importer.GetImporter(i));
    for (Assimp::BaseImporter* other : others) {
        importer.UnregisterLoader(other);
        delete other;  // an unregistered importer is no longer the Importer's to delete
    }
    if (importer.GetImporterCount() != 1) throw Error("assimp kept importers other than its PLY importer");
}

std::string first_line(const char* text) {
    std::string s = text ? text : "";
    return s.substr(0, s.find('\n'));
}

}  // namespace

size_t load_ply(Scene& scene, const std::string& path, const PlyOptions& options) {
    PlyScan scan;
    {
        InputFile file = read_input_file(path);
        scene.inputs.push_back({path, file.id});
        scan = scan_ply(path, file.bytes, scene.limits, scene.tris.size());
    }  // the file's bytes are freed before assimp makes its copies
    for (auto& w : scan.warnings) scene.load_stats.warnings.push_back(std::move(w));
    if (scan.faces == 0) throw Error(path + ": no faces");

    Assimp::Importer importer;
    keep_only_the_ply_importer(importer);
    const aiScene* ai = nullptr;
    try {
        ai = importer.ReadFileFromMemory(scan.canonical.data(), scan.canonical.size(), 0, "ply");
    } catch (const std::bad_alloc&) {
        throw;
    } catch (const std::exception& e) {
        throw Error(path + ": cannot parse PLY: " + first_line(e.what()));
    }
    if (!ai) throw Error(path + ": cannot parse PLY: " + first_line(importer.GetErrorString()));
    std::string().swap(scan.canonical);

    const aiMesh* mesh = ai->mNumMeshes == 1 ? ai->mMeshes[0] : nullptr;
    bool same = mesh && mesh->mNumVertices == scan.vertices && mesh->mNumFaces == scan.faces &&
                (mesh->mNormals != nullptr) == scan.normals && (mesh->mTextureCoords[0] != nullptr) == scan.uvs;
    auto differs = [&]() { throw Error(path + ": the PLY library read a different mesh than the file holds"); };
    if (!same) differs();

    int32_t material = options.material_override;
    if (material < 0) {
        material = static_cast<int32_t>(scene.materials.size());
        scene.materials.push_back(default_material());
        scene.material_names.push_back("default");
    }
    // ASCII values are the strict pass's (assimp's fast number reader rounds some of them wrongly);
    // binary ones are assimp's, which are the file's bits (doubles rounded to float).
    auto vertex = [&](unsigned i) {
        MeshVertex v{};
        if (scan.ascii) {
            const float* p = &scan.positions[3 * size_t(i)];
            v.p = {p[0], p[1], p[2]};
            if (scan.normals) {
                const float* n = &scan.normal_values[3 * size_t(i)];
                v.n = {n[0], n[1], n[2]};
            }
            if (scan.uvs) v.uv = {scan.texcoords[2 * size_t(i)], scan.texcoords[2 * size_t(i) + 1]};
        } else {
            v.p = {mesh->mVertices[i].x, mesh->mVertices[i].y, mesh->mVertices[i].z};
            if (scan.normals) v.n = {mesh->mNormals[i].x, mesh->mNormals[i].y, mesh->mNormals[i].z};
            if (scan.uvs) v.uv = {mesh->mTextureCoords[0][i].x, mesh->mTextureCoords[0][i].y};
        }
        return v;
    };
    MeshBuilder builder(scene, options.transform);
    uint64_t triangles = 0;
    for (unsigned f = 0; f < mesh->mNumFaces; ++f) {
        const aiFace& face = mesh->mFaces[f];
        if (face.mNumIndices < 3 || !face.mIndices) differs();
        for (unsigned k = 0; k < face.mNumIndices; ++k)
            if (face.mIndices[k] >= mesh->mNumVertices) differs();
        triangles += face.mNumIndices - 2;
        if (triangles > scan.triangles) differs();
        // A polygon is fanned from its first corner, as PLY writers expect of convex faces.
        MeshVertex first = vertex(face.mIndices[0]);
        for (unsigned k = 1; k + 1 < face.mNumIndices; ++k)
            builder.add(first, vertex(face.mIndices[k]), vertex(face.mIndices[k + 1]), material);
    }
    if (triangles != scan.triangles) differs();
    return builder.added();
}

}  // namespace pkrt
