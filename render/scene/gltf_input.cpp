// A glTF file's untrusted input, checked before and around tinygltf: its URIs, the .glb container and
// the JSON's buffers, buffer views and images (tinygltf 2.7 reads an image's buffer view without
// checking its range, and copies a zero-length GLB buffer through vector::at), and the file-system and
// image callbacks that keep tinygltf to the model's directory, read_input_file and pkrt's decoders.
// Apart from gltf_loader.cpp, which reads the model tinygltf built, so that what guards the parser
// can be read (and fuzzed) on its own.
#include "render/scene/gltf_input.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include <nlohmann/json.hpp>
#include <tiny_gltf.h>

#include "render/error.h"
#include "render/quote.h"
#include "render/scene/input_file.h"
#include "render/scene/json_input.h"
#include "render/scene/loaders.h"

namespace pkrt::gltf {

namespace {

using nlohmann::json;

constexpr uint64_t kMaxBufferBytes = uint64_t(1) << 34;

// ---- URIs ----

std::string percent_decoded(const std::string& s) {
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
            std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
            out += static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16));
            i += 2;
        } else {
            out += s[i];
        }
    }
    return out;
}

// "" when a relative file URI stays inside the model's directory, else why not.
std::string uri_problem(const std::string& decoded) {
    if (decoded.empty()) return "is empty";
    if (decoded.find('\0') != std::string::npos) return "contains a NUL byte";
    if (decoded.find("://") != std::string::npos) return "is not a local file (pkrt reads no remote URIs)";
    if (decoded[0] == '/') return "is an absolute path (glTF URIs are relative to the model's directory)";
    std::filesystem::path p(decoded);
    for (const auto& part : p)
        if (part == "..") return "escapes the model's directory ('..')";
    return "";
}

bool is_base64(const std::string& s) {
    size_t n = s.size();
    size_t pad = 0;
    while (pad < 2 && pad < n && s[n - 1 - pad] == '=') ++pad;
    if ((n % 4) != 0) return false;
    for (size_t i = 0; i + pad < n; ++i) {
        char c = s[i];
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '/')) return false;
    }
    return true;
}

// Checks a buffer's or image's URI; `mimes` are the data: URI types tinygltf decodes for it.
void check_uri(const std::string& path, const std::string& where, const std::string& uri,
               std::initializer_list<const char*> mimes) {
    if (uri.rfind("data:", 0) == 0) {
        size_t comma = uri.find(',');
        std::string head = uri.substr(0, comma);
        bool known = false;
        for (const char* m : mimes) known = known || head == std::string("data:") + m + ";base64";
        if (comma == std::string::npos || !known) {
            std::string list;
            for (const char* m : mimes) list += std::string(list.empty() ? "" : ", ") + m;
            throw Error(path + ": " + where + ": unsupported data: URI '" + head.substr(0, 60) +
                        "' (pkrt reads base64 " + list + ")");
        }
        if (!is_base64(uri.substr(comma + 1))) throw Error(path + ": " + where + ": data: URI is not valid base64");
        return;
    }
    std::string why = uri_problem(percent_decoded(uri));
    if (!why.empty()) throw Error(path + ": " + where + ": URI '" + uri.substr(0, 200) + "' " + why);
}

// ---- the container and the JSON, before tinygltf ----

}  // namespace

GlbChunks check_glb(const std::string& path, const std::string& b) {
    GlbChunks c;
    if (b.size() < 20)
        throw Error(path + ": truncated .glb: " + std::to_string(b.size()) +
                    " bytes, less than its 12-byte header and a chunk header");
    uint32_t version = le32(b, 4), length = le32(b, 8);
    if (version != 2)
        throw Error(path + ": binary glTF version " + std::to_string(version) + " (pkrt reads version 2)");
    if (length > b.size())
        throw Error(path + ": truncated .glb: its header says " + std::to_string(length) + " bytes, the file has " +
                    std::to_string(b.size()));
    if (length < b.size())
        throw Error(path + ": .glb has " + std::to_string(b.size() - length) +
                    " bytes after the length its header gives");
    uint64_t json_len = le32(b, 12);
    if (le32(b, 16) != 0x4E4F534Au) throw Error(path + ": .glb: the first chunk is not JSON");
    if (json_len == 0 || 20 + json_len > length)
        throw Error(path + ": truncated .glb: the JSON chunk of " + std::to_string(json_len) +
                    " bytes does not fit in the file");
    c.json_offset = 20;
    c.json_size = static_cast<size_t>(json_len);
    uint64_t at = 20 + json_len;
    if (at < length) {
        if (at + 8 > length) throw Error(path + ": truncated .glb: a chunk header is cut off");
        uint64_t bin_len = le32(b, at);
        if (le32(b, at + 4) != 0x004E4942u) throw Error(path + ": .glb: the second chunk is not BIN");
        if (at + 8 + bin_len > length)
            throw Error(path + ": truncated .glb: the BIN chunk of " + std::to_string(bin_len) +
                        " bytes does not fit in the file");
        c.bin_size = bin_len;
    }
    return c;
}

