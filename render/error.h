// User-facing failures: one line that names the file or flag and what is wrong with it. Thrown by the
// loaders and the CLI checks; `pkrt` prints it after "pkrt: error: " and exits non-zero.
#pragma once

#include <stdexcept>
#include <string>

namespace pkrt {

class Error : public std::runtime_error {
public:
    explicit Error(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace pkrt
