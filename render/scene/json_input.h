// Every JSON file pkrt reads (JSON scenes, keyframe files, glTF before tinygltf sees it) is parsed here,
// so that all of them refuse the same things in the same words: a NUL byte (nlohmann's lexer takes one
// for the end of the input and would ignore what follows), anything after the document, nesting deeper
// than kMaxJsonDepth (tinygltf converts JSON to its own values recursively: 15,000 levels overflow the
// stack) and a key given twice in one object (which one would win is nobody's intent).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace pkrt {

// Real scenes, keyframe files and glTF files nest a handful of levels; glTF extras a few more.
constexpr int kMaxJsonDepth = 128;

// Throws Error "<path>: invalid JSON: <problem>" in pkrt's words, never nlohmann's exception text.
nlohmann::json parse_json_file(const std::string& path, const char* text, size_t size, bool comments);

// A key or string from a file, for an error message: at most 64 bytes of it, so that a 10 MB key does
// not become a 10 MB error line.
std::string json_excerpt(const std::string& s);

}  // namespace pkrt
