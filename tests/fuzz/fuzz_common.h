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
#include "render/scene.h"

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

inline pkrt::LoadLimits small_limits() {
    pkrt::LoadLimits l;
    l.max_triangles = 50000;
    l.max_texels = 1 << 22;
    l.max_polygon_corners = 256;
    return l;
}

// Loads and prepares; the errors pkrt reports as `pkrt: error:` lines are expected outcomes. Anything
// else (a crash, a sanitizer report, an unexpected exception type) is a finding.
inline void load_and_prepare(const std::string& path) {
    try {
        pkrt::Scene s = pkrt::load_scene(path, small_limits());
        pkrt::prepare_scene(s);
    } catch (const pkrt::Error&) {
    } catch (const std::bad_alloc&) {
        std::abort();  // the limits must keep allocations small; running out of memory is a finding
    }
}

}  // namespace pkrt_fuzz
