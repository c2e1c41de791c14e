#include "render/mode.h"

#include "render/error.h"

namespace pkrt {

namespace {
constexpr SchedulerMode kModes[] = {SchedulerMode::kPersistent, SchedulerMode::kRelaunch, SchedulerMode::kGraph,
                                    SchedulerMode::kMegakernel, SchedulerMode::kResident};
}

const char* mode_name(SchedulerMode mode) {
    switch (mode) {
        case SchedulerMode::kPersistent: return "persistent";
        case SchedulerMode::kRelaunch: return "relaunch";
        case SchedulerMode::kGraph: return "graph";
        case SchedulerMode::kMegakernel: return "megakernel";
        case SchedulerMode::kResident: return "resident";
    }
    return "?";
}

std::vector<SchedulerMode> all_modes() { return {std::begin(kModes), std::end(kModes)}; }

std::string mode_list() {
    std::string out;
    size_t n = std::size(kModes);
    for (size_t i = 0; i < n; ++i) out += std::string(i == 0 ? "" : i + 1 == n ? " or " : ", ") + mode_name(kModes[i]);
    return out;
}

SchedulerMode parse_mode(const std::string& text, const std::string& what) {
    for (SchedulerMode m : kModes)
        if (text == mode_name(m)) return m;
    throw Error(what + " " + text + ": '" + text + "' is not a mode (must be " + mode_list() + ")");
}

}  // namespace pkrt
