// The PLY scanner, shared by its two files: ply_header.cpp (the header: elements, properties, which of
// them pkrt reads, counts against the limits) and ply_scan.cpp (the body, ASCII or binary, and the
// canonical file assimp reads). Internal to render/scene/; the interface is ply_scan.h.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "render/error.h"
#include "render/scene/load_limits.h"
#include "render/scene/ply_scan.h"

namespace pkrt::ply {

enum class Kind { kSigned, kUnsigned, kFloat };

struct Type {
    const char* name;   // the name pkrt writes for assimp
    const char* alias;  // PLY's other spelling
    Kind kind;
    int size;
};

constexpr Type kTypes[] = {{"char", "int8", Kind::kSigned, 1},    {"uchar", "uint8", Kind::kUnsigned, 1},
                           {"short", "int16", Kind::kSigned, 2},  {"ushort", "uint16", Kind::kUnsigned, 2},
                           {"int", "int32", Kind::kSigned, 4},    {"uint", "uint32", Kind::kUnsigned, 4},
                           {"float", "float32", Kind::kFloat, 4}, {"double", "float64", Kind::kFloat, 8}};

struct Property {
    std::string name;
    const Type* type = nullptr;        // a list's items
    const Type* count_type = nullptr;  // lists only
    std::string assimp_name;           // the name in the header assimp reads
    int slot = -1;                     // vertex: 0-2 position, 3-5 normal, 6-7 uv; face: 0 for the index list
};

struct Element {
    std::string name;
    uint64_t count = 0;
    std::vector<Property> props;
    size_t begin = 0, end = 0;  // binary: its records' bytes

    bool fixed_size() const {
        for (const auto& p : props)
            if (p.count_type) return false;
        return true;
    }
    uint64_t min_record_bytes() const {  // binary: scalars, and each list's count with no items
        uint64_t n = 0;
        for (const auto& p : props) n += static_cast<uint64_t>(p.count_type ? p.count_type->size : p.type->size);
        return n;
    }
};

constexpr size_t kMaxProperties = 1000;

using Tokens = std::vector<std::string_view>;

// A line split at spaces and tabs.
Tokens split(std::string_view line);

class Scanner {
public:
    Scanner(const std::string& path, const std::string& bytes, const LoadLimits& limits, uint64_t used)
        : path_(path), bytes_(bytes), limits_(limits), used_(used) {}

    PlyScan run();

private:
    [[noreturn]] void fail(const std::string& what) const { throw Error(path_ + ": " + what); }
    void warn(const std::string& what) { scan_.warnings.push_back(path_ + ": " + what); }

    // ---- header ----

    void parse_header();

    // Which properties pkrt reads; everything else is walked past, named for assimp so that it ignores
    // it, and reported once per kind.
    void assign_meanings();

    // Before anything is allocated: counts against the limits, against what assimp can index (32 bits)
    // and against the bytes the file has left for them.
    void check_counts();

    // ---- binary ----

    int64_t read_int(const unsigned char* p, const Type* t) const;
    void walk_binary();
    void check_face(uint64_t r, uint64_t corners);
    void check_index(uint64_t r, int64_t i) const;

    // ---- ASCII ----

    // One record per line; blank lines are skipped (assimp skips them too).
    bool next_line(std::string_view* line);
    [[noreturn]] void fail_line(const std::string& what) const;
    size_t header_lines() const;

    // `what` names the value for a message, built only when there is one to give.
    template <class What> int64_t ascii_int(std::string_view tok, const Type* t, const What& what) const;

    template <class What> double ascii_number(std::string_view tok, const Type* t, const What& what) const;
    void walk_ascii();

    // assimp reads an ASCII record from exactly one line, and takes a blank line for a record: its
    // records are written one to a line, values one space apart.
    static void append_line(std::string& out, const Tokens& t);

    // ---- what assimp reads ----

    void write_canonical();

    const std::string& path_;
    const std::string& bytes_;
    const LoadLimits& limits_;
    uint64_t used_;
    PlyScan scan_;
    bool big_endian_ = false;
    std::vector<Element> header_;
    size_t body_start_ = 0;
    Element* vertex_ = nullptr;
    Element* face_ = nullptr;
    const Property* face_index_ = nullptr;
    std::string body_;                          // ASCII: the body with its line endings normalized
    std::string ascii_vertices_, ascii_faces_;  // ASCII: the records assimp reads
    size_t ascii_pos_ = 0, ascii_line_ = 0;
};

}  // namespace pkrt::ply
