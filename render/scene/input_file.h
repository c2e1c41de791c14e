// Input files are opened here and nowhere else: a library that opens a path itself may block on a FIFO,
// read /dev/zero forever or follow a symlink loop. read_input_file() opens without blocking, checks that
// it got a regular file (fstat on the open descriptor, so nothing can be swapped in between) and returns
// the bytes with the file's identity, which dedups textures and keeps outputs off inputs.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

#include "render/error.h"

namespace pkrt {

struct FileIdentity {
    uint64_t device = 0, inode = 0;
    bool operator==(const FileIdentity& o) const { return device == o.device && inode == o.inode; }
    bool operator<(const FileIdentity& o) const { return device != o.device ? device < o.device : inode < o.inode; }
};

struct InputFile {
    std::string path;
    FileIdentity id;
    std::string bytes;
};

// What read_input_file throws for a file over its `max_bytes`, so that a caller with a budget of its
// own can say which budget.
struct InputTooLarge : Error {
    uint64_t size;
    InputTooLarge(const std::string& message, uint64_t bytes) : Error(message), size(bytes) {}
};

// Throws Error "<path>: <not_found>" when it does not exist, else "<path>: is a directory",
// "is not a regular file", "symlink loop", "larger than ... bytes" or the system's reason.
InputFile read_input_file(const std::string& path, const std::string& not_found = "no such file",
                          uint64_t max_bytes = uint64_t(1) << 34);

// The little-endian 32-bit word at byte `at` of a file's bytes (the caller checked that four are there).
inline uint32_t le32(const std::string& b, size_t at) {
    return uint32_t(uint8_t(b[at])) | uint32_t(uint8_t(b[at + 1])) << 8 | uint32_t(uint8_t(b[at + 2])) << 16 |
           uint32_t(uint8_t(b[at + 3])) << 24;
}

// The same checks without reading: for files that are read later, by name, by a library.
FileIdentity check_input_file(const std::string& path, const std::string& not_found = "no such file");

// The identity of an existing path (following symlinks); false when it does not exist.
bool file_identity(const std::string& path, FileIdentity* id);

}  // namespace pkrt
