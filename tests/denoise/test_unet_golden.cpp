// The CPU network against PyTorch (tests/denoise/unet_golden.h): the same weights and image through the
// training code's float64 forward pass, which the C++ must give to float32 precision; and the weight
// file golden.py wrote, read by the C++ reader.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "render/denoise/denoiser.h"
#include "render/denoise/unet.h"
#include "render/denoise/unet_weights.h"
#include "render/image/look.h"
#include "tests/denoise/unet_golden.h"

using namespace pkrt;
using namespace pkrt_test;

// golden: the network gives the curve's value (a version 1 file); golden_residual: the same weights, its
// output added to the input colour's curve value (version 2).
TEST(UnetGolden, CpuNetworkGivesPyTorchsImage) {
    for (const char* name : {"golden", "golden_residual"}) {
        SCOPED_TRACE(name);
        UnetGolden g;
        ASSERT_TRUE(read_unet_golden(kGoldenDir + "/" + name + ".bin", g)) << kGoldenDir << "/" << name << ".bin";
        const UnetWeights w = read_unet_weights(kGoldenDir + "/" + name + ".pkrtunet");
        EXPECT_EQ(w.transfer.output, std::string(name) == "golden" ? UnetOutput::kCurve : UnetOutput::kResidual);
        const Image got = make_cpu_unet_denoiser(w, 2)->denoise(g.color, g.features, {});
        ASSERT_EQ(got.pixels.size(), g.want.pixels.size());
        // The network's output is on the curve y = ln(1 + x e) / 4, so a float32 rounding of y moves x by
        // about (x + 1/e) times it: errors are measured against that scale (a dark pixel's 1/e dominates).
        const double inv_e = 1.0 / std::exp2(double(auto_exposure_stops(g.color)));
        double worst = 0.0, mean = 0.0, largest = 0.0, smallest = INFINITY;
        size_t at = 0;
        for (size_t i = 0; i < g.want.pixels.size(); ++i)
            for (int k = 0; k < 3; ++k) {
                const double want = g.want.pixels[i][k];
                const double e = std::fabs(got.pixels[i][k] - want) / (inv_e + std::fabs(want));
                if (e > worst) worst = e, at = 3 * i + k;
                mean += e;
                largest = std::max(largest, want);
                smallest = std::min(smallest, want);
            }
        mean /= 3.0 * double(g.want.pixels.size());
        std::printf("%s: mean %.3g, worst %.3g at pixel %zu channel %zu: %.9g against %.9g\n", name, mean, worst,
                    at / 3, at % 3, got.pixels[at / 3][at % 3], g.want.pixels[at / 3][at % 3]);
        // float32 through 16 layers of up to 28 channels: a few parts in 10^6 of that scale at worst.
        EXPECT_LT(worst, 1e-5);
        EXPECT_LT(mean, 1e-6);
        EXPECT_GT(largest, 10.0 * std::max(smallest, 1e-3));  // an image with contrast, not a constant
    }
}
