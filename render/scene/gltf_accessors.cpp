// glTF accessors, read only here: each checked against its buffer view and buffer first, sparse
// accessors applied (tinygltf 2.7 parses `sparse` but leaves the values alone). See gltf_loader.cpp.
#include <algorithm>
#include <cstring>

#include "render/scene/gltf_reader.h"

namespace pkrt::gltf {

namespace {

size_t component_size(int type) {
    switch (type) {
        case TINYGLTF_COMPONENT_TYPE_BYTE:
        case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE: return 1;
        case TINYGLTF_COMPONENT_TYPE_SHORT:
        case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: return 2;
        case TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT:
        case TINYGLTF_COMPONENT_TYPE_FLOAT: return 4;
        default: return 0;  // INT and DOUBLE are not glTF 2.0 accessor types
    }
}

size_t type_components(int type) {
    switch (type) {
        case TINYGLTF_TYPE_SCALAR: return 1;
        case TINYGLTF_TYPE_VEC2: return 2;
        case TINYGLTF_TYPE_VEC3: return 3;
        case TINYGLTF_TYPE_VEC4: return 4;
        case TINYGLTF_TYPE_MAT2: return 4;
        case TINYGLTF_TYPE_MAT3: return 9;
        case TINYGLTF_TYPE_MAT4: return 16;
        default: return 0;
    }
}

double read_component(const unsigned char* p, int type, bool normalized) {
    switch (type) {
        case TINYGLTF_COMPONENT_TYPE_BYTE: {
            int8_t v;
            std::memcpy(&v, p, 1);
            return normalized ? std::max(v / 127.0, -1.0) : v;
        }
        case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE: return normalized ? p[0] / 255.0 : p[0];
        case TINYGLTF_COMPONENT_TYPE_SHORT: {
            int16_t v;
            std::memcpy(&v, p, 2);
            return normalized ? std::max(v / 32767.0, -1.0) : v;
        }
        case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: {
            uint16_t v;
            std::memcpy(&v, p, 2);
            return normalized ? v / 65535.0 : v;
        }
        case TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT: {
            uint32_t v;
            std::memcpy(&v, p, 4);
            return normalized ? v / 4294967295.0 : v;
        }
        default: {
            float v;
            std::memcpy(&v, p, 4);
            return v;
        }
    }
}

// `count` elements of `elem` bytes, `offset` bytes into the buffer view, at the view's stride (or packed).

}  // namespace

Reader::Span Reader::span(int view_index, size_t offset, size_t count, size_t elem, bool strided,
                          const std::string& what) const {
    const tinygltf::BufferView& v = at(m_.bufferViews, view_index, (what + ": buffer view").c_str());
    const tinygltf::Buffer& b = at(m_.buffers, v.buffer, (what + ": buffer").c_str());
    if (v.byteOffset > b.data.size() || v.byteLength > b.data.size() - v.byteOffset)
        fail(what + ": buffer view " + std::to_string(view_index) + " lies past the end of its buffer");
    size_t stride = strided && v.byteStride ? v.byteStride : elem;
    if (stride < elem)
        fail(what + ": buffer view " + std::to_string(view_index) + "'s byteStride " + std::to_string(stride) +
             " is smaller than an element (" + std::to_string(elem) + " bytes)");
    size_t len = v.byteLength;
    if (offset > len || elem > len - offset || count - 1 > (len - offset - elem) / stride)
        fail(what + ": " + std::to_string(count) + " elements of " + std::to_string(elem) + " bytes every " +
             std::to_string(stride) + " from byte " + std::to_string(offset) + " run past the end of buffer view " +
             std::to_string(view_index) + " (" + std::to_string(len) + " bytes)");
    return {b.data.data() + v.byteOffset + offset, stride};
}

std::vector<double> Reader::read_accessor(int index, std::initializer_list<int> types,
                                          const std::string& what_in) const {
    std::string what = what_in + ": accessor " + std::to_string(index);
    const tinygltf::Accessor& a = at(m_.accessors, index, (what_in + ": accessor").c_str());
    size_t comps = type_components(a.type), csize = component_size(a.componentType);
    if (!csize) fail(what + ": invalid componentType " + std::to_string(a.componentType));
    if (std::find(types.begin(), types.end(), static_cast<int>(comps)) == types.end() || a.type == TINYGLTF_TYPE_MAT2)
        fail(what + ": has the wrong type for its use");
    if (a.count == 0) fail(what + ": count is 0");
    // Without a buffer view the count is not bounded by any data: check it against the scene's budget.
    uint64_t max_count = 3 * scene_.limits.max_triangles + 3;
    if (a.count > max_count)
        fail(what + ": count " + std::to_string(a.count) +
             " is more than three times the triangle limit (raise it with --max-triangles)");
    std::vector<double> out(a.count * comps, 0.0);
    if (a.bufferView >= 0) {
        Span s = span(a.bufferView, a.byteOffset, a.count, comps * csize, true, what);
        for (size_t i = 0; i < a.count; ++i)
            for (size_t k = 0; k < comps; ++k)
                out[i * comps + k] = read_component(s.base + i * s.stride + k * csize, a.componentType, a.normalized);
    }
    if (a.sparse.isSparse) {
        const auto& sp = a.sparse;
        if (sp.count <= 0 || static_cast<size_t>(sp.count) > a.count)
            fail(what + ": sparse count " + std::to_string(sp.count) + " is not in [1, " + std::to_string(a.count) +
                 "]");
        int it = sp.indices.componentType;
        if (it != TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE && it != TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT &&
            it != TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT)
            fail(what + ": sparse indices have an invalid componentType " + std::to_string(it));
        if (sp.indices.byteOffset < 0 || sp.values.byteOffset < 0) fail(what + ": negative sparse byteOffset");
        size_t n = static_cast<size_t>(sp.count);
        Span si = span(sp.indices.bufferView, static_cast<size_t>(sp.indices.byteOffset), n, component_size(it), false,
                       what + " (sparse indices)");
        Span sv = span(sp.values.bufferView, static_cast<size_t>(sp.values.byteOffset), n, comps * csize, false,
                       what + " (sparse values)");
        for (size_t j = 0; j < n; ++j) {
            double target = read_component(si.base + j * si.stride, it, false);
            if (target >= static_cast<double>(a.count))
                fail(what + ": sparse index " + std::to_string(static_cast<uint64_t>(target)) + " is past its " +
                     std::to_string(a.count) + " elements");
            size_t t = static_cast<size_t>(target);
            for (size_t k = 0; k < comps; ++k)
                out[t * comps + k] = read_component(sv.base + j * sv.stride + k * csize, a.componentType, a.normalized);
        }
    }
    return out;
}

const std::vector<float>& Reader::floats(int index, int components, const std::string& what) {
    auto it = float_cache_.find(index);
    if (it != float_cache_.end()) return it->second;
    std::vector<double> d = read_accessor(index, {components}, what);
    std::vector<float> f(d.begin(), d.end());
    return float_cache_[index] = std::move(f);
}

const std::vector<uint32_t>& Reader::indices(int index, const std::string& what) {
    auto it = index_cache_.find(index);
    if (it != index_cache_.end()) return it->second;
    const tinygltf::Accessor& a = at(m_.accessors, index, (what + ": index accessor").c_str());
    int ct = a.componentType;
    if (ct != TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE && ct != TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT &&
        ct != TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT)
        fail(what + ": index accessor " + std::to_string(index) + " has componentType " + std::to_string(ct) +
             " (indices are unsigned byte, short or int)");
    std::vector<double> d = read_accessor(index, {1}, what + " (indices)");
    std::vector<uint32_t> u(d.size());
    for (size_t i = 0; i < d.size(); ++i) u[i] = static_cast<uint32_t>(d[i]);
    return index_cache_[index] = std::move(u);
}

}  // namespace pkrt::gltf
