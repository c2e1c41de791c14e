// The golden output of tools/denoiser/golden.py, stored in tests/denoise/golden/: a small U-Net of fixed
// weights (golden.pkrtunet) and a 40x24 image with its albedo and normal, and what PyTorch's float64
// forward pass of the training code (tools/denoiser/unet.py) made of it. The C++ networks are checked
// against it: the CPU's to float32 precision, the GPU's to fp16's.
#pragma once

#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "render/image/image.h"

namespace pkrt_test {

inline const std::string kGoldenDir = std::string(PKRT_SOURCE_DIR) + "/tests/denoise/golden";

struct UnetGolden {
    pkrt::Image color;
    pkrt::FeatureImages features;
    pkrt::Image want;  // PyTorch's denoised image
};

// golden.bin: "PKRTGOLD", width, height (uint32), then float32 planes row by row from the top: colour
// R G B, albedo R G B, normal X Y Z, denoised R G B. Empty on a missing or short file.
inline bool read_unet_golden(const std::string& path, UnetGolden& g) {
    std::ifstream f(path, std::ios::binary);
    char magic[8];
    uint32_t wh[2];
    if (!f.read(magic, 8) || std::memcmp(magic, "PKRTGOLD", 8) != 0 || !f.read(reinterpret_cast<char*>(wh), 8))
        return false;
    const int w = static_cast<int>(wh[0]), h = static_cast<int>(wh[1]);
    if (w <= 0 || h <= 0 || w > 4096 || h > 4096) return false;
    const size_t n = size_t(w) * h;
    std::vector<float> planes(12 * n);
    if (!f.read(reinterpret_cast<char*>(planes.data()), std::streamsize(planes.size() * sizeof(float)))) return false;
    pkrt::Image* images[] = {&g.color, &g.features.albedo, &g.features.normal, &g.want};
    for (int k = 0; k < 4; ++k) {
        pkrt::Image& img = *images[k];
        img.width = w;
        img.height = h;
        img.pixels.resize(n);
        for (size_t i = 0; i < n; ++i)
            img.pixels[i] = {planes[(3 * k) * n + i], planes[(3 * k + 1) * n + i], planes[(3 * k + 2) * n + i]};
    }
    g.features.depth = g.color;  // the network does not read depth; the feature set carries it
    for (pkrt::Vec3& d : g.features.depth.pixels) d = {0.0f, 0.0f, 0.0f};
    return true;
}

}  // namespace pkrt_test
