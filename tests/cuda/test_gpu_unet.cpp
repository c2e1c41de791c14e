// The learned denoiser on a CUDA device (render/cuda/gpu_unet_denoiser.h) against the same network on the
// CPU (render/denoise/unet.h, itself checked against a direct reference in test_unet): narrow layers whose
// channels are mostly padding, the shipped widths, a layer wider than one block's channels, tiles against
// the whole image, and an identity network. Activations are fp16 on the GPU, so the images agree to
// fp16's precision. Skips without a CUDA device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "render/devices.h"
#include "render/error.h"
#include "render/image/look.h"
#include "render/denoise/unet_weights.h"
#include "tests/denoise/unet_golden.h"
#include "tests/denoise/unet_test_nets.h"

#if defined(PKRT_HAVE_CUDA)
#include "render/cuda/gpu_unet_denoiser.h"
#endif

using namespace pkrt;
using namespace pkrt_test;

namespace {

#if defined(PKRT_HAVE_CUDA)

GpuDevice first_device() {
    std::string why;
    const std::vector<GpuDevice> devices = cuda_devices(&why);
    if (!devices.empty()) return devices[0];
    GpuDevice none;
    none.index = -1;
    return none;
}

#define REQUIRE_DEVICE(d)               \
    const GpuDevice d = first_device(); \
    if (d.index < 0) GTEST_SKIP() << "no CUDA device";

// Largest and mean of |gpu - cpu| / (1 + |cpu|) over every pixel and channel, and the largest cpu value.
struct Agreement {
    double worst = 0.0, mean = 0.0, largest = 0.0;
};
Agreement agreement(const Image& gpu, const Image& cpu) {
    Agreement a;
    for (size_t i = 0; i < cpu.pixels.size(); ++i)
        for (int k = 0; k < 3; ++k) {
            const double c = cpu.pixels[i][k], e = std::fabs(gpu.pixels[i][k] - c) / (1.0 + std::fabs(c));
            a.worst = std::max(a.worst, e);
            a.mean += e;
            a.largest = std::max(a.largest, c);
        }
    a.mean /= 3.0 * double(cpu.pixels.size());
    return a;
}

// Scaled by 1/sqrt(fan-in), as random_net, so that activations stay near 1 through every layer.
UnetWeights random_wide_net(uint32_t seed, const std::array<int, kUnetLayers>& widths) {
    UnetWeights w = random_net(seed, kUnetColor | kUnetAlbedo | kUnetNormal, widths);
    w.transfer.scale = 0.25f;
    w.transfer.max_input = 65504.0f;
    return w;
}

UnetWeights residual(UnetWeights w) {
    w.transfer.output = UnetOutput::kResidual;
    return w;
}

TEST(GpuUnet, MatchesTheCpuNetwork) {
    REQUIRE_DEVICE(dev);
    std::array<int, kUnetLayers> wide = unet_default_widths();
    wide[5] = 200;  // enc_conv5a: 13 channel tiles, more than a block takes (grid.z splits them)
    struct Case {
        const char* what;
        UnetWeights w;
        int width, height;
    };
    const Case cases[] = {
        {"narrow layers", random_net(3), 48, 40},
        {"narrow layers, odd size", random_net(4), 33, 17},
        {"colour alone", random_net(5, kUnetColor), 70, 45},
        {"shipped widths", random_wide_net(6, unet_default_widths()), 260, 150},
        {"a layer of 200 channels", random_wide_net(7, wide), 96, 80},
        {"residual, shipped widths", residual(random_wide_net(8, unet_default_widths())), 130, 70},
    };
    for (const Case& c : cases) {
        const UnetScene s = random_scene(17 + c.width, c.width, c.height);
        const Image cpu = make_cpu_unet_denoiser(c.w, 2)->denoise(s.color, s.features, {});
        const auto gpu_denoiser = make_cuda_unet_denoiser(dev, c.w);
        const Image gpu = gpu_denoiser->denoise(s.color, s.features, {});
        EXPECT_GT(gpu_denoiser->last_device_ms(), 0.0);
        const Agreement a = agreement(gpu, cpu);
        // fp16 activations: a few parts in a thousand on average through 16 layers, a few percent at worst.
        EXPECT_LT(a.mean, 4e-3) << c.what;
        EXPECT_LT(a.worst, 6e-2) << c.what;
        EXPECT_GT(a.largest, 0.01) << c.what;  // not black, which would agree trivially
        std::printf("%s, %dx%d: mean %.2e, worst %.2e of (1 + |cpu|)\n", c.what, c.width, c.height, a.mean, a.worst);
    }
}

TEST(GpuUnet, TilesGiveTheWholeImageBitForBit) {
    REQUIRE_DEVICE(dev);
    const UnetWeights w = random_wide_net(21, unet_default_widths());
    const UnetScene s = random_scene(22, 300, 170);
    const Image whole = make_cuda_unet_denoiser(dev, w, 1 << 20)->denoise(s.color, s.features, {});
    for (int tile : {32, 112}) {
        const Image tiled = make_cuda_unet_denoiser(dev, w, tile)->denoise(s.color, s.features, {});
        ASSERT_EQ(tiled.pixels.size(), whole.pixels.size());
        EXPECT_EQ(std::memcmp(tiled.pixels.data(), whole.pixels.data(), whole.pixels.size() * sizeof(Vec3)), 0)
            << "tile " << tile;
    }
}

TEST(GpuUnet, IdentityNetworkReturnsTheInputColour) {
    REQUIRE_DEVICE(dev);
    const UnetScene s = random_scene(31, 50, 37);
    const double e = std::exp2(auto_exposure_stops(s.color));
    for (uint32_t inputs : {7u, 1u, 5u}) {
        const Image out = make_cuda_unet_denoiser(dev, identity_net(inputs))->denoise(s.color, s.features, {});
        // The exposed colour on the curve, y = s ln(1 + x e), is rounded to fp16 three times (the input,
        // dec_conv1a's and dec_conv1b's outputs): |dy| <= 3 * 2^-11 y, so |dx| <= 3 * 2^-11 ln(1 + x e) (1/e + x).
        for (size_t i = 0; i < s.color.pixels.size(); ++i)
            for (int k = 0; k < 3; ++k) {
                const double x = s.color.pixels[i][k];
                ASSERT_NEAR(out.pixels[i][k], x, 4.0 / 2048 * (std::log1p(x * e) + 1e-4) * (1 / e + x)) << i;
            }
    }
}

// The residual output is added in float32 from the colour itself, not from the network's fp16 input: a
// zero network gives the input back to float32's precision, as on the CPU.
TEST(GpuUnet, ZeroResidualNetworkReturnsTheInputColour) {
    REQUIRE_DEVICE(dev);
    const UnetScene s = random_scene(33, 50, 37);
    for (uint32_t inputs : {7u, 1u}) {
        const Image out = make_cuda_unet_denoiser(dev, zero_residual_net(inputs))->denoise(s.color, s.features, {});
        for (size_t i = 0; i < s.color.pixels.size(); ++i)
            for (int k = 0; k < 3; ++k)
                ASSERT_NEAR(out.pixels[i][k], s.color.pixels[i][k], 2e-6 * (1 + s.color.pixels[i][k])) << i;
    }
}

// PyTorch's image of the golden network (tests/denoise/unet_golden.h), to fp16's precision as above.
TEST(GpuUnet, GivesPyTorchsImage) {
    REQUIRE_DEVICE(dev);
    for (const char* name : {"golden", "golden_residual"}) {  // the curve's value, and residual
        UnetGolden g;
        ASSERT_TRUE(read_unet_golden(kGoldenDir + "/" + name + ".bin", g)) << kGoldenDir << "/" << name << ".bin";
        const UnetWeights w = read_unet_weights(kGoldenDir + "/" + name + ".pkrtunet");
        const Image gpu = make_cuda_unet_denoiser(dev, w)->denoise(g.color, g.features, {});
        const Agreement a = agreement(gpu, g.want);
        EXPECT_LT(a.mean, 4e-3) << name;
        EXPECT_LT(a.worst, 6e-2) << name;
        std::printf("%s %dx%d: mean %.2e, worst %.2e of (1 + |want|)\n", name, g.want.width, g.want.height, a.mean,
                    a.worst);
    }
}

TEST(GpuUnet, RefusesWeightsThatDoNotFit) {
    REQUIRE_DEVICE(dev);
    UnetWeights w = random_net(41);
    w.layers[7].in += 1;
    EXPECT_THROW(make_cuda_unet_denoiser(dev, w), Error);
}

#endif

}  // namespace
