// `pkrt info`: the build configuration, the CUDA devices found and the data directory in use.
#pragma once

namespace pkrt {

// Prints them on stdout; returns the exit status.
int run_info();

}  // namespace pkrt
