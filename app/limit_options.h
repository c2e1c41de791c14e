// The flags that raise a scene's resource limits (render/scene/load_limits.h), shared by pkrt render, pkrt
// bench and pkrt-viewer.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include <CLI/CLI.hpp>

#include "render/scene/load_limits.h"

namespace pkrt {

inline void add_limit_options(CLI::App* app, LoadLimits* limits) {
    const uint64_t most = uint64_t(1) << 40;
    app->add_option("--max-triangles", limits->max_triangles, "Most triangles a scene may hold (about 600 bytes each)")
        ->check(CLI::Range(uint64_t(1), most))
        ->capture_default_str();
    app->add_option("--max-texels", limits->max_texels, "Most texture texels a scene may hold (4 bytes each)")
        ->check(CLI::Range(uint64_t(1), most))
        ->capture_default_str();
    app->add_option("--max-pixels", limits->max_pixels, "Most pixels of one image (about 64 bytes each)")
        ->check(CLI::Range(uint64_t(1), most))
        ->capture_default_str();
    app->add_option("--max-asset-bytes", limits->max_asset_bytes,
                    "Most bytes of glTF files, buffers and images a scene may read")
        ->check(CLI::Range(uint64_t(1), most))
        ->capture_default_str();
    app->add_option("--max-polygon-corners", limits->max_polygon_corners, "Most corners of one OBJ polygon")
        ->check(CLI::Range(uint64_t(3), uint64_t(1) << 24))
        ->capture_default_str();
    static const std::map<std::string, MissingTextures> kPolicies = {{"error", MissingTextures::kError},
                                                                     {"warn", MissingTextures::kWarn}};
    app->add_option("--missing-textures", limits->missing_textures,
                    "A texture file that does not exist: error, or warn and render the material without it")
        ->transform(CLI::CheckedTransformer(kPolicies, CLI::ignore_case))
        ->default_str("error");
}

}  // namespace pkrt
