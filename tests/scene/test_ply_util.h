// PLY files written by the tests, in any encoding, property types and spellings, so that each loader
// test states its mesh once and reads it back in every form (test_ply.cpp, test_hostile_input.cpp).
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace pkrt_test {

enum class PlyEncoding { kAscii, kLittleEndian, kBigEndian };

struct PlyVertex {
    double p[3];
    double n[3] = {0, 0, 0};
    double uv[2] = {0, 0};
};

struct PlyMesh {
    std::vector<PlyVertex> vertices;
    std::vector<std::vector<int64_t>> faces;
};

struct PlyLayout {
    std::string position_type = "float";
    std::string normal_type;  // empty: no normals
    std::string uv_type;      // empty: no texture coordinates
    std::string uv_names[2] = {"u", "v"};
    std::string count_type = "uchar", index_type = "int";
    std::string index_name = "vertex_indices";
};

inline const char* ply_format_name(PlyEncoding e) {
    if (e == PlyEncoding::kAscii) return "ascii";
    return e == PlyEncoding::kLittleEndian ? "binary_little_endian" : "binary_big_endian";
}

// One value of a PLY type, as text or as bytes in the file's byte order.
inline void put_ply_value(std::string& out, PlyEncoding e, const std::string& type, double v) {
    if (e == PlyEncoding::kAscii) {
        char buf[40];
        bool integer = type != "float" && type != "double" && type != "float32" && type != "float64";
        std::snprintf(buf, sizeof buf, integer ? "%.0f" : "%.17g", v);
        out += out.empty() || out.back() == '\n' ? "" : " ";
        out += buf;
        return;
    }
    unsigned char bytes[8];
    size_t size = 0;
    auto store = [&](const auto& x) {
        size = sizeof x;
        std::memcpy(bytes, &x, size);
    };
    if (type == "char" || type == "int8") store(static_cast<int8_t>(v));
    else if (type == "uchar" || type == "uint8") store(static_cast<uint8_t>(v));
    else if (type == "short") store(static_cast<int16_t>(v));
    else if (type == "ushort") store(static_cast<uint16_t>(v));
    else if (type == "int" || type == "int32") store(static_cast<int32_t>(v));
    else if (type == "uint" || type == "uint32") store(static_cast<uint32_t>(v));
    else if (type == "float") store(static_cast<float>(v));
    else store(v);
    for (size_t k = 0; k < size; ++k) {
        size_t i = e == PlyEncoding::kBigEndian ? size - 1 - k : k;  // the tests run little-endian
        out += static_cast<char>(bytes[i]);
    }
}

inline std::string ply_header(const PlyMesh& m, PlyEncoding e, const PlyLayout& l) {
    std::string h = "ply\nformat " + std::string(ply_format_name(e)) + " 1.0\ncomment written by pkrt's tests\n";
    h += "element vertex " + std::to_string(m.vertices.size()) + "\n";
    for (const char* c : {"x", "y", "z"}) h += "property " + l.position_type + " " + c + "\n";
    if (!l.normal_type.empty())
        for (const char* c : {"nx", "ny", "nz"}) h += "property " + l.normal_type + " " + c + "\n";
    if (!l.uv_type.empty())
        for (const auto& c : l.uv_names) h += "property " + l.uv_type + " " + c + "\n";
    h += "element face " + std::to_string(m.faces.size()) + "\n";
    h += "property list " + l.count_type + " " + l.index_type + " " + l.index_name + "\n";
    return h + "end_header\n";
}

inline std::string ply_body(const PlyMesh& m, PlyEncoding e, const PlyLayout& l) {
    std::string out;
    auto end_record = [&]() {
        if (e == PlyEncoding::kAscii) out += "\n";
    };
    for (const auto& v : m.vertices) {
        for (double c : v.p) put_ply_value(out, e, l.position_type, c);
        if (!l.normal_type.empty())
            for (double c : v.n) put_ply_value(out, e, l.normal_type, c);
        if (!l.uv_type.empty())
            for (double c : v.uv) put_ply_value(out, e, l.uv_type, c);
        end_record();
    }
    for (const auto& f : m.faces) {
        put_ply_value(out, e, l.count_type, static_cast<double>(f.size()));
        for (int64_t i : f) put_ply_value(out, e, l.index_type, static_cast<double>(i));
        end_record();
    }
    return out;
}

inline std::string ply_file(const PlyMesh& m, PlyEncoding e, const PlyLayout& l = {}) {
    return ply_header(m, e, l) + ply_body(m, e, l);
}

}  // namespace pkrt_test
