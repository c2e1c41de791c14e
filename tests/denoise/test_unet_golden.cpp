// The CPU network against PyTorch (tests/denoise/unet_golden.h): the same weights and image through the
// training code's float64 forward pass, which the C++ must give to float32 precision; and the weight
// file golden.py wrote, read by the C++ reader.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "render/denoise/denoiser.h"
#include "render/denoise/unet.h"
#include "render/denoise/unet_weights.h"
#include "tests/denoise/unet_golden.h"

using namespace pkrt;
using namespace pkrt_test;

TEST(UnetGolden, CpuNetworkGivesPyTorchsImage) {
    UnetGolden g;
    ASSERT_TRUE(read_unet_golden(kGoldenDir + "/golden.bin", g)) << kGoldenDir << "/golden.bin";
    const UnetWeights w = read_unet_weights(kGoldenDir + "/golden.pkrtunet");
    const Image got = make_cpu_unet_denoiser(w, 2)->denoise(g.color, g.features, {});
    ASSERT_EQ(got.pixels.size(), g.want.pixels.size());
    double worst = 0.0, largest = 0.0, smallest = INFINITY;
    for (size_t i = 0; i < g.want.pixels.size(); ++i)
        for (int k = 0; k < 3; ++k) {
            const double want = g.want.pixels[i][k];
            worst = std::max(worst, std::fabs(got.pixels[i][k] - want) / (1e-3 + std::fabs(want)));
            largest = std::max(largest, want);
            smallest = std::min(smallest, want);
        }
    // float32 through 16 layers of up to 28 channels: a few parts in 10^5 of the value.
    EXPECT_LT(worst, 1e-4);
    EXPECT_GT(largest, 10.0 * std::max(smallest, 1e-3));  // an image with contrast, not a constant
}
