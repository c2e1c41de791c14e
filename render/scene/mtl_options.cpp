#include "render/scene/mtl_options.h"

#include <cctype>
#include <cmath>

#include "render/quote.h"
#include "render/strict_number.h"

namespace pkrt {

namespace {

// |value| at most this: the texture transforms' bound (obj_materials.cpp's apply_options), the same for
// -bm, -boost and -mm, whose products with texels must stay finite in single precision.
constexpr double kMaxOptionMagnitude = 1e6;

struct Option {
    const char* name;
    int numbers;        // how many numbers it takes (tinyobjloader consumes exactly this many tokens)
    const char* words;  // or one word of these, space-separated; nullptr: numbers
};

// Every option tinyobjloader knows. -s, -o and -t take u v w: the library consumes three tokens whatever
// they are, so "-s 2 tex.png" would lose the file name.
const Option kOptions[] = {
    {"-blendu", 0, "on off"},
    {"-blendv", 0, "on off"},
    {"-clamp", 0, "on off"},
    {"-boost", 1, nullptr},
    {"-bm", 1, nullptr},
    {"-mm", 2, nullptr},
    {"-o", 3, nullptr},
    {"-s", 3, nullptr},
    {"-t", 3, nullptr},
    {"-texres", 1, nullptr},
    {"-imfchan", 0, "r g b m l z"},
    {"-type", 0, "sphere cube_top cube_bottom cube_front cube_back cube_left cube_right"},
    {"-colorspace", 0, ""},  // any one word
};

bool one_of(const std::string& word, const std::string& words) {
    if (words.empty()) return true;
    size_t start = 0;
    while (start <= words.size()) {
        size_t end = words.find(' ', start);
        if (end == std::string::npos) end = words.size();
        if (words.compare(start, end - start, word) == 0) return true;
        start = end + 1;
    }
    return false;
}

// A token meant as a number, if a wrong one ("nan", "-inf", "1e40x", "0x10"), rather than a file name.
bool looks_numeric(const std::string& v) {
    size_t i = !v.empty() && (v[0] == '+' || v[0] == '-') ? 1 : 0;
    std::string rest = v.substr(i);
    for (char& c : rest) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (rest == "nan" || rest == "inf" || rest == "infinity") return true;
    return !rest.empty() && ((rest[0] >= '0' && rest[0] <= '9') || rest[0] == '.');
}

}  // namespace

bool is_map_statement(const std::string& key) {
    return key.rfind("map_", 0) == 0 || key == "bump" || key == "norm" || key == "disp" || key == "decal" ||
           key == "refl";
}

std::string map_statement_error(const std::vector<std::string>& t) {
    const std::string key = quote_input(t[0]);
    size_t names = 0;
    for (size_t i = 1; i < t.size(); ++i) {
        if (t[i].size() < 2 || t[i][0] != '-') {
            ++names;
            continue;
        }
        const Option* opt = nullptr;
        for (const Option& o : kOptions)
            if (t[i] == o.name) opt = &o;
        if (!opt) return key + ": unknown option '" + quote_input(t[i]) + "'";
        const std::string name = opt->name;
        if (opt->words) {
            if (i + 1 >= t.size()) return key + " " + name + ": needs a value";
            const std::string& w = t[++i];
            if (!one_of(w, opt->words))
                return key + " " + name + " '" + quote_input(w) + "': must be one of " + std::string(opt->words);
            continue;
        }
        for (int k = 0; k < opt->numbers; ++k) {
            std::string need = key + " " + name + ": needs " + std::to_string(opt->numbers) +
                               (opt->numbers == 1 ? " number" : " numbers") + " before the file name";
            if (i + 1 >= t.size()) return need;
            const std::string& v = t[++i];
            double d = 0.0;
            if (name == "-texres") {
                uint64_t n = 0;
                if (!parse_strict_unsigned(v, 65536, &n) || n == 0)
                    return key + " -texres '" + quote_input(v) + "': must be a whole number from 1 to 65536";
                continue;
            }
            if (!parse_strict_decimal(v, &d)) {
                // Not a number at all where one was due: most often the file name after too few numbers.
                if (!looks_numeric(v)) return need;
                return key + " " + name + " '" + quote_input(v) + "': must be a finite number";
            }
            if (std::fabs(d) > kMaxOptionMagnitude)
                return key + " " + name + " " + quote_input(v) + ": must be between -1e6 and 1e6";
        }
    }
    if (names == 0) return key + ": names no file";
    return "";
}

}  // namespace pkrt
