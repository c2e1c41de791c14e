#include "render/scene/obj_scan.h"

#include <cerrno>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "render/error.h"
#include "render/quote.h"
#include "render/scene/mtl_options.h"

namespace pkrt {

namespace {

using Tokens = std::vector<std::string>;

// Splits one line on blanks, dropping a trailing # comment.
Tokens split(const std::string& text, size_t begin, size_t end) {
    Tokens out;
    size_t i = begin;
    while (i < end) {
        while (i < end && (text[i] == ' ' || text[i] == '\t' || text[i] == '\v' || text[i] == '\f')) ++i;
        if (i >= end || text[i] == '#') break;
        size_t j = i;
        while (j < end && text[j] != ' ' && text[j] != '\t' && text[j] != '\v' && text[j] != '\f' && text[j] != '#')
            ++j;
        out.emplace_back(text, i, j - i);
        i = j;
    }
    return out;
}

// Decimal numbers only: [+-] digits [. digits] [e [+-] digits], or nan / inf / infinity. strtod would
// also take hexadecimal ("0x1p3"), which tinyobjloader reads as 0.
bool decimal_syntax(const std::string& s) {
    size_t i = 0, n = s.size();
    if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
    std::string rest = s.substr(i);
    for (auto& c : rest) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (rest == "nan" || rest == "inf" || rest == "infinity") return true;
    size_t digits = 0;
    while (i < n && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++digits;
    if (i < n && s[i] == '.') {
        ++i;
        while (i < n && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++digits;
    }
    if (digits == 0) return false;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        ++i;
        if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
        size_t exp_digits = 0;
        while (i < n && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++exp_digits;
        if (exp_digits == 0) return false;
    }
    return i == n;
}

class LineReader {
public:
    LineReader(const std::string& path, const std::string& text) : path_(path), text_(text) {}

    // Next line's tokens; false at the end.
    bool next(Tokens* tokens) {
        if (pos_ >= text_.size()) return false;
        size_t end = text_.find('\n', pos_);
        if (end == std::string::npos) end = text_.size();
        *tokens = split(text_, pos_, end);
        pos_ = end + 1;
        ++line_;
        return true;
    }

    [[noreturn]] void fail(const std::string& what) const {
        throw Error(path_ + ":" + std::to_string(line_) + ": " + what);
    }

    // A decimal number; values beyond the double range are errors (never a silent infinity or finite).
    double number(const std::string& tok, const std::string& what) const {
        if (!decimal_syntax(tok)) fail(what + " '" + quote_input(tok) + "' is not a number");
        errno = 0;
        double v = std::strtod(tok.c_str(), nullptr);
        if (errno == ERANGE && std::isinf(v)) fail(what + " '" + quote_input(tok) + "' is out of range");
        return v;
    }

    // A signed integer without wrapping.
    long long integer(const std::string& tok, const std::string& what) const {
        size_t i = tok[0] == '-' || tok[0] == '+' ? 1 : 0;
        if (i == tok.size() || tok.find_first_not_of("0123456789", i) != std::string::npos)
            fail(what + " '" + quote_input(tok) + "' is not an integer");
        errno = 0;
        long long v = std::strtoll(tok.c_str(), nullptr, 10);
        if (errno == ERANGE) fail(what + " " + quote_input(tok) + " is out of range");
        return v;
    }

private:
    const std::string& path_;
    const std::string& text_;
    size_t pos_ = 0;
    size_t line_ = 0;
};

float to_float(double d) {
    // Beyond float's range is an infinite vertex: its triangles are dropped and counted, as for inf.
    if (d > FLT_MAX) return INFINITY;
    if (d < -FLT_MAX) return -INFINITY;
    return static_cast<float>(d);
}

}  // namespace

std::string normalize_line_endings(std::string text) {
    size_t out = 0;
    // A UTF-8 byte order mark (Windows editors write one) would glue itself to the first keyword.
    size_t start = text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;
    for (size_t i = start; i < text.size(); ++i) {
        if (text[i] == '\r') {
            text[out++] = '\n';
            if (i + 1 < text.size() && text[i + 1] == '\n') ++i;
        } else {
            text[out++] = text[i];
        }
    }
    text.resize(out);
    return text;
}

ObjScan scan_obj(const std::string& path, const std::string& text, uint64_t max_corners) {
    // Pass 1 counts elements, so that absolute indices can refer forward as tinyobjloader allows.
    long long nv = 0, nn = 0, nt = 0;
    {
        LineReader lines(path, text);
        Tokens t;
        while (lines.next(&t)) {
            if (t.empty()) continue;
            if (t[0] == "v") ++nv;
            else if (t[0] == "vn") ++nn;
            else if (t[0] == "vt") ++nt;
        }
    }
    ObjScan scan;
    long long seen_v = 0, seen_n = 0, seen_t = 0;
    uint64_t faces = 0;
    LineReader lines(path, text);
    Tokens t;
    auto values = [&](const Tokens& tok, size_t need, size_t max, const char* what, std::vector<float>& out) {
        if (tok.size() - 1 < need) lines.fail(std::string(what) + " needs " + std::to_string(need) + " numbers");
        // Extra numbers (w, vertex colours) must still be numbers.
        for (size_t k = 1; k < tok.size(); ++k) {
            double d = lines.number(tok[k], std::string(what) + " coordinate");
            if (k <= max) out.push_back(to_float(d));
        }
        for (size_t k = tok.size() - 1; k < max; ++k) out.push_back(0.0f);
    };
    while (lines.next(&t)) {
        if (t.empty()) continue;
        const std::string& key = t[0];
        if (key == "v") {
            values(t, 3, 3, "vertex", scan.positions);
            ++seen_v;
        } else if (key == "vn") {
            values(t, 3, 3, "normal", scan.normals);
            ++seen_n;
        } else if (key == "vt") {
            values(t, 1, 2, "texture coordinate", scan.texcoords);
            ++seen_t;
        } else if (key == "f") {
            ++faces;
            uint64_t corners = t.size() - 1;
            std::string face = "face " + std::to_string(faces);
            if (corners < 3) lines.fail(face + " has " + std::to_string(corners) + " corners (a face needs 3)");
            if (corners > max_corners)
                lines.fail(face + " has " + std::to_string(corners) + " corners, more than the limit of " +
                           std::to_string(max_corners) + " (raise it with --max-polygon-corners)");
            for (size_t k = 1; k < t.size(); ++k) {
                // v, v/t, v//n or v/t/n
                std::string parts[3];
                size_t p = 0, start = 0;
                for (size_t c = 0; c <= t[k].size(); ++c) {
                    if (c == t[k].size() || t[k][c] == '/') {
                        if (p == 3) lines.fail(face + ": corner '" + quote_input(t[k]) + "' has more than 3 indices");
                        parts[p++] = t[k].substr(start, c - start);
                        start = c + 1;
                    }
                }
                if (parts[0].empty()) lines.fail(face + ": corner '" + quote_input(t[k]) + "' has no vertex index");
                const char* names[3] = {"vertex", "texture coordinate", "normal"};
                long long counts[3] = {nv, nt, nn}, seen[3] = {seen_v, seen_t, seen_n};
                for (int q = 0; q < 3; ++q) {
                    if (parts[q].empty()) continue;
                    long long i = lines.integer(parts[q], face + ": " + names[q] + " index");
                    // Negative indices count back from the last element read so far.
                    bool ok = i > 0 ? i <= counts[q] : i < 0 && -i <= seen[q];
                    if (!ok)
                        lines.fail(face + " uses " + names[q] + " " + quote_input(parts[q]) + " but the file has " +
                                   std::to_string(i > 0 ? counts[q] : seen[q]));
                }
            }
            scan.triangles += corners - 2;
        }
    }
    return scan;
}

MtlScan scan_mtl(const std::string& path, const std::string& text) {
    LineReader lines(path, text);
    MtlScan scan;
    std::set<std::string>* current = nullptr;
    Tokens t;
    while (lines.next(&t)) {
        if (t.empty()) continue;
        const std::string& key = t[0];
        if (key == "newmtl") {
            // tinyobjloader names the material by the rest of the line's first token
            current = &scan.keys[t.size() > 1 ? t[1] : std::string()];
            continue;
        }
        if (current) current->insert(key);
        auto check = [&](size_t count, double lo, double hi, const char* range) {
            if (t.size() - 1 != count)
                lines.fail(quote_input(key) + " needs " + std::to_string(count) +
                           (count == 1 ? " number" : " numbers"));
            for (size_t k = 1; k < t.size(); ++k) {
                double v = lines.number(t[k], key);
                if (!std::isfinite(v)) lines.fail(key + " " + quote_input(t[k]) + ": must be a finite number");
                if (v < lo || v > hi) lines.fail(key + " " + quote_input(t[k]) + ": must be " + range);
            }
        };
        if (is_map_statement(key)) {
            std::string why = map_statement_error(t);
            if (!why.empty()) lines.fail(why);
        } else if (key == "Kd" || key == "Ks" || key == "Tf") check(3, 0.0, 1.0, "between 0 and 1");
        else if (key == "Ka") check(3, -DBL_MAX, DBL_MAX, "finite");
        else if (key == "Ke") check(3, 0.0, kMaxRadiance, "between 0 and 1e20");
        else if (key == "Ns") check(1, 0.0, 1e9, "between 0 and 1e9");
        else if (key == "Ni") check(1, 0.0, 1e9, "between 0 and 1e9");
        else if (key == "d" || key == "Tr" || key == "Pr" || key == "Pm") check(1, 0.0, 1.0, "between 0 and 1");
        else if (key == "illum") {
            if (t.size() != 2) lines.fail("illum needs 1 integer");
            long long v = lines.integer(t[1], "illum");
            if (v < 0 || v > 10) lines.fail("illum " + quote_input(t[1]) + ": must be between 0 and 10");
        }
    }
    return scan;
}

}  // namespace pkrt
