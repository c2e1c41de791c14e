// `pkrt info`: the build configuration and the CUDA devices found.
#pragma once

namespace pkrt {

// Prints them on stdout; returns the exit status.
int run_info();

}  // namespace pkrt
