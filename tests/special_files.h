// Device nodes, FIFOs and sockets for the tests of what pkrt may replace, made in a test's own
// temporary folder (never the system's /dev): a character device needs root (mknod), the others not.
#pragma once

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

namespace pkrt_test {

enum class NodeKind { kCharDevice, kFifo, kSocket };

struct SpecialNode {
    NodeKind kind;
    const char* name;  // as pkrt's message names the kind
};

inline const std::vector<SpecialNode>& special_nodes() {
    static const std::vector<SpecialNode> all = {
        {NodeKind::kCharDevice, "a character device"}, {NodeKind::kFifo, "a FIFO"}, {NodeKind::kSocket, "a socket"}};
    return all;
}

// Makes `path` a node of `kind`; false where the system does not let this process (mknod without root).
// The character device is /dev/full's numbers (1, 7): what pkrt once replaced on a test machine.
inline bool make_node(const std::string& path, NodeKind kind) {
    switch (kind) {
        case NodeKind::kCharDevice: return ::mknod(path.c_str(), S_IFCHR | 0666, makedev(1, 7)) == 0;
        case NodeKind::kFifo: return ::mkfifo(path.c_str(), 0666) == 0;
        case NodeKind::kSocket: {
            sockaddr_un a{};
            a.sun_family = AF_UNIX;
            if (path.size() >= sizeof a.sun_path) return false;
            std::memcpy(a.sun_path, path.c_str(), path.size() + 1);
            int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
            if (fd < 0) return false;
            bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
            ::close(fd);  // the socket file stays
            return ok;
        }
    }
    return false;
}

// Whether `path` is still a node of `kind` (not replaced by a regular file).
inline bool is_node(const std::string& path, NodeKind kind) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) return false;
    switch (kind) {
        case NodeKind::kCharDevice: return S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 7);
        case NodeKind::kFifo: return S_ISFIFO(st.st_mode);
        case NodeKind::kSocket: return S_ISSOCK(st.st_mode);
    }
    return false;
}

}  // namespace pkrt_test
