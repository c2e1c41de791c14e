// The glTF reader's class, shared by its three files: gltf_loader.cpp (the model, nodes, cameras and
// meshes), gltf_accessors.cpp (accessors checked against their views and buffers, sparse ones applied)
// and gltf_materials.cpp (materials and texture views). Internal to render/scene/.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <glm/glm.hpp>
#include <tiny_gltf.h>

#include "render/error.h"
#include "render/scene/loaders.h"
#include "render/scene/scene.h"

namespace pkrt::gltf {

class Reader {
public:
    Reader(Scene& scene, const std::string& path, const tinygltf::Model& model,
           const std::vector<int32_t>& image_texture, const GltfOptions& options)
        : scene_(scene), path_(path), m_(model), image_texture_(image_texture), options_(options) {}

    [[noreturn]] void fail(const std::string& what) const { throw Error(path_ + ": " + what); }

    void warn(const std::string& what) { scene_.load_stats.warnings.push_back(path_ + ": " + what); }

    void load();

private:
    struct Prim {
        std::vector<float> pos, nrm, tan, uv;
        std::vector<uint32_t> idx;
        size_t vertices = 0;
    };

    template <typename T> const T& at(const std::vector<T>& v, int i, const char* what) const {
        if (i < 0 || static_cast<size_t>(i) >= v.size())
            fail(std::string(what) + " " + std::to_string(i) + " does not exist (the file has " +
                 std::to_string(v.size()) + ")");
        return v[static_cast<size_t>(i)];
    }

    struct Span {
        const unsigned char* base;
        size_t stride;
    };
    Span span(int view_index, size_t offset, size_t count, size_t elem, bool strided, const std::string& what) const;
    std::vector<double> read_accessor(int index, std::initializer_list<int> types, const std::string& what) const;
    const std::vector<float>& floats(int index, int components, const std::string& what);
    const std::vector<uint32_t>& indices(int index, const std::string& what);

    int32_t material(int index);
    int32_t texture_view(const tinygltf::TextureInfo& info, int tex_coord, const tinygltf::ExtensionMap& ext, bool srgb,
                         int material_index, int* uv_set);
    void visit(int node, const glm::dmat4& parent, size_t depth);
    void add_primitive(const tinygltf::Primitive& p, const glm::dmat4& xf, int mesh, size_t k);
    void add_camera(int index, const std::string& node_name, const glm::dmat4& xf);

    Scene& scene_;
    std::string path_;
    const tinygltf::Model& m_;
    const std::vector<int32_t>& image_texture_;
    GltfOptions options_;
    std::map<int, std::vector<float>> float_cache_;
    std::map<int, std::vector<uint32_t>> index_cache_;
    std::vector<int32_t> material_slot_;  // file material -> scene material, -2 until converted
    std::vector<int> material_uv_;        // file material -> TEXCOORD set its textures read
    int32_t default_material_ = -1;
    std::vector<uint8_t> on_path_;
    uint64_t visits_ = 0;
    std::map<int, size_t> skipped_modes_;
    std::vector<std::pair<int, NamedCamera>> cameras_;
    size_t added_ = 0;
    bool uv_conflict_ = false;
};

inline double number(const tinygltf::Value& v, double fallback) {
    return v.IsNumber() ? v.GetNumberAsDouble() : fallback;
}

inline const tinygltf::Value* extension(const tinygltf::ExtensionMap& ext, const char* name) {
    auto it = ext.find(name);
    return it != ext.end() && it->second.IsObject() ? &it->second : nullptr;
}

}  // namespace pkrt::gltf
