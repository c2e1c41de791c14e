// Screenshots: the default framebuffer's back buffer, read right after the image pass and before the UI
// is drawn, so the PNG holds the tone-mapped render at window size without the panels.
#pragma once

#include <string>

#include "render/backend.h"

namespace pkrt::viewer {

// Reads width x height RGB from the back buffer, flips it (GL's row 0 is the bottom) and encodes it as
// PNG. The viewer writes it as it writes every output (ViewerApp::write_output: never over an input).
std::string back_buffer_png(int width, int height);

// pkrt-screenshot-N.png with the smallest N >= 1 not taken in `directory`.
std::string next_screenshot_name(const std::string& directory = ".", const std::string& extension = ".png");
// The backend's accumulation as a linear EXR (mean radiance); with `denoiser`, denoised as pkrt render
// --denoise writes it: the render kept as its Noisy Image layer, beside the feature layers.
std::string accumulation_exr(const Backend& backend, Denoiser* denoiser);

}  // namespace pkrt::viewer
