// Input text in messages: at most about 80 bytes of it, so that a forged name or value (a 1 MB map name,
// a 10 KB option line) makes one readable line, not a megabyte of it. Control bytes become '?', so the
// line stays one line; a cut falls on a UTF-8 character boundary and ends in "...".
#pragma once

#include <string>

namespace pkrt {

inline constexpr size_t kMaxQuotedBytes = 80;

inline std::string quote_input(const std::string& text, size_t max_bytes = kMaxQuotedBytes) {
    size_t keep = text.size();
    if (keep > max_bytes) {
        keep = max_bytes - 3;
        while (keep > 0 && (static_cast<unsigned char>(text[keep]) & 0xC0) == 0x80) --keep;  // not mid-character
    }
    std::string out = text.substr(0, keep);
    for (char& c : out)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) c = '?';
    if (keep < text.size()) out += "...";
    return out;
}

}  // namespace pkrt
