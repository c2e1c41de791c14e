// The GPU scheduler modes, named in one place: the CLI, the viewer and the bench parse and print them
// here and pass the enum everywhere else.
#pragma once

#include <string>
#include <vector>

namespace pkrt {

enum class SchedulerMode { kPersistent, kRelaunch, kGraph, kMegakernel };

const char* mode_name(SchedulerMode mode);
// Throws Error("<what> <text>: '<text>' is not a mode (must be persistent, relaunch, graph or megakernel)").
SchedulerMode parse_mode(const std::string& text, const std::string& what = "--mode");
std::vector<SchedulerMode> all_modes();
// "persistent, relaunch, graph or megakernel"
std::string mode_list();

}  // namespace pkrt
