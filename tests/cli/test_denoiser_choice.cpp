// pkrt render --denoiser and --denoiser-weights (render/denoise/denoiser_choice.h): the learned U-Net
// runs from a weight file, and every wrong combination or file is one error line before anything renders.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>

#include "render/image/aov.h"
#include "render/image/image.h"
#include "tests/cli/test_cli_util.h"
#include "tests/denoise/unet_test_nets.h"

using namespace pkrt_test;

namespace {

const std::string kRender = "render " + shell_quote(std::string(PKRT_SCENES_DIR) + "/cornell.json") +
                            " --backend cpu --res 40x24 --spp 4 --seed 5 -o out.exr";

TEST(DenoiserChoice, TheUnetRunsFromAWeightFile) {
    TempDir dir;
    // The identity network: its output is the input colour, so the denoised image is the noisy one.
    pkrt::write_unet_weights(dir.file("identity.pkrtunet"), identity_net());
    RunResult r =
        run_pkrt(kRender + " --denoise --denoiser unet --denoiser-weights identity.pkrtunet", dir.path().string());
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("U-Net"), std::string::npos) << r.err;  // the log names the denoiser that ran
    const pkrt::Image out = pkrt::read_exr(dir.file("out.exr")),
                      noisy = pkrt::read_noisy_layer(dir.file("out.exr"), 40, 24);
    double largest = 0.0;
    for (size_t i = 0; i < out.pixels.size(); ++i)
        for (int k = 0; k < 3; ++k) {
            ASSERT_NEAR(out.pixels[i][k], noisy.pixels[i][k], 1e-4 * (1 + noisy.pixels[i][k])) << i;
            largest = std::max(largest, double(noisy.pixels[i][k]));
        }
    EXPECT_GT(largest, 0.1);
    // The a-trous filter, asked for by name, changes the image.
    ASSERT_EQ(run_pkrt(kRender + " --denoise --denoiser atrous", dir.path().string()).code, 0);
    const pkrt::Image filtered = pkrt::read_exr(dir.file("out.exr"));
    double moved = 0.0;
    for (size_t i = 0; i < out.pixels.size(); ++i) moved += std::fabs(filtered.pixels[i].x - noisy.pixels[i].x);
    EXPECT_GT(moved, 0.0);
}

TEST(DenoiserChoice, WrongCombinationsAndFilesAreOneErrorLine) {
    TempDir dir;
    pkrt::write_unet_weights(dir.file("good.pkrtunet"), random_net(3));
    dir.write("short.pkrtunet", std::string("PKRTUNET\x01\0\0\0", 12));
    ASSERT_EQ(::mkfifo(dir.file("fifo.pkrtunet").c_str(), 0600), 0);
    const std::pair<std::string, std::string> cases[] = {
        {"--denoiser unet", "--denoiser: only with --denoise"},
        {"--denoiser-weights good.pkrtunet", "--denoiser-weights: only with --denoise"},
        {"--denoise --denoiser fast", "--denoiser 'fast': must be atrous (the a-trous filter) or unet"},
        {"--denoise --denoiser atrous --denoiser-weights good.pkrtunet",
         "--denoiser-weights good.pkrtunet: only with --denoiser unet"},
        {"--denoise --denoiser unet --denoiser-weights missing.pkrtunet",
         "--denoiser-weights missing.pkrtunet: no such file (the U-Net weights)"},
        {"--denoise --denoiser unet --denoiser-weights short.pkrtunet", "--denoiser-weights short.pkrtunet"},
        {"--denoise --denoiser unet --denoiser-weights fifo.pkrtunet", "not a regular file"},
    };
    for (const auto& [flags, message] : cases) {
        RunResult r = run_pkrt(kRender + " " + flags, dir.path().string());
        EXPECT_EQ(r.code, 1) << flags << ": " << r.err;
        EXPECT_EQ(r.err.rfind("pkrt: error: ", 0), 0u) << flags << ": " << r.err;
        EXPECT_NE(r.err.find(message), std::string::npos) << flags << ": " << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << flags << ": " << r.err;
        EXPECT_FALSE(std::filesystem::exists(dir.file("out.exr"))) << flags;
    }
}

}  // namespace
