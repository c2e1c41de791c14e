// What gltf_loader.cpp needs of gltf_input.cpp: the checks that run before tinygltf parses a file, and
// the callbacks it reads through while it does. Internal to the glTF loader; nothing else includes it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "render/scene/input_file.h"
#include "render/scene/scene.h"

namespace tinygltf {
struct Image;
}

namespace pkrt::gltf {

struct GlbChunks {
    size_t json_offset = 0, json_size = 0;
    uint64_t bin_size = 0;  // 0: no BIN chunk
};

// The 12-byte header and the JSON and BIN chunk headers of a .glb, each against the file's size;
// throws Error naming `path`.
GlbChunks check_glb(const std::string& path, const std::string& b);

// What tinygltf would otherwise read unchecked: buffer lengths (their sum within the scene's budget of
// asset bytes), buffer view ranges, URIs, then the types of the properties tinygltf reads (check_schema).
void check_json(const std::string& path, const char* text, size_t size, bool glb, uint64_t bin_size,
                const Scene& scene);

// The types and sizes of the glTF properties tinygltf reads (gltf_schema.cpp); throws Error naming the
// property's JSON path.
void check_schema(const std::string& path, const nlohmann::json& doc);

// Charges `bytes` read from `file` to the scene's budget of glTF asset bytes; throws Error when over it.
void charge_asset_bytes(Scene& scene, const std::string& file, uint64_t bytes);

// read_input_file within what is left of that budget, charged to it and recorded as a scene input.
InputFile read_asset_file(Scene& scene, const std::string& path, const std::string& not_found);

// Shared by tinygltf's callbacks (their `user` pointer) and load_gltf.
struct Context {
    Scene& scene;
    std::string path;                    // the .gltf or .glb
    std::string base;                    // its directory, as tinygltf joins URIs to it
    std::string error;                   // the first problem a callback met (tinygltf's own message is vaguer)
    std::vector<int32_t> image_texture;  // glTF image -> scene.textures, -1 until decoded
};

// tinygltf's FsCallbacks: every file through read_input_file, no URI outside the model's directory,
// no expansion of `~` or variables, no writes.
bool fs_exists(const std::string& joined, void* user);
std::string fs_expand(const std::string& path, void*);
bool fs_read(std::vector<unsigned char>* out, std::string* err, const std::string& joined, void* user);
bool fs_write(std::string* err, const std::string&, const std::vector<unsigned char>&, void*);

// tinygltf's image loader: pkrt's texture decoders instead of tinygltf's stb_image, within the scene's budget.
bool load_image(tinygltf::Image* image, const int index, std::string* err, std::string*, int, int,
                const unsigned char* bytes, int size, void* user);

}  // namespace pkrt::gltf
