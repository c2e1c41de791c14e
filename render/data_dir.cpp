#include "render/data_dir.h"

#include <filesystem>
#include <system_error>

namespace pkrt {

namespace fs = std::filesystem;

namespace {

std::string find_data_dir() {
    // /proc/self/exe names the binary itself, symbolic links resolved, whatever the working directory or
    // argv[0] is.
    std::error_code ec;
    fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        fs::path installed = (exe.parent_path() / PKRT_DATA_DIR_FROM_BIN).lexically_normal();
        if (fs::is_directory(installed, ec)) return installed.string();
    }
    return PKRT_SOURCE_DATA_DIR;
}

}  // namespace

std::string data_dir() {
    static const std::string dir = find_data_dir();
    return dir;
}

std::string scenes_dir() { return data_dir() + "/scenes"; }

std::string shaders_dir() { return data_dir() + "/shaders"; }

std::string weights_dir() { return data_dir() + "/weights"; }

}  // namespace pkrt