namespace {

bool get_index(const json& o, const char* key, uint64_t* out) {
    auto it = o.find(key);
    if (it == o.end()) return false;
    if (!it->is_number_unsigned())
        throw std::invalid_argument(std::string("'") + key + "' must be a non-negative integer");
    *out = it->get<uint64_t>();
    return true;
}

// Each object of the top-level array `key` (absent: none), with `where` naming the array, then each
// element, for the error messages.
template <class F> void for_each_object(const json& doc, const char* key, std::string& where, F&& f) {
    if (!doc.contains(key)) return;
    const json& array = doc[key];
    where = key;
    if (!array.is_array()) throw std::invalid_argument("must be an array");
    for (size_t i = 0; i < array.size(); ++i) {
        where = std::string(key) + "[" + std::to_string(i) + "]";
        const json& o = array[i];
        if (!o.is_object()) throw std::invalid_argument("must be an object");
        f(i, o);
    }
}

}  // namespace

// What tinygltf would otherwise read unchecked: buffer lengths, buffer view ranges, URIs.
void charge_asset_bytes(Scene& scene, const std::string& file, uint64_t bytes) {
    check_asset_budget(scene.limits, file, scene.asset_bytes, bytes);
    scene.asset_bytes += bytes;
}

InputFile read_asset_file(Scene& scene, const std::string& path, const std::string& not_found) {
    const uint64_t left = scene.limits.max_asset_bytes - std::min(scene.asset_bytes, scene.limits.max_asset_bytes);
    InputFile f;
    try {
        f = read_input_file(path, not_found, left);
    } catch (const InputTooLarge& big) {
        charge_asset_bytes(scene, path, big.size);  // over the budget: throws the budget's message
        throw;
    }
    charge_asset_bytes(scene, path, f.bytes.size());
    scene.inputs.push_back({path, f.id});
    return f;
}

void check_json(const std::string& path, const char* text, size_t size, bool glb, uint64_t bin_size,
                const Scene& scene) {
    json doc = parse_json_file(path, text, size, /*comments=*/false);
    if (!doc.is_object()) throw Error(path + ": invalid glTF: the top level is not an object");
    std::string where;
    try {
        std::vector<uint64_t> buffer_len;
        uint64_t external = 0;  // bytes of the buffers in files of their own, each read whole
        for_each_object(doc, "buffers", where, [&](size_t i, const json& o) {
            uint64_t len = 0;
            if (!get_index(o, "byteLength", &len) || len == 0)
                throw std::invalid_argument("byteLength must be at least 1");
            if (len > kMaxBufferBytes) throw std::invalid_argument("byteLength " + std::to_string(len) + " is absurd");
            if (o.contains("uri")) {
                if (!o["uri"].is_string()) throw std::invalid_argument("uri must be a string");
                check_uri(path, where, o["uri"].get<std::string>(),
                          {"application/octet-stream", "application/gltf-buffer"});
                if (o["uri"].get<std::string>().rfind("data:", 0) != 0) external += len;
            } else if (!glb || i != 0) {
                throw std::invalid_argument("has no uri (only a .glb's first buffer may use its BIN chunk)");
            } else if (len > bin_size) {
                throw std::invalid_argument("byteLength " + std::to_string(len) +
                                            " is more than the .glb's BIN chunk of " + std::to_string(bin_size) +
                                            " bytes");
            }
            buffer_len.push_back(len);
        });
        size_t views = 0;
        for_each_object(doc, "bufferViews", where, [&](size_t, const json& o) {
            ++views;
            uint64_t buf = 0, off = 0, len = 0, stride = 0;
            if (!get_index(o, "buffer", &buf) || buf >= buffer_len.size())
                throw std::invalid_argument("buffer must be one of the " + std::to_string(buffer_len.size()) +
                                            " buffers");
            get_index(o, "byteOffset", &off);
            if (!get_index(o, "byteLength", &len) || len == 0)
                throw std::invalid_argument("byteLength must be at least 1");
            if (off > buffer_len[buf] || len > buffer_len[buf] - off)
                throw std::invalid_argument("bytes " + std::to_string(off) + " to " + std::to_string(off + len) +
                                            " are past the end of buffer " + std::to_string(buf) + " (" +
                                            std::to_string(buffer_len[buf]) + " bytes)");
            if (get_index(o, "byteStride", &stride) && (stride < 4 || stride > 252 || stride % 4))
                throw std::invalid_argument("byteStride " + std::to_string(stride) +
                                            " is not a multiple of 4 in [4, 252]");
        });
        for_each_object(doc, "images", where, [&](size_t, const json& o) {
            uint64_t view = 0;
            if (get_index(o, "bufferView", &view) && view >= views)
                throw std::invalid_argument("bufferView must be one of the " + std::to_string(views) + " buffer views");
            if (o.contains("uri")) {
                if (!o["uri"].is_string()) throw std::invalid_argument("uri must be a string");
                check_uri(path, where, o["uri"].get<std::string>(), {"image/png", "image/jpeg"});
            }
        });
        // Before any is read: tinygltf reads a buffer's file whole before comparing its size.
        where = "buffers";
        check_asset_budget(scene.limits, path + ": buffers", scene.asset_bytes, external);
    } catch (const std::invalid_argument& e) {
        throw Error(path + ": " + where + ": " + e.what());
    }
    check_schema(path, doc);
}

