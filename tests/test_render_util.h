// Helpers shared by the rendering tests (CPU and GPU): prepared scenes, settings, image comparisons.
#pragma once

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <png.h>

#include "render/backend.h"
#include "render/image/image.h"
#include "render/error.h"
#include "render/scene/scene.h"

namespace pkrt_test {

inline pkrt::Scene load_prepared(const std::string& path) {
    pkrt::Scene s = pkrt::load_scene(path);
    pkrt::prepare_scene(s);
    return s;
}

// What loading and preparing the scene at `path` reports as its error; empty when it succeeds.
inline std::string load_error(const std::string& path, const pkrt::LoadLimits& limits = {}) {
    try {
        pkrt::Scene s = pkrt::load_scene(path, limits);
        pkrt::prepare_scene(s);
    } catch (const pkrt::Error& e) {
        return e.what();
    }
    return "";
}

inline pkrt::RenderSettings settings(int w, int h, int spp, int depth, uint32_t seed,
                                     std::optional<pkrt::SchedulerMode> mode = std::nullopt) {
    pkrt::RenderSettings rs;
    rs.width = w;
    rs.height = h;
    rs.spp = spp;
    rs.max_depth = depth;
    rs.seed = seed;
    rs.mode = mode;
    return rs;
}

// Adaptive sampling to target error e between min_spp and max_spp (render/adaptive.h).
// One frame through the frame protocol: samples [first, first + samples) of `rs`, of image `generation`.
inline pkrt::FrameTicket submit_frame(pkrt::Backend& b, const pkrt::RenderSettings& rs, uint32_t first,
                                      uint32_t samples, uint32_t generation = 0, bool clear = false) {
    pkrt::FrameRequest r;
    r.settings = rs;
    r.first_sample = first;
    r.samples = samples;
    r.generation = generation;
    r.clear = clear;
    return b.submit(r);
}

inline pkrt::AdaptiveSettings adaptive_settings(float e, int min_spp, int max_spp) {
    pkrt::AdaptiveSettings a;
    a.target_error = e;
    a.min_spp = min_spp;
    a.max_spp = max_spp;
    return a;
}

// Root mean square of the per-channel differences of two images of the same size.
inline double rms_difference(const pkrt::Image& a, const pkrt::Image& b) {
    double s = 0;
    for (size_t i = 0; i < a.pixels.size(); ++i)
        for (int c = 0; c < 3; ++c) {
            double d = a.pixels[i][c] - b.pixels[i][c];
            s += d * d;
        }
    return std::sqrt(s / (3.0 * a.pixels.size()));
}

// Mean over pixels and channels.
inline double mean(const pkrt::Image& a) {
    double s = 0;
    for (const auto& p : a.pixels) s += p.x + p.y + p.z;
    return s / (3.0 * a.pixels.size());
}

// An 8-bit RGBA PNG of w x h texels (R | G << 8 | B << 16 | A << 24), row 0 at the top; false on failure.
inline bool write_rgba_png(const std::string& path, int w, int h, const std::vector<uint32_t>& texels) {
    png_image img{};
    img.version = PNG_IMAGE_VERSION;
    img.width = static_cast<png_uint_32>(w);
    img.height = static_cast<png_uint_32>(h);
    img.format = PNG_FORMAT_RGBA;
    return png_image_write_to_file(&img, path.c_str(), 0, texels.data(), 0, nullptr) != 0;
}

inline uint32_t rgba(uint32_t r, uint32_t g, uint32_t b, uint32_t a = 255) { return r | g << 8 | b << 16 | a << 24; }

// An uncompressed 24-bit TGA of w x h texels (RGBA words as above, alpha dropped), row 0 at the top,
// stored bottom-up as most TGA writers do.
inline void write_tga24(const std::string& path, int w, int h, const std::vector<uint32_t>& texels) {
    std::string b(18, '\0');
    b[2] = 2;  // uncompressed true colour
    b[12] = static_cast<char>(w & 0xff), b[13] = static_cast<char>(w >> 8);
    b[14] = static_cast<char>(h & 0xff), b[15] = static_cast<char>(h >> 8);
    b[16] = 24;
    for (int y = h - 1; y >= 0; --y)
        for (int x = 0; x < w; ++x) {
            uint32_t p = texels[static_cast<size_t>(y) * w + x];
            b += static_cast<char>((p >> 16) & 0xff);
            b += static_cast<char>((p >> 8) & 0xff);
            b += static_cast<char>(p & 0xff);
        }
    std::ofstream(path, std::ios::binary) << b;
}

// A textured OBJ scene as exporters write them, in `dir`: its MTL names textures with backslashes and
// the wrong case; a leaf quad with a TGA colour cut out by a checker mask (map_d), a normal-mapped floor
// (norm), a bump-mapped back wall (a height map), under a quad light whose emission is a float OpenEXR
// texture (map_Ke, values above 1). Returns the scene file.
inline std::string write_cutout_scene(const std::string& dir) {
    std::vector<uint32_t> mask, normals, heights, colour;
    for (int y = 0; y < 8; ++y)
        for (int x = 0; x < 8; ++x) {
            mask.push_back(((x + y) & 1) ? rgba(255, 255, 255) : rgba(0, 0, 0));
            double a = 0.8 * std::sin(x * 0.785), b = 0.8 * std::cos(y * 0.785);
            double n = std::sqrt(a * a + b * b + 1.0);
            auto enc = [](double v) { return static_cast<uint32_t>(std::lround((v * 0.5 + 0.5) * 255.0)); };
            normals.push_back(rgba(enc(a / n), enc(b / n), enc(1.0 / n)));
            heights.push_back(rgba(32 * (x & 7), 32 * (x & 7), 32 * (x & 7)));
            colour.push_back(rgba(40 + 25 * x, 200 - 20 * y, 90));
        }
    std::filesystem::create_directories(dir + "/Maps");
    write_rgba_png(dir + "/Maps/leaf_mask.png", 8, 8, mask);
    write_rgba_png(dir + "/Maps/floor_nrm.png", 8, 8, normals);
    write_rgba_png(dir + "/Maps/wall_height.png", 8, 8, heights);
    write_tga24(dir + "/Maps/leaf.tga", 8, 8, colour);
    pkrt::Image glow;
    glow.width = glow.height = 4;
    for (int i = 0; i < 16; ++i) glow.pixels.push_back({4.0f + i, 3.0f + 0.5f * i, 2.0f});
    pkrt::write_exr(dir + "/Maps/glow.exr", glow);
    std::ofstream(dir + "/s.mtl") << "newmtl leaf\nKd 1 1 1\nmap_Kd maps\\LEAF.TGA\nmap_d maps\\leaf_mask.png\n"
                                     "newmtl floor\nKd 0.7 0.7 0.7\nnorm -bm 1.0 maps\\floor_nrm.png\n"
                                     "newmtl wall\nKd 0.6 0.5 0.4\nbump -bm 4 Maps\\wall_height.png\n"
                                     "newmtl light\nKd 0 0 0\nKe 1 1 1\nmap_Ke maps\\glow.exr\n";
    std::ofstream(dir + "/s.obj") << "mtllib s.mtl\n"
                                     "v -2 0 -2\nv 2 0 -2\nv 2 0 2\nv -2 0 2\n"                          // floor 1-4
                                     "v -1 0.2 0\nv 1 0.2 0\nv 1 1.8 0\nv -1 1.8 0\n"                    // leaf 5-8
                                     "v -2 0 -2\nv 2 0 -2\nv 2 3 -2\nv -2 3 -2\n"                        // wall 9-12
                                     "v -0.5 2.9 -0.5\nv 0.5 2.9 -0.5\nv 0.5 2.9 0.5\nv -0.5 2.9 0.5\n"  // light 13-16
                                     "vt 0 0\nvt 2 0\nvt 2 2\nvt 0 2\nvn 0 1 0\nvn 0 0 1\n"
                                     "usemtl floor\nf 4/1/1 3/2/1 2/3/1 1/4/1\n"
                                     "usemtl leaf\nf 5/1/2 6/2/2 7/3/2 8/4/2\n"
                                     "usemtl wall\nf 9/1/2 10/2/2 11/3/2 12/4/2\n"
                                     "usemtl light\nf 13 14 15 16\n";
    std::ofstream(dir + "/s.json") << R"({"camera": {"eye": [0.3, 1.2, 4], "look_at": [0, 1, 0], "fov": 50},
        "meshes": [{"obj": "s.obj"}]})";
    return dir + "/s.json";
}

}  // namespace pkrt_test
