// A strict pass over a PLY file before assimp parses it. assimp's PLY reader takes element counts from
// the header and allocates them before reading a record, copies face indices without checking them
// against the vertex count, reads ASCII numbers with a fast but not correctly rounded parser and gives
// meaning to properties pkrt does not use (material splits, colours). This pass parses the header,
// checks every count against the file's size and the scene's limits, walks every record (binary: each
// list's count and each index; ASCII: each line's tokens and numbers) and rewrites the file into the
// only form assimp sees: a header pkrt wrote, holding the vertex and face elements alone, in which only
// the properties pkrt reads keep a name assimp knows.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "render/scene/load_limits.h"

namespace pkrt {

struct PlyScan {
    bool ascii = false;
    uint64_t vertices = 0;
    uint64_t faces = 0;
    uint64_t triangles = 0;             // sum over faces of corners - 2 (polygons are fanned)
    bool normals = false;               // nx ny nz
    bool uvs = false;                   // u v, s t, texture_u texture_v or texture_s texture_t
    std::string canonical;              // the bytes assimp reads
    std::vector<std::string> warnings;  // "<path>: ... ignored", one per kind of content pkrt does not use
    // ASCII only: the values as read here (correctly rounded, NaN and infinities kept), 3, 3 and 2 per
    // vertex; binary values are bit patterns, which assimp converts exactly.
    std::vector<float> positions, normal_values, texcoords;
};

// Throws Error "<path>: ..." on anything malformed: the header, a count the file cannot hold or the
// limits do not allow (given `triangles_used` already in the scene), a truncated record, a face with
// fewer than 3 corners or an index out of range, a non-numeric ASCII token. `bytes` is the whole file.
PlyScan scan_ply(const std::string& path, const std::string& bytes, const LoadLimits& limits, uint64_t triangles_used);

}  // namespace pkrt