// ---- tinygltf's callbacks ----

namespace {

// The URI part of a path tinygltf built by joining `base` and a URI; "" (refused) for anything else,
// such as the "./URI" it also tries, relative to the working directory.
bool uri_of(const Context& c, const std::string& joined, std::string* uri) {
    std::string prefix = c.base + "/";
    if (joined.compare(0, prefix.size(), prefix) != 0) return false;
    *uri = joined.substr(prefix.size());
    return true;
}

}  // namespace

bool fs_exists(const std::string& joined, void* user) {
    auto* c = static_cast<Context*>(user);
    std::string uri;
    return uri_of(*c, joined, &uri) && uri_problem(uri).empty();
}

std::string fs_expand(const std::string& path, void*) { return path; }

bool fs_read(std::vector<unsigned char>* out, std::string* err, const std::string& joined, void* user) {
    auto* c = static_cast<Context*>(user);
    std::string uri, why;
    if (!uri_of(*c, joined, &uri)) why = "'" + joined + "' is outside the model's directory";
    else if (!(why = uri_problem(uri)).empty()) why = "URI '" + uri + "' " + why;
    try {
        if (!why.empty()) throw Error(why);
        InputFile f = read_asset_file(c->scene, joined, "no such file (the model refers to it)");
        out->assign(f.bytes.begin(), f.bytes.end());
        return true;
    } catch (const std::exception& e) {
        if (c->error.empty()) c->error = c->path + ": " + e.what();
        if (err) *err += e.what();
        return false;
    }
}

bool fs_write(std::string* err, const std::string&, const std::vector<unsigned char>&, void*) {
    if (err) *err += "pkrt writes no glTF files";
    return false;
}

bool load_image(tinygltf::Image* image, const int index, std::string* err, std::string*, int, int,
                const unsigned char* bytes, int size, void* user) {
    auto* c = static_cast<Context*>(user);
    try {
        if (index < 0 || size <= 0) throw Error(c->path + ": image " + std::to_string(index) + " is empty");
        const bool file = !image->uri.empty() && image->uri.rfind("data:", 0) != 0;
        std::string name =
            c->path + ": image " + std::to_string(index) + (file ? " '" + quote_input(image->uri) + "'" : "");
        int32_t t = decode_texture(c->scene, name, file ? image->uri : "", bytes, static_cast<size_t>(size));
        if (c->image_texture.size() <= static_cast<size_t>(index))
            c->image_texture.resize(static_cast<size_t>(index) + 1, -1);
        c->image_texture[static_cast<size_t>(index)] = t;
        image->width = c->scene.textures[t].width;
        image->height = c->scene.textures[t].height;
        image->component = 4;
        image->bits = 8;
        return true;
    } catch (const std::exception& e) {
        if (c->error.empty()) c->error = e.what();
        if (err) *err += e.what();
        return false;
    }
}

}  // namespace pkrt::gltf
