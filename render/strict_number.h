// Numbers as files and flags carry them, read one way everywhere: the whole text and nothing else (no
// padding, no trailing bytes, no sign the format does not have), decimal only (strtod and stof would
// take "0x10" as 16 and "nan(...)"), and finite. Loose reads let "+1", " 1" or "1x" through as 1.
#pragma once

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace pkrt {

// Digits only, at most `max`: "0", "42"; never "+1", " 1", "1 ", "0x1" or "".
inline bool parse_strict_unsigned(const std::string& text, uint64_t max, uint64_t* out) {
    if (text.empty() || text.size() > 20 || text.find_first_not_of("0123456789") != std::string::npos) return false;
    errno = 0;
    unsigned long long v = std::strtoull(text.c_str(), nullptr, 10);
    if (errno == ERANGE || v > max) return false;
    *out = v;
    return true;
}

// An integer: an optional '-', then digits; within [min, max].
inline bool parse_strict_integer(const std::string& text, int64_t min, int64_t max, int64_t* out) {
    size_t i = !text.empty() && text[0] == '-' ? 1 : 0;
    if (i == text.size() || text.size() > 20 || text.find_first_not_of("0123456789", i) != std::string::npos)
        return false;
    errno = 0;
    long long v = std::strtoll(text.c_str(), nullptr, 10);
    if (errno == ERANGE || v < min || v > max) return false;
    *out = v;
    return true;
}

// A finite decimal: [+-] digits [. digits] [e [+-] digits] (at least one digit before the exponent),
// whose value is finite as a double. Not "nan", "inf", hexadecimal or padding.
inline bool parse_strict_decimal(const std::string& text, double* out) {
    size_t i = 0, n = text.size(), digits = 0;
    if (i < n && (text[i] == '+' || text[i] == '-')) ++i;
    auto is_digit = [&](size_t k) { return k < n && text[k] >= '0' && text[k] <= '9'; };
    while (is_digit(i)) ++i, ++digits;
    if (i < n && text[i] == '.') {
        ++i;
        while (is_digit(i)) ++i, ++digits;
    }
    if (digits == 0) return false;
    if (i < n && (text[i] == 'e' || text[i] == 'E')) {
        ++i;
        if (i < n && (text[i] == '+' || text[i] == '-')) ++i;
        if (!is_digit(i)) return false;
        while (is_digit(i)) ++i;
    }
    if (i != n) return false;
    double v = std::strtod(text.c_str(), nullptr);
    if (!std::isfinite(v)) return false;
    *out = v;
    return true;
}

}  // namespace pkrt
