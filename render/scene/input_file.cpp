#include "render/scene/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "render/error.h"

namespace pkrt {

namespace {

struct Fd {
    int fd;
    explicit Fd(int d) : fd(d) {}
    Fd(Fd&& o) noexcept : fd(std::exchange(o.fd, -1)) {}
    Fd(const Fd&) = delete;
    ~Fd() {
        if (fd >= 0) ::close(fd);
    }
};

// Opens `path` and checks that it is a regular file; fills `st`.
Fd open_regular(const std::string& path, const std::string& not_found, struct stat* st) {
    // O_NONBLOCK: opening a FIFO for reading must not wait for a writer; it is rejected just below.
    Fd f{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)};
    if (f.fd < 0) {
        int e = errno;
        if (e == ENOENT || (e == ENOTDIR && path.find('/') != std::string::npos)) throw Error(path + ": " + not_found);
        if (e == ELOOP) throw Error(path + ": symlink loop");
        throw Error(path + ": cannot open: " + std::strerror(e));
    }
    if (::fstat(f.fd, st) != 0) throw Error(path + ": cannot stat: " + std::strerror(errno));
    if (S_ISDIR(st->st_mode)) throw Error(path + ": is a directory, not a regular file");
    if (!S_ISREG(st->st_mode)) throw Error(path + ": is not a regular file");
    return Fd{std::exchange(f.fd, -1)};
}

}  // namespace

FileIdentity check_input_file(const std::string& path, const std::string& not_found) {
    struct stat st {};
    Fd f = open_regular(path, not_found, &st);
    return {static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino)};
}

InputFile read_input_file(const std::string& path, const std::string& not_found, uint64_t max_bytes) {
    struct stat st {};
    Fd f = open_regular(path, not_found, &st);
    if (static_cast<uint64_t>(st.st_size) > max_bytes)
        throw InputTooLarge(path + ": larger than " + std::to_string(max_bytes) + " bytes",
                            static_cast<uint64_t>(st.st_size));
    InputFile in;
    in.path = path;
    in.id = {static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino)};
    in.bytes.resize(static_cast<size_t>(st.st_size));
    size_t got = 0;
    // Read to the size fstat gave: a file that grows meanwhile is cut there, one that shrinks is an error.
    while (got < in.bytes.size()) {
        ssize_t n = ::read(f.fd, in.bytes.data() + got, in.bytes.size() - got);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw Error(path + ": cannot read: " + std::strerror(errno));
        if (n == 0) throw Error(path + ": changed while being read");
        got += static_cast<size_t>(n);
    }
    return in;
}

bool file_identity(const std::string& path, FileIdentity* id) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return false;
    *id = {static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino)};
    return true;
}

}  // namespace pkrt
