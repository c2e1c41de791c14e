// Files that one asset names inside another (an MTL's textures, an OBJ's mtllib, a glTF's URIs), as
// exporters on every system write them: `\` separators (3ds Max, Windows tools), names whose case is
// not the file's (assets made on case-insensitive file systems), absolute paths of the author's machine.
#pragma once

#include <string>

#include "render/scene/scene.h"

namespace pkrt {

// The path of `name` relative to `base_dir`. `\` counts as a separator. When that path does not exist,
// a case-insensitive match of each component is used, and then the bare file name in `base_dir` (an
// absolute or foreign path whose folders are not here), each with one warning in scene.load_stats
// naming `referrer`. Returns the path as spelled first when nothing matches (the caller's open fails
// with its own message).
std::string resolve_asset_path(Scene& scene, const std::string& referrer, const std::string& base_dir,
                               const std::string& name);

// A texture named by `referrer`, resolved as above and loaded (once per file). A file that does not
// exist fails the load, or with --missing-textures warn (scene.limits) gives -1 and a warning.
int32_t load_asset_texture(Scene& scene, const std::string& referrer, const std::string& base_dir,
                           const std::string& name);

}  // namespace pkrt
