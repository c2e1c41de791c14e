// The options of an MTL map statement (map_Kd -s 2 2 1 -clamp on tex.png), checked before tinyobjloader
// reads them: it takes "nan", "inf" and 1e40 as numbers, anything but "off" as on, and a bare -s eats
// the file name that follows (three tokens, numbers or not), so the map would be dropped without a word.
#pragma once

#include <string>
#include <vector>

namespace pkrt {

// Whether MTL keyword `key` names a texture map (map_*, bump, norm, disp, decal, refl).
bool is_map_statement(const std::string& key);

// "" when the statement's options are each known and well formed (numbers finite and in range, on/off
// words exactly that) and a file name follows them; else what is wrong, for the MTL's file and line.
// `tokens` is the statement, keyword first.
std::string map_statement_error(const std::vector<std::string>& tokens);

}  // namespace pkrt
