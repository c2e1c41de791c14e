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

#include "render/scene/obj_scan.h"
#include "render/scene/ply_scanner.h"

namespace pkrt {

namespace ply {

namespace {

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

}  // namespace

PlyScan Scanner::run() {
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

int64_t Scanner::read_int(const unsigned char* p, const Type* t) const {
    uint64_t v = 0;
    for (int i = 0; i < t->size; ++i) {
        uint64_t b = p[big_endian_ ? i : t->size - 1 - i];
        v = (v << 8) | b;
    }
    if (t->kind == Kind::kSigned && t->size < 8 && (v >> (8 * t->size - 1)) & 1) v |= ~uint64_t(0) << (8 * t->size);
    return static_cast<int64_t>(v);
}

void Scanner::walk_binary() {
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
                if (n < 0)
                    fail("'" + e.name + "' record " + std::to_string(r) + ": list '" + p.name + "' has " +
                         std::to_string(n) + " items");
                if (static_cast<uint64_t>(n) > (size - pos) / p.type->size) truncated();
                if (&p == face_index_) {
                    check_face(r, static_cast<uint64_t>(n));
                    for (int64_t k = 0; k < n; ++k) check_index(r, read_int(data + pos + k * p.type->size, p.type));
                }
                pos += static_cast<size_t>(n) * p.type->size;
            }
        }
        e.end = pos;
    }
    if (pos < size) warn(std::to_string(size - pos) + " bytes after the last element ignored");
}

void Scanner::check_face(uint64_t r, uint64_t corners) {
    if (corners < 3)
        fail("face " + std::to_string(r) + " has " + std::to_string(corners) + " corners (a face needs 3)");
    scan_.triangles += corners - 2;
}

void Scanner::check_index(uint64_t r, int64_t i) const {
    if (i < 0 || static_cast<uint64_t>(i) >= scan_.vertices)
        fail("face " + std::to_string(r) + " uses vertex " + std::to_string(i) + " but the file has " +
             std::to_string(scan_.vertices) + " (numbered from 0)");
}

bool Scanner::next_line(std::string_view* line) {
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

[[noreturn]] void Scanner::fail_line(const std::string& what) const {
    fail("line " + std::to_string(header_lines() + ascii_line_) + ": " + what);
}

size_t Scanner::header_lines() const {
    size_t n = 0;
    for (size_t i = 0; i < body_start_; ++i) n += bytes_[i] == '\n';
    return n;
}

template <class What> int64_t Scanner::ascii_int(std::string_view tok, const Type* t, const What& what) const {
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

template <class What> double Scanner::ascii_number(std::string_view tok, const Type* t, const What& what) const {
    if (t->kind != Kind::kFloat) return static_cast<double>(ascii_int(tok, t, what));
    Syntax syntax = decimal_syntax(tok);
    if (syntax == Syntax::kNotANumber) fail_line(what() + " '" + std::string(tok.substr(0, 40)) + "' is not a number");
    if (syntax == Syntax::kTooManyDigits)
        fail_line(what() + " '" + std::string(tok.substr(0, 40)) +
                  "' has more than 19 digits before its point or in its exponent (write it with an exponent)");
    std::string s(tok);
    errno = 0;
    double v = std::strtod(s.c_str(), nullptr);
    if (errno == ERANGE && std::isinf(v)) fail_line(what() + " '" + s + "' is out of range");
    return v;
}

void Scanner::walk_ascii() {
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

void Scanner::append_line(std::string& out, const Tokens& t) {
    for (size_t i = 0; i < t.size(); ++i) {
        if (i) out += ' ';
        out.append(t[i]);
    }
    out += '\n';
}

void Scanner::write_canonical() {
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

}  // namespace ply

PlyScan scan_ply(const std::string& path, const std::string& bytes, const LoadLimits& limits, uint64_t triangles_used) {
    return ply::Scanner(path, bytes, limits, triangles_used).run();
}

}  // namespace pkrt
