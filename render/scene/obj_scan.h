// A strict first pass over OBJ and MTL text, before tinyobjloader parses it. tinyobjloader reads
// "nan", hexadecimal and other non-numbers as 0, wraps indices past 32 bits (f 1 2 4294967299 is
// vertex 3), turns exponents past the double range into finite numbers and splits lines on CR only
// where its own reader does. This pass rejects all of that with the file and line, counts the
// triangles a scene will hold before any is allocated, and keeps its own (correctly rounded) values.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace pkrt {

// CR LF and lone CR become LF, so every reader sees the same lines; a leading UTF-8 BOM is dropped.
std::string normalize_line_endings(std::string text);

struct ObjScan {
    std::vector<float> positions;  // 3 per `v`; NaN and infinities kept (those triangles are dropped, counted)
    std::vector<float> normals;    // 3 per `vn`
    std::vector<float> texcoords;  // 2 per `vt`
    uint64_t triangles = 0;        // sum over faces of corners - 2
};

// Throws Error "<path>:<line>: ..." on a malformed number or index, an index out of range, a face with
// fewer than 3 or more than max_corners corners.
ObjScan scan_obj(const std::string& path, const std::string& text, uint64_t max_corners);

// The statements of each material of an MTL, by keyword (what pkrt honours, and warns about the rest).
struct MtlScan {
    std::map<std::string, std::set<std::string>> keys;  // material name -> keywords it uses
};

// The values pkrt reads from an MTL are checked like the JSON scene's: colours finite and in [0, 1]
// (Kd, Ks, Tf), emission Ke finite, non-negative and at most kMaxRadiance, Ns >= 0, d, Tr, Pr and Pm in
// [0, 1].
MtlScan scan_mtl(const std::string& path, const std::string& text);

// Emission and environment radiance above this are rejected: a path's products of it with BSDF
// weights and pdfs would overflow single precision, giving infinite pixels or black light tables.
constexpr double kMaxRadiance = 1e20;
// The same bound for a value already rounded to float: 1e20 becomes 1.00000002e20, which a comparison with
// the double 1e20 would refuse although the file said exactly 1e20.
constexpr float kMaxRadianceFloat = static_cast<float>(kMaxRadiance);

}  // namespace pkrt
