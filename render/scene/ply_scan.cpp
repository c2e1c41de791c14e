#include "render/scene/ply_scan.h"

#include <algorithm>
#include <cerrno>
#include <cfloat>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string_view>

#include "render/error.h"
#include "render/scene/obj_scan.h"

namespace pkrt {

namespace {

enum class Kind { kSigned, kUnsigned, kFloat };

struct Type {
    const char* name;   // the name pkrt writes for assimp
    const char* alias;  // PLY's other spelling
    Kind kind;
    int size;
};

constexpr Type kTypes[] = {{"char", "int8", Kind::kSigned, 1},     {"uchar", "uint8", Kind::kUnsigned, 1},
                           {"short", "int16", Kind::kSigned, 2},   {"ushort", "uint16", Kind::kUnsigned, 2},
                           {"int", "int32", Kind::kSigned, 4},     {"uint", "uint32", Kind::kUnsigned, 4},
                           {"float", "float32", Kind::kFloat, 4},  {"double", "float64", Kind::kFloat, 8}};

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

Tokens split(std::string_view line) {
    Tokens out;
    size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
        if (i == line.size()) break;
        size_t j = i;
        while (j < line.size() && line[j] != ' ' && line[j] != '\t') ++j;
        out.push_back(line.substr(i, j - i));
        i = j;
    }
    return out;
}

const Type* find_type(std::string_view name) {
    for (const Type& t : kTypes)
        if (name == t.name || name == t.alias) return &t;
    return nullptr;
}

// Decimal numbers only: [+-] digits [. digits] [e [+-] digits], or nan / inf / infinity (kept, their
// triangles dropped and counted). strtod would also take hexadecimal and "nan(...)". The integer part
// and the exponent have at most 19 digits after leading zeros: assimp reads each into 64 bits and, on
// overflow, stops without consuming the number, so that the line's later values (a list's count among
// them) would come from the wrong text.
enum class Syntax { kNumber, kNotANumber, kTooManyDigits };

Syntax decimal_syntax(std::string_view s) {
    size_t i = 0, n = s.size();
    if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
    std::string rest(s.substr(i));
    for (auto& c : rest) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (rest == "nan" || rest == "inf" || rest == "infinity") return Syntax::kNumber;
    auto significant = [&](size_t from, size_t to) {
        while (from < to && s[from] == '0') ++from;
        return to - from;
    };
    size_t digits = 0, start = i;
    while (i < n && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++digits;
    bool too_long = significant(start, i) > 19;
    if (i < n && s[i] == '.') {
        ++i;
        while (i < n && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++digits;
    }
    if (digits == 0) return Syntax::kNotANumber;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        ++i;
        if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
        size_t exp_digits = 0, exp_start = i;
        while (i < n && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++exp_digits;
        if (exp_digits == 0) return Syntax::kNotANumber;
        too_long = too_long || significant(exp_start, i) > 19;
    }
    if (i != n) return Syntax::kNotANumber;
    return too_long ? Syntax::kTooManyDigits : Syntax::kNumber;
}

float to_float(double d) {
    // Beyond float's range is an infinite vertex: its triangles are dropped and counted, as for inf.
    if (d > FLT_MAX) return INFINITY;
    if (d < -FLT_MAX) return -INFINITY;
    return static_cast<float>(d);
}

class Scanner {
public:
    Scanner(const std::string& path, const std::string& bytes, const LoadLimits& limits, uint64_t used)
        : path_(path), bytes_(bytes), limits_(limits), used_(used) {}

    PlyScan run() {
        parse_header();
        assign_meanings();
        check_counts();
        if (scan_.ascii) {
            body_ = normalize_line_endings(bytes_.substr(body_start_));
            walk_ascii();
        } else {
            walk_binary();
        }
        check_triangle_budget(limits_, path_, used_, scan_.triangles);
        write_canonical();
        return std::move(scan_);
    }

private:
    [[noreturn]] void fail(const std::string& what) const { throw Error(path_ + ": " + what); }
    void warn(const std::string& what) { scan_.warnings.push_back(path_ + ": " + what); }

    // ---- header ----

    void parse_header() {
        size_t pos = 0, line_no = 0;
        bool have_format = false, ended = false;
        while (pos < bytes_.size()) {
            size_t nl = bytes_.find('\n', pos);
            if (nl == std::string::npos) break;
            std::string_view line(bytes_.data() + pos, nl - pos);
            if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
            pos = nl + 1;
            ++line_no;
            std::string where = "header line " + std::to_string(line_no) + ": ";
            if (line_no == 1) {
                if (line != "ply") fail("not a PLY file (its first line is not 'ply')");
                continue;
            }
            Tokens t = split(line);
            if (t.empty()) continue;
            if (t[0] == "comment" || t[0] == "obj_info") continue;
            if (t[0] == "end_header") {
                if (t.size() != 1) fail(where + "text after end_header");
                ended = true;
                break;
            }
            if (t[0] == "format") {
                if (have_format) fail(where + "a second format line");
                if (!header_.empty()) fail(where + "the format line must come before the elements");
                if (t.size() != 3) fail(where + "expected 'format ascii|binary_little_endian|binary_big_endian 1.0'");
                if (t[1] == "ascii") scan_.ascii = true;
                else if (t[1] == "binary_little_endian") big_endian_ = false;
                else if (t[1] == "binary_big_endian") big_endian_ = true;
                else fail(where + "unknown format '" + std::string(t[1]) + "'");
                if (t[2] != "1.0") fail(where + "unknown PLY version '" + std::string(t[2]) + "' (expected 1.0)");
                have_format = true;
            } else if (t[0] == "element") {
                if (!have_format) fail(where + "an element before the format line");
                if (t.size() != 3) fail(where + "expected 'element NAME COUNT'");
                Element e;
                e.name = std::string(t[1]);
                for (const auto& other : header_)
                    if (other.name == e.name) fail(where + "a second '" + e.name + "' element");
                auto [end, ec] = std::from_chars(t[2].data(), t[2].data() + t[2].size(), e.count);
                if (ec == std::errc::result_out_of_range) fail(where + "element '" + e.name + "' count is too large");
                if (ec != std::errc() || end != t[2].data() + t[2].size())
                    fail(where + "element '" + e.name + "' count '" + std::string(t[2]) + "' is not a number");
                header_.push_back(std::move(e));
            } else if (t[0] == "property") {
                if (header_.empty()) fail(where + "a property before any element");
                Property p;
                if (t.size() == 5 && t[1] == "list") {
                    p.count_type = find_type(t[2]);
                    p.type = find_type(t[3]);
                    if (!p.count_type) fail(where + "unknown type '" + std::string(t[2]) + "'");
                    if (!p.type) fail(where + "unknown type '" + std::string(t[3]) + "'");
                    if (p.count_type->kind == Kind::kFloat) fail(where + "a list's count must have an integer type");
                    p.name = std::string(t[4]);
                } else if (t.size() == 3 && t[1] != "list") {
                    p.type = find_type(t[1]);
                    if (!p.type) fail(where + "unknown type '" + std::string(t[1]) + "'");
                    p.name = std::string(t[2]);
                } else {
                    fail(where + "expected 'property TYPE NAME' or 'property list COUNT_TYPE TYPE NAME'");
                }
                for (const auto& other : header_.back().props)
                    if (other.name == p.name) fail(where + "a second property '" + p.name + "'");
                header_.back().props.push_back(std::move(p));
            } else {
                fail(where + "unknown header line '" + std::string(line.substr(0, 40)) + "'");
            }
        }
        if (!ended) fail("no end_header line (a truncated or not a PLY file)");
        if (!have_format) fail("no format line in the header");
        body_start_ = pos;
    }

    // Which properties pkrt reads; everything else is walked past, named for assimp so that it ignores
    // it, and reported once per kind.
    void assign_meanings() {
        int unused = 0;
        for (auto& e : header_) {
            if (e.props.empty()) fail("element '" + e.name + "' has no properties");
            // The header assimp reads must stay well inside its first 1 MiB read (it finds the data's
            // start there); real files have a few dozen.
            if (e.props.size() > kMaxProperties)
                fail("element '" + e.name + "' has " + std::to_string(e.props.size()) + " properties, more than " +
                     std::to_string(kMaxProperties));
            for (auto& p : e.props) p.assimp_name = "pkrt_unused_" + std::to_string(unused++);
            if (e.name == "vertex") vertex_ = &e;
            else if (e.name == "face") face_ = &e;
            else if (e.count > 0) {
                if (e.name == "tristrips") warn("'tristrips' elements ignored (triangle strips are not supported)");
                else warn("'" + e.name + "' elements ignored");
            }
        }
        if (!vertex_) fail("no 'vertex' element");
        if (!face_) fail("no 'face' element (point clouds are not supported)");

        auto find = [&](const char* name) -> Property* {
            for (auto& p : vertex_->props)
                if (p.name == name) return &p;
            return nullptr;
        };
        const char* xyz[3] = {"x", "y", "z"};
        for (int k = 0; k < 3; ++k) {
            Property* p = find(xyz[k]);
            if (!p) fail("the vertex element has no '" + std::string(xyz[k]) + "' property");
            if (p->count_type) fail("vertex property '" + p->name + "' must not be a list");
            p->slot = k;
            p->assimp_name = xyz[k];
        }
        const char* nxyz[3] = {"nx", "ny", "nz"};
        Property* n[3] = {find("nx"), find("ny"), find("nz")};
        if (n[0] && n[1] && n[2] && !n[0]->count_type && !n[1]->count_type && !n[2]->count_type) {
            for (int k = 0; k < 3; ++k) {
                n[k]->slot = 3 + k;
                n[k]->assimp_name = nxyz[k];
            }
            scan_.normals = true;
        }
        const char* uv_pairs[4][2] = {{"u", "v"}, {"s", "t"}, {"texture_u", "texture_v"}, {"texture_s", "texture_t"}};
        for (auto& pair : uv_pairs) {
            Property *u = find(pair[0]), *v = find(pair[1]);
            if (scan_.uvs || !u || !v || u->count_type || v->count_type) continue;
            u->slot = 6;
            v->slot = 7;
            u->assimp_name = "u";  // texture_s is one spelling assimp does not know
            v->assimp_name = "v";
            scan_.uvs = true;
        }
        std::string colours, others;
        for (const auto& p : vertex_->props) {
            if (p.slot >= 0) continue;
            bool colour = p.name == "red" || p.name == "green" || p.name == "blue" || p.name == "alpha";
            std::string& list = colour ? colours : others;
            list += (list.empty() ? "" : colour ? "/" : "', '") + p.name;
        }
        if (!colours.empty()) warn("'" + colours + "' vertex colours ignored");
        if (!others.empty()) warn("vertex properties '" + others + "' ignored");

        for (auto& p : face_->props) {
            if (p.name != "vertex_indices" && p.name != "vertex_index") continue;
            if (face_index_) fail("the face element has both 'vertex_indices' and 'vertex_index'");
            if (!p.count_type) fail("face property '" + p.name + "' must be a list");
            if (p.type->kind == Kind::kFloat) fail("face property '" + p.name + "' must have an integer type");
            p.slot = 0;
            p.assimp_name = "vertex_indices";
            face_index_ = &p;
        }
        if (!face_index_) fail("the face element has no 'vertex_indices' list");
        for (const auto& p : face_->props) {
            if (p.slot >= 0) continue;
            if (p.name == "face_indices") warn("'face_indices' face property ignored (per-face material indices)");
            else warn("face property '" + p.name + "' ignored");
        }
    }

    // Before anything is allocated: counts against the limits, against what assimp can index (32 bits)
    // and against the bytes the file has left for them.
    void check_counts() {
        scan_.vertices = vertex_->count;
        scan_.faces = face_->count;
        uint64_t max_vertices = limits_.max_triangles > UINT64_MAX / 3 ? UINT64_MAX : 3 * limits_.max_triangles;
        if (scan_.vertices > max_vertices)
            fail(std::to_string(scan_.vertices) + " vertices, more than 3 for each triangle of the limit of " +
                 std::to_string(limits_.max_triangles) + " (raise it with --max-triangles)");
        // Each face is at least one triangle.
        check_triangle_budget(limits_, path_, used_, scan_.faces);
        for (const auto& e : header_)
            if (e.count >= UINT32_MAX)
                fail("element '" + e.name + "' has " + std::to_string(e.count) +
                     " records, more than PLY readers index");
        uint64_t left = bytes_.size() - body_start_;
        const uint64_t slack = scan_.ascii ? 1 : 0;
        for (const auto& e : header_) {
            // ASCII: a value (a list: its count) is at least a digit and a separator (the file's last
            // value may have none: one byte of slack).
            uint64_t each = scan_.ascii ? 2 * e.props.size() : e.min_record_bytes();
            if (e.count > (left + slack) / each)
                fail("element '" + e.name + "' has " + std::to_string(e.count) + " records but the file has " +
                     std::to_string(left) + " bytes left for them (at least " + std::to_string(each) + " each)");
            left -= std::min(left, e.count * each);
        }
    }

    // ---- binary ----

    int64_t read_int(const unsigned char* p, const Type* t) const {
        uint64_t v = 0;
        for (int i = 0; i < t->size; ++i) {
            uint64_t b = p[big_endian_ ? i : t->size - 1 - i];
            v = (v << 8) | b;
        }
        if (t->kind == Kind::kSigned && t->size < 8 && (v >> (8 * t->size - 1)) & 1) v |= ~uint64_t(0) << (8 * t->size);
        return static_cast<int64_t>(v);
    }

    void walk_binary() {
        const auto* data = reinterpret_cast<const unsigned char*>(bytes_.data());
        size_t pos = body_start_, size = bytes_.size();
        for (auto& e : header_) {
            e.begin = pos;
            if (e.fixed_size()) {
                pos += e.count * e.min_record_bytes();  // check_counts() made sure it fits
                e.end = pos;
                continue;
            }
            for (uint64_t r = 0; r < e.count; ++r) {
                for (const auto& p : e.props) {
                    auto truncated = [&]() {
                        fail("the data ends inside '" + e.name + "' record " + std::to_string(r) + " of " +
                             std::to_string(e.count) + " (a truncated file?)");
                    };
                    if (!p.count_type) {
                        if (size - pos < static_cast<size_t>(p.type->size)) truncated();
                        pos += p.type->size;
                        continue;
                    }
                    if (size - pos < static_cast<size_t>(p.count_type->size)) truncated();
                    int64_t n = read_int(data + pos, p.count_type);
                    pos += p.count_type->size;
                    if (n < 0) fail("'" + e.name + "' record " + std::to_string(r) + ": list '" + p.name + "' has " +
                                    std::to_string(n) + " items");
                    if (static_cast<uint64_t>(n) > (size - pos) / p.type->size) truncated();
                    if (&p == face_index_) {
                        check_face(r, static_cast<uint64_t>(n));
                        for (int64_t k = 0; k < n; ++k)
                            check_index(r, read_int(data + pos + k * p.type->size, p.type));
                    }
                    pos += static_cast<size_t>(n) * p.type->size;
                }
            }
            e.end = pos;
        }
        if (pos < size) warn(std::to_string(size - pos) + " bytes after the last element ignored");
    }

    void check_face(uint64_t r, uint64_t corners) {
        if (corners < 3)
            fail("face " + std::to_string(r) + " has " + std::to_string(corners) + " corners (a face needs 3)");
        scan_.triangles += corners - 2;
    }

    void check_index(uint64_t r, int64_t i) const {
        if (i < 0 || static_cast<uint64_t>(i) >= scan_.vertices)
            fail("face " + std::to_string(r) + " uses vertex " + std::to_string(i) + " but the file has " +
                 std::to_string(scan_.vertices) + " (numbered from 0)");
    }

    // ---- ASCII ----

    // One record per line; blank lines are skipped (assimp skips them too).
    bool next_line(std::string_view* line) {
        while (ascii_pos_ < body_.size()) {
            size_t nl = body_.find('\n', ascii_pos_);
            if (nl == std::string::npos) nl = body_.size();
            *line = std::string_view(body_).substr(ascii_pos_, nl - ascii_pos_);
            ascii_pos_ = nl + 1;
            ++ascii_line_;
            if (line->find_first_not_of(" \t") != std::string_view::npos) return true;
        }
        return false;
    }

    [[noreturn]] void fail_line(const std::string& what) const {
        fail("line " + std::to_string(header_lines() + ascii_line_) + ": " + what);
    }

    size_t header_lines() const {
        size_t n = 0;
        for (size_t i = 0; i < body_start_; ++i) n += bytes_[i] == '\n';
        return n;
    }

    // `what` names the value for a message, built only when there is one to give.
    template <class What>
    int64_t ascii_int(std::string_view tok, const Type* t, const What& what) const {
        int64_t v = 0;
        auto [end, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), v);
        // assimp reads unsigned values without a sign: "-0" would stop it mid-line.
        bool sign_ok = t->kind == Kind::kSigned || tok[0] != '-';
        if (ec != std::errc() || end != tok.data() + tok.size() || !sign_ok)
            fail_line(what() + " '" + std::string(tok.substr(0, 40)) + "' is not " +
                      (t->kind == Kind::kSigned ? "an integer" : "an unsigned integer"));
        int64_t lo = t->kind == Kind::kSigned ? -(int64_t(1) << (8 * t->size - 1)) : 0;
        int bits = t->kind == Kind::kSigned ? 8 * t->size - 1 : 8 * t->size;
        int64_t hi = (int64_t(1) << bits) - 1;
        if (v < lo || v > hi) fail_line(what() + " " + std::string(tok) + " is out of range for " + t->name);
        return v;
    }

    template <class What>
    double ascii_number(std::string_view tok, const Type* t, const What& what) const {
        if (t->kind != Kind::kFloat) return static_cast<double>(ascii_int(tok, t, what));
        Syntax syntax = decimal_syntax(tok);
        if (syntax == Syntax::kNotANumber)
            fail_line(what() + " '" + std::string(tok.substr(0, 40)) + "' is not a number");
        if (syntax == Syntax::kTooManyDigits)
            fail_line(what() + " '" + std::string(tok.substr(0, 40)) +
                      "' has more than 19 digits before its point or in its exponent (write it with an exponent)");
        std::string s(tok);
        errno = 0;
        double v = std::strtod(s.c_str(), nullptr);
        if (errno == ERANGE && std::isinf(v)) fail_line(what() + " '" + s + "' is out of range");
        return v;
    }

    void walk_ascii() {
        if (scan_.vertices > 0) {
            scan_.positions.reserve(3 * scan_.vertices);
            if (scan_.normals) scan_.normal_values.reserve(3 * scan_.vertices);
            if (scan_.uvs) scan_.texcoords.reserve(2 * scan_.vertices);
        }
        std::string_view line;
        for (auto& e : header_) {
            for (uint64_t r = 0; r < e.count; ++r) {
                auto rec = [&]() { return "'" + e.name + "' record " + std::to_string(r); };
                if (!next_line(&line))
                    fail("the file ends after " + std::to_string(r) + " of " + std::to_string(e.count) + " '" + e.name +
                         "' records");
                Tokens t = split(line);
                size_t k = 0;
                float slots[8] = {};
                for (const auto& p : e.props) {
                    auto value = [&]() { return rec() + ": '" + p.name + "'"; };
                    if (k == t.size()) fail_line(rec() + " has too few values");
                    if (!p.count_type) {
                        double v = ascii_number(t[k++], p.type, value);
                        if (p.slot >= 0 && &e == vertex_) slots[p.slot] = to_float(v);
                        continue;
                    }
                    int64_t n = ascii_int(t[k++], p.count_type, [&]() { return value() + " count"; });
                    if (n < 0) fail_line(rec() + ": list '" + p.name + "' has " + std::to_string(n) + " items");
                    if (static_cast<uint64_t>(n) > t.size() - k) fail_line(rec() + " has too few values");
                    if (&p == face_index_) check_face(r, static_cast<uint64_t>(n));
                    for (int64_t i = 0; i < n; ++i) {
                        double v = ascii_number(t[k++], p.type, value);
                        if (&p == face_index_) check_index(r, static_cast<int64_t>(v));
                    }
                }
                if (k != t.size()) fail_line(rec() + " has " + std::to_string(t.size() - k) + " values too many");
                if (&e == vertex_ || &e == face_) append_line(&e == vertex_ ? ascii_vertices_ : ascii_faces_, t);
                if (&e == vertex_) {
                    scan_.positions.insert(scan_.positions.end(), slots, slots + 3);
                    if (scan_.normals) scan_.normal_values.insert(scan_.normal_values.end(), slots + 3, slots + 6);
                    if (scan_.uvs) scan_.texcoords.insert(scan_.texcoords.end(), slots + 6, slots + 8);
                }
            }
        }
        if (next_line(&line)) warn("text after the last element ignored");
    }

    // assimp reads an ASCII record from exactly one line, and takes a blank line for a record: its
    // records are written one to a line, values one space apart.
    static void append_line(std::string& out, const Tokens& t) {
        for (size_t i = 0; i < t.size(); ++i) {
            if (i) out += ' ';
            out.append(t[i]);
        }
        out += '\n';
    }

    // ---- what assimp reads ----

    void write_canonical() {
        static const char* kFormats[3] = {"ascii", "binary_little_endian", "binary_big_endian"};
        std::string& out = scan_.canonical;
        size_t size = 256 + (scan_.ascii ? ascii_vertices_.size() + ascii_faces_.size()
                                         : (vertex_->end - vertex_->begin) + (face_->end - face_->begin));
        for (const Element* e : {vertex_, face_}) size += 64 * e->props.size();
        out.reserve(size);
        out += "ply\nformat ";
        out += kFormats[scan_.ascii ? 0 : big_endian_ ? 2 : 1];
        out += " 1.0\n";
        for (const Element* e : {vertex_, face_}) {
            out += "element " + e->name + " " + std::to_string(e->count) + "\n";
            for (const auto& p : e->props) {
                out += "property ";
                if (p.count_type) out += std::string("list ") + p.count_type->name + " ";
                out += std::string(p.type->name) + " " + p.assimp_name + "\n";
            }
        }
        // assimp drops the first byte of binary data when it is a line feed (meaning to skip the LF of a
        // CR LF header): a CR LF here makes that byte the header's, whatever the data's first byte is.
        out += scan_.ascii ? "end_header\n" : "end_header\r\n";
        if (scan_.ascii) {
            out += ascii_vertices_;
            out += ascii_faces_;
            return;
        }
        for (const Element* e : {vertex_, face_}) out.append(bytes_, e->begin, e->end - e->begin);
    }

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
    std::string body_;  // ASCII: the body with its line endings normalized
    std::string ascii_vertices_, ascii_faces_;  // ASCII: the records assimp reads
    size_t ascii_pos_ = 0, ascii_line_ = 0;
};

}  // namespace

PlyScan scan_ply(const std::string& path, const std::string& bytes, const LoadLimits& limits, uint64_t triangles_used) {
    return Scanner(path, bytes, limits, triangles_used).run();
}

}  // namespace pkrt
