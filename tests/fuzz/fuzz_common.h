// Shared by the libFuzzer targets: a private directory for the files an input becomes (pkrt's loaders
// read files, as a user's scene is read), small limits so each input stays fast and within libFuzzer's
// memory limit, and load -> prepare_scene (BVH build, light tables) on the result.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>

#include "render/error.h"
#include "render/scene/scene.h"

namespace pkrt_fuzz {

inline const std::string& work_dir() {
    static const std::string dir = [] {
        std::string tmpl = (std::filesystem::temp_directory_path() / "pkrt-fuzz-XXXXXX").string();
        if (!::mkdtemp(tmpl.data())) std::abort();
        return tmpl;
    }();
    static const bool cleanup = [] {
        std::atexit([] {
            std::error_code ec;
            std::filesystem::remove_all(work_dir(), ec);
        });
        return true;
    }();
    (void)cleanup;
    return dir;
}

inline std::string write_file(const std::string& name, const char* data, size_t size) {
    std::string path = work_dir() + "/" + name;
    std::ofstream(path, std::ios::binary | std::ios::trunc).write(data, static_cast<std::streamsize>(size));
    return path;
}

// A 2x2 RGB PNG under `name`, for the fixture files an input may refer to.
inline void write_tiny_png(const std::string& name) {
    static const unsigned char kPng[] = {0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49,
                                         0x48, 0x44, 0x52, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x02, 0x08, 0x02,
                                         0x00, 0x00, 0x00, 0xfd, 0xd4, 0x9a, 0x73, 0x00, 0x00, 0x00, 0x11, 0x49, 0x44,
                                         0x41, 0x54, 0x78, 0x9c, 0x63, 0xf8, 0xcf, 0xc0, 0xc0, 0xf0, 0x1f, 0x8c, 0x80,
                                         0x18, 0x00, 0x1d, 0xf0, 0x03, 0xfd, 0xd3, 0xd0, 0x7d, 0x26, 0x00, 0x00, 0x00,
                                         0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82};
    write_file(name, reinterpret_cast<const char*>(kPng), sizeof kPng);
}

inline pkrt::LoadLimits small_limits() {
    pkrt::LoadLimits l;
    l.max_triangles = 50000;
    l.max_texels = 1 << 22;
    l.max_polygon_corners = 256;
    return l;
}

// Loads and prepares; the errors pkrt reports as `pkrt: error:` lines are expected outcomes. Anything
// else (a crash, a sanitizer report, an unexpected exception type) is a finding.
inline void load_and_prepare(const std::string& path, const pkrt::LoadLimits& limits = small_limits()) {
    try {
        pkrt::Scene s = pkrt::load_scene(path, limits);
        pkrt::prepare_scene(s);
    } catch (const pkrt::Error&) {
    } catch (const std::bad_alloc&) {
        std::abort();  // the limits must keep allocations small; running out of memory is a finding
    }
}

}  // namespace pkrt_fuzz
