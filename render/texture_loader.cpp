#include <cstring>
#include <filesystem>

#include <stb_image.h>

#include "error.h"
#include "loaders.h"

namespace pkrt {

int32_t load_texture(Scene& scene, const std::string& path) {
    for (size_t i = 0; i < scene.textures.size(); ++i)
        if (scene.textures[i].path == path) return static_cast<int32_t>(i);
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) throw Error(path + ": texture file not found");
    int w = 0, h = 0, n = 0;
    stbi_uc* data = stbi_load(path.c_str(), &w, &h, &n, 4);
    if (!data) throw Error(path + ": cannot read texture: " + stbi_failure_reason());
    TextureImage t;
    t.path = path;
    t.width = w;
    t.height = h;
    t.texels.resize(static_cast<size_t>(w) * h);
    std::memcpy(t.texels.data(), data, t.texels.size() * 4);  // RGBA bytes = little-endian RGBA8 words
    stbi_image_free(data);
    scene.textures.push_back(std::move(t));
    return static_cast<int32_t>(scene.textures.size()) - 1;
}

}  // namespace pkrt
