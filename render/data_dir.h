// Where pkrt's data lies: the shipped scenes (scenes/, the default scene among them), the viewer's
// shaders (shaders/) and the learned denoiser's weights (weights/). An installed binary finds them beside itself, in <prefix>/share/pkrt, so that an
// installed tree works wherever it is moved; a binary run from its build folder finds the source tree it was
// built from, which has the same layout.
#pragma once

#include <string>

namespace pkrt {

// <the executable's folder>/../share/pkrt (as GNUInstallDirs lays out bin/ and share/) where that folder
// exists, else the source tree. Decided once per process.
std::string data_dir();

std::string scenes_dir();   // data_dir()/scenes
std::string shaders_dir();  // data_dir()/shaders
std::string weights_dir();  // data_dir()/weights

}  // namespace pkrt
