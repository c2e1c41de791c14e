// The GPU scheduler modes, named in one place: the CLI, the viewer and the bench parse and print them
// here and pass the enum everywhere else.
#pragma once

#include <string>
#include <vector>

namespace pkrt {

// kResident: the persistent kernel launched once and fed frames as jobs through mapped memory.
enum class SchedulerMode { kPersistent, kRelaunch, kGraph, kMegakernel, kResident };

const char* mode_name(SchedulerMode mode);
// Throws Error("<what> <text>: '<text>' is not a mode (must be persistent, relaunch, graph, megakernel or resident)").
SchedulerMode parse_mode(const std::string& text, const std::string& what = "--mode");
std::vector<SchedulerMode> all_modes();
// "persistent, relaunch, graph, megakernel or resident"
std::string mode_list();

}  // namespace pkrt
