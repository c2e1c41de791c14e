// Reading an OpenEXR file's R, G and B channels as floats, shared by the HDR image reader
// (render/image/image.cpp) and the environment map loader (render/texture/environment_map.cpp).
#pragma once

#include <ImfInputFile.h>

#include "kernels/vec3.h"

namespace pkrt {

// The data window of `file` into `pixels`, which holds its width x height texels, row 0 first. A
// missing channel reads as 0 (OpenEXR's fill). Throws what OpenEXR throws.
void read_exr_rgb(Imf::InputFile& file, Vec3* pixels);

}  // namespace pkrt
