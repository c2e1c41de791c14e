#include "render/scene/render_limits.h"

#include "render/error.h"

namespace pkrt::limits {

std::string range_error(const std::string& what, long long value, long long lo, long long hi) {
    return what + " " + std::to_string(value) + ": must be between " + std::to_string(lo) + " and " +
           std::to_string(hi);
}

void check_range(const std::string& what, long long value, long long lo, long long hi) {
    if (value < lo || value > hi) throw Error(range_error(what, value, lo, hi));
}

}  // namespace pkrt::limits
