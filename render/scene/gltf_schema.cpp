// The types and sizes of the glTF 2.0 properties tinygltf reads, checked on the JSON before tinygltf
// sees it: tinygltf 2.7 drops a property of the wrong type and keeps its default (baseColorFactor
// [1, 0, 0] renders white-grey, `"scene": "0"` scene 0), which renders a different picture without a
// word. Each is an Error naming the property's JSON path. Properties outside the schema (extras, other
// extensions) are left alone; indices are checked against their arrays later, by the reader.
#include <nlohmann/json.hpp>

#include "render/error.h"
#include "render/scene/gltf_input.h"
#include "render/scene/json_input.h"

namespace pkrt::gltf {

namespace {

using nlohmann::json;

enum class Type { kIndex, kCount, kNumber, kBool, kString, kObject, kIndices, kNumbers, kStrings, kObjects, kIndexMap };

struct Shape;

struct Property {
    const char* key;
    Type type;
    const Shape* shape = nullptr;  // kObject, kObjects: the members' shape (none: any object)
    size_t count = 0;              // kNumbers: exactly this many (0: any)
    bool required = false;
};

struct Shape {
    std::initializer_list<Property> properties;
};

constexpr bool kRequired = true;

// KHR_texture_transform, the one extension of a texture reference pkrt reads.
const Shape kTextureTransform{{{"offset", Type::kNumbers, nullptr, 2},
                               {"rotation", Type::kNumber},
                               {"scale", Type::kNumbers, nullptr, 2},
                               {"texCoord", Type::kIndex}}};
const Shape kTextureInfoExtensions{{{"KHR_texture_transform", Type::kObject, &kTextureTransform}}};
const Shape kTextureInfo{{{"index", Type::kIndex, nullptr, 0, kRequired},
                          {"texCoord", Type::kIndex},
                          {"scale", Type::kNumber},
                          {"strength", Type::kNumber},
                          {"extensions", Type::kObject, &kTextureInfoExtensions}}};
const Shape kPbr{{{"baseColorFactor", Type::kNumbers, nullptr, 4},
                  {"baseColorTexture", Type::kObject, &kTextureInfo},
                  {"metallicFactor", Type::kNumber},
                  {"roughnessFactor", Type::kNumber},
                  {"metallicRoughnessTexture", Type::kObject, &kTextureInfo}}};
const Shape kEmissiveStrength{{{"emissiveStrength", Type::kNumber}}};
const Shape kTransmission{
    {{"transmissionFactor", Type::kNumber}, {"transmissionTexture", Type::kObject, &kTextureInfo}}};
const Shape kIor{{{"ior", Type::kNumber}}};
const Shape kMaterialExtensions{{{"KHR_materials_emissive_strength", Type::kObject, &kEmissiveStrength},
                                 {"KHR_materials_transmission", Type::kObject, &kTransmission},
                                 {"KHR_materials_ior", Type::kObject, &kIor},
                                 {"KHR_materials_volume", Type::kObject}}};
const Shape kMaterial{{{"name", Type::kString},
                       {"pbrMetallicRoughness", Type::kObject, &kPbr},
                       {"normalTexture", Type::kObject, &kTextureInfo},
                       {"occlusionTexture", Type::kObject, &kTextureInfo},
                       {"emissiveTexture", Type::kObject, &kTextureInfo},
                       {"emissiveFactor", Type::kNumbers, nullptr, 3},
                       {"alphaMode", Type::kString},
                       {"alphaCutoff", Type::kNumber},
                       {"doubleSided", Type::kBool},
                       {"extensions", Type::kObject, &kMaterialExtensions}}};
const Shape kPrimitive{{{"attributes", Type::kIndexMap, nullptr, 0, kRequired},
                        {"indices", Type::kIndex},
                        {"material", Type::kIndex},
                        {"mode", Type::kIndex},
                        {"targets", Type::kObjects}}};
const Shape kMesh{
    {{"primitives", Type::kObjects, &kPrimitive, 0, kRequired}, {"weights", Type::kNumbers}, {"name", Type::kString}}};
const Shape kNode{{{"camera", Type::kIndex},
                   {"children", Type::kIndices},
                   {"skin", Type::kIndex},
                   {"matrix", Type::kNumbers, nullptr, 16},
                   {"mesh", Type::kIndex},
                   {"rotation", Type::kNumbers, nullptr, 4},
                   {"scale", Type::kNumbers, nullptr, 3},
                   {"translation", Type::kNumbers, nullptr, 3},
                   {"weights", Type::kNumbers},
                   {"name", Type::kString}}};
const Shape kScene{{{"nodes", Type::kIndices}, {"name", Type::kString}}};
const Shape kSparseIndices{{{"bufferView", Type::kIndex, nullptr, 0, kRequired},
                            {"byteOffset", Type::kCount},
                            {"componentType", Type::kIndex, nullptr, 0, kRequired}}};
const Shape kSparseValues{{{"bufferView", Type::kIndex, nullptr, 0, kRequired}, {"byteOffset", Type::kCount}}};
const Shape kSparse{{{"count", Type::kCount, nullptr, 0, kRequired},
                     {"indices", Type::kObject, &kSparseIndices, 0, kRequired},
                     {"values", Type::kObject, &kSparseValues, 0, kRequired}}};
const Shape kAccessor{{{"bufferView", Type::kIndex},
                       {"byteOffset", Type::kCount},
                       {"componentType", Type::kIndex, nullptr, 0, kRequired},
                       {"normalized", Type::kBool},
                       {"count", Type::kCount, nullptr, 0, kRequired},
                       {"type", Type::kString, nullptr, 0, kRequired},
                       {"max", Type::kNumbers},
                       {"min", Type::kNumbers},
                       {"sparse", Type::kObject, &kSparse}}};
const Shape kTexture{{{"sampler", Type::kIndex}, {"source", Type::kIndex}}};
const Shape kSampler{
    {{"magFilter", Type::kIndex}, {"minFilter", Type::kIndex}, {"wrapS", Type::kIndex}, {"wrapT", Type::kIndex}}};
const Shape kImage{{{"mimeType", Type::kString}}};  // uri and bufferView: check_json
const Shape kPerspective{{{"aspectRatio", Type::kNumber},
                          {"yfov", Type::kNumber, nullptr, 0, kRequired},
                          {"zfar", Type::kNumber},
                          {"znear", Type::kNumber}}};
const Shape kOrthographic{
    {{"xmag", Type::kNumber}, {"ymag", Type::kNumber}, {"zfar", Type::kNumber}, {"znear", Type::kNumber}}};
const Shape kCamera{{{"type", Type::kString, nullptr, 0, kRequired},
                     {"perspective", Type::kObject, &kPerspective},
                     {"orthographic", Type::kObject, &kOrthographic}}};
const Shape kSkin{{{"inverseBindMatrices", Type::kIndex}, {"skeleton", Type::kIndex}, {"joints", Type::kIndices}}};
const Shape kAnimation{{{"channels", Type::kObjects}, {"samplers", Type::kObjects}}};
const Shape kAsset{{{"version", Type::kString}, {"minVersion", Type::kString}}};
const Shape kTop{{{"scene", Type::kIndex},
                  {"scenes", Type::kObjects, &kScene},
                  {"nodes", Type::kObjects, &kNode},
                  {"meshes", Type::kObjects, &kMesh},
                  {"materials", Type::kObjects, &kMaterial},
                  {"accessors", Type::kObjects, &kAccessor},
                  {"textures", Type::kObjects, &kTexture},
                  {"samplers", Type::kObjects, &kSampler},
                  {"images", Type::kObjects, &kImage},
                  {"cameras", Type::kObjects, &kCamera},
                  {"skins", Type::kObjects, &kSkin},
                  {"animations", Type::kObjects, &kAnimation},
                  {"asset", Type::kObject, &kAsset},
                  {"extensionsUsed", Type::kStrings},
                  {"extensionsRequired", Type::kStrings}}};

bool is_index(const json& v) { return v.is_number_unsigned() && v.get<uint64_t>() <= uint64_t(INT32_MAX); }

void check_shape(const json& o, const Shape& shape, const std::string& where);

// "" when `v` is of the property's type, else what it must be.
std::string type_problem(const json& v, const Property& p, const std::string& where) {
    auto all = [&](bool (*ok)(const json&)) {
        for (const json& e : v)
            if (!ok(e)) return false;
        return true;
    };
    switch (p.type) {
        case Type::kIndex: return is_index(v) ? "" : "must be a non-negative integer";
        case Type::kCount:
            return v.is_number_unsigned()
                       ? ""
                       : "must be a non-negative integer";  // any size: the reader compares it with its view
        case Type::kNumber: return v.is_number() ? "" : "must be a number";
        case Type::kBool: return v.is_boolean() ? "" : "must be true or false";
        case Type::kString: return v.is_string() ? "" : "must be a string";
        case Type::kObject:
            if (!v.is_object()) return "must be an object";
            if (p.shape) check_shape(v, *p.shape, where);
            return "";
        case Type::kIndices: return v.is_array() && all(is_index) ? "" : "must be an array of non-negative integers";
        case Type::kNumbers:
            if (!v.is_array() || !all([](const json& e) { return e.is_number(); }) || (p.count && v.size() != p.count))
                return p.count ? "must be an array of " + std::to_string(p.count) + " numbers"
                               : "must be an array of numbers";
            return "";
        case Type::kStrings:
            return v.is_array() && all([](const json& e) { return e.is_string(); }) ? ""
                                                                                    : "must be an array of strings";
        case Type::kObjects:
            if (!v.is_array()) return "must be an array";
            for (size_t i = 0; i < v.size(); ++i) {
                std::string at = where + "[" + std::to_string(i) + "]";
                if (!v[i].is_object()) throw Error(at + ": must be an object");
                if (p.shape) check_shape(v[i], *p.shape, at);
            }
            return "";
        case Type::kIndexMap:
            if (!v.is_object()) return "must be an object";
            for (auto it = v.begin(); it != v.end(); ++it)
                if (!is_index(it.value()))
                    throw Error(where + "." + json_excerpt(it.key()) + ": must be a non-negative integer");
            return "";
    }
    return "";
}

void check_shape(const json& o, const Shape& shape, const std::string& where) {
    for (const Property& p : shape.properties) {
        std::string at = where.empty() ? p.key : where + "." + p.key;
        auto it = o.find(p.key);
        if (it == o.end()) {
            if (p.required) throw Error(at + ": is required");
            continue;
        }
        std::string why = type_problem(*it, p, at);
        if (!why.empty()) throw Error(at + ": " + why);
    }
}

}  // namespace

void check_schema(const std::string& path, const json& doc) {
    try {
        check_shape(doc, kTop, "");
    } catch (const Error& e) {
        throw Error(path + ": " + e.what());
    }
}

}  // namespace pkrt::gltf
