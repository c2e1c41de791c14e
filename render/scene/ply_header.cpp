// The PLY header: its elements and properties, which of them pkrt reads, and their counts checked
// against the limits before anything is allocated (ply_scanner.h).
#include "render/scene/ply_scanner.h"

#include <algorithm>
#include <cerrno>
#include <cfloat>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string_view>

#include "render/quote.h"
#include "render/scene/obj_scan.h"

namespace pkrt::ply {

namespace {

const Type* find_type(std::string_view name) {
    for (const Type& t : kTypes)
        if (name == t.name || name == t.alias) return &t;
    return nullptr;
}

}  // namespace

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

void Scanner::parse_header() {
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
            else fail(where + "unknown format '" + quote_input(std::string(t[1])) + "'");
            if (t[2] != "1.0")
                fail(where + "unknown PLY version '" + quote_input(std::string(t[2])) + "' (expected 1.0)");
            have_format = true;
        } else if (t[0] == "element") {
            if (!have_format) fail(where + "an element before the format line");
            if (t.size() != 3) fail(where + "expected 'element NAME COUNT'");
            Element e;
            e.name = std::string(t[1]);
            for (const auto& other : header_)
                if (other.name == e.name) fail(where + "a second '" + quote_input(e.name) + "' element");
            auto [end, ec] = std::from_chars(t[2].data(), t[2].data() + t[2].size(), e.count);
            if (ec == std::errc::result_out_of_range)
                fail(where + "element '" + quote_input(e.name) + "' count is too large");
            if (ec != std::errc() || end != t[2].data() + t[2].size())
                fail(where + "element '" + quote_input(e.name) + "' count '" + quote_input(std::string(t[2])) +
                     "' is not a number");
            header_.push_back(std::move(e));
        } else if (t[0] == "property") {
            if (header_.empty()) fail(where + "a property before any element");
            Property p;
            if (t.size() == 5 && t[1] == "list") {
                p.count_type = find_type(t[2]);
                p.type = find_type(t[3]);
                if (!p.count_type) fail(where + "unknown type '" + quote_input(std::string(t[2])) + "'");
                if (!p.type) fail(where + "unknown type '" + quote_input(std::string(t[3])) + "'");
                if (p.count_type->kind == Kind::kFloat) fail(where + "a list's count must have an integer type");
                p.name = std::string(t[4]);
            } else if (t.size() == 3 && t[1] != "list") {
                p.type = find_type(t[1]);
                if (!p.type) fail(where + "unknown type '" + quote_input(std::string(t[1])) + "'");
                p.name = std::string(t[2]);
            } else {
                fail(where + "expected 'property TYPE NAME' or 'property list COUNT_TYPE TYPE NAME'");
            }
            for (const auto& other : header_.back().props)
                if (other.name == p.name) fail(where + "a second property '" + quote_input(p.name) + "'");
            header_.back().props.push_back(std::move(p));
        } else {
            fail(where + "unknown header line '" + quote_input(std::string(line)) + "'");
        }
    }
    if (!ended) fail("no end_header line (a truncated or not a PLY file)");
    if (!have_format) fail("no format line in the header");
    body_start_ = pos;
}

void Scanner::assign_meanings() {
    int unused = 0;
    for (auto& e : header_) {
        if (e.props.empty()) fail("element '" + quote_input(e.name) + "' has no properties");
        // The header assimp reads must stay well inside its first 1 MiB read (it finds the data's
        // start there); real files have a few dozen.
        if (e.props.size() > kMaxProperties)
            fail("element '" + quote_input(e.name) + "' has " + std::to_string(e.props.size()) +
                 " properties, more than " + std::to_string(kMaxProperties));
        for (auto& p : e.props) p.assimp_name = "pkrt_unused_" + std::to_string(unused++);
        if (e.name == "vertex") vertex_ = &e;
        else if (e.name == "face") face_ = &e;
        else if (e.count > 0) {
            if (e.name == "tristrips") warn("'tristrips' elements ignored (triangle strips are not supported)");
            else warn("'" + quote_input(e.name) + "' elements ignored");
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
        if (p->count_type) fail("vertex property '" + quote_input(p->name) + "' must not be a list");
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
    if (!colours.empty()) warn("'" + quote_input(colours) + "' vertex colours ignored");
    if (!others.empty()) warn("vertex properties '" + quote_input(others) + "' ignored");

    for (auto& p : face_->props) {
        if (p.name != "vertex_indices" && p.name != "vertex_index") continue;
        if (face_index_) fail("the face element has both 'vertex_indices' and 'vertex_index'");
        if (!p.count_type) fail("face property '" + quote_input(p.name) + "' must be a list");
        if (p.type->kind == Kind::kFloat) fail("face property '" + quote_input(p.name) + "' must have an integer type");
        p.slot = 0;
        p.assimp_name = "vertex_indices";
        face_index_ = &p;
    }
    if (!face_index_) fail("the face element has no 'vertex_indices' list");
    for (const auto& p : face_->props) {
        if (p.slot >= 0) continue;
        if (p.name == "face_indices") warn("'face_indices' face property ignored (per-face material indices)");
        else warn("face property '" + quote_input(p.name) + "' ignored");
    }
}

void Scanner::check_counts() {
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
            fail("element '" + quote_input(e.name) + "' has " + std::to_string(e.count) +
                 " records, more than PLY readers index");
    uint64_t left = bytes_.size() - body_start_;
    const uint64_t slack = scan_.ascii ? 1 : 0;
    for (const auto& e : header_) {
        // ASCII: a value (a list: its count) is at least a digit and a separator (the file's last
        // value may have none: one byte of slack).
        uint64_t each = scan_.ascii ? 2 * e.props.size() : e.min_record_bytes();
        if (e.count > (left + slack) / each)
            fail("element '" + quote_input(e.name) + "' has " + std::to_string(e.count) + " records but the file has " +
                 std::to_string(left) + " bytes left for them (at least " + std::to_string(each) + " each)");
        left -= std::min(left, e.count * each);
    }
}

}  // namespace pkrt::ply
