#include "render/scene/json_input.h"

#include <cstring>
#include <set>
#include <vector>

#include "render/error.h"

namespace pkrt {

namespace {

using nlohmann::json;

// Thrown out of the parser's callback: the parse stops at the first problem.
struct Refused {
    std::string why;
};

// nlohmann's text is "[json.exception.parse_error.101] parse error at line 3, column 5: ..."; pkrt's
// message keeps what follows the bracket.
std::string without_prefix(const std::string& what) {
    auto pos = what.find("] ");
    return pos == std::string::npos ? what : what.substr(pos + 2);
}

}  // namespace

std::string json_excerpt(const std::string& s) { return s.size() <= 64 ? s : s.substr(0, 64) + "..."; }

json parse_json_file(const std::string& path, const char* text, size_t size, bool comments) {
    if (const void* nul = std::memchr(text, '\0', size))
        throw Error(path + ": invalid JSON: NUL byte at offset " +
                    std::to_string(static_cast<const char*>(nul) - text));
    // The keys of each open object, innermost last; the depth is the number of open containers.
    std::vector<std::set<std::string>> keys;
    json::parser_callback_t check = [&](int depth, json::parse_event_t event, json& parsed) {
        switch (event) {
            case json::parse_event_t::object_start:
            case json::parse_event_t::array_start:
                if (depth >= kMaxJsonDepth)
                    throw Refused{"nested deeper than " + std::to_string(kMaxJsonDepth) + " levels"};
                if (event == json::parse_event_t::object_start) keys.emplace_back();
                break;
            case json::parse_event_t::object_end:
                if (!keys.empty()) keys.pop_back();
                break;
            case json::parse_event_t::key:
                if (!keys.empty() && parsed.is_string() && !keys.back().insert(parsed.get<std::string>()).second)
                    throw Refused{"key '" + json_excerpt(parsed.get<std::string>()) + "' appears twice in one object"};
                break;
            default: break;
        }
        return true;
    };
    try {
        // The whole text as one document: anything after it is a syntax error.
        return json::parse(text, text + size, check, true, comments);
    } catch (const Refused& r) {
        throw Error(path + ": invalid JSON: " + r.why);
    } catch (const json::exception& e) {
        throw Error(path + ": invalid JSON: " + without_prefix(e.what()));
    }
}

}  // namespace pkrt
