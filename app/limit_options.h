// The flags that raise a scene's resource limits (render/scene/load_limits.h), shared by pkrt render, pkrt
// bench and pkrt-viewer.
#pragma once

#include <cstdint>
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
    // A string checked against the names, not CLI11's CheckedTransformer: that one also took 0 and 1 and
    // printed its map in --help.
    app->add_option_function<std::string>(
           "--missing-textures",
           [limits](const std::string& v) {
               limits->missing_textures = v == "warn" ? MissingTextures::kWarn : MissingTextures::kError;
           },
           "A texture file that does not exist: error, or warn and render the material without it")
        ->check(CLI::IsMember({"error", "warn"}))
        ->default_str("error");
}

}  // namespace pkrt
