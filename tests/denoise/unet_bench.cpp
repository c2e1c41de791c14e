// The learned denoiser's CPU inference time (not a test): OIDN-sized random weights on a random image.
// Usage: unet_bench [WIDTH HEIGHT [THREADS [TILE]]]   (default 1920 1080, every core, kUnetDefaultTile)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>

#include "render/cpu/parallel.h"
#include "render/denoise/unet.h"

using namespace pkrt;

int main(int argc, char** argv) {
    const int width = argc > 2 ? std::atoi(argv[1]) : 1920, height = argc > 2 ? std::atoi(argv[2]) : 1080;
    const unsigned threads = argc > 3 ? unsigned(std::atoi(argv[3])) : worker_count();
    const int tile = argc > 4 ? std::atoi(argv[4]) : kUnetDefaultTile;
    UnetWeights w = unet_with_widths(kUnetColor | kUnetAlbedo | kUnetNormal, unet_default_widths());
    std::mt19937 rng(1);
    for (ConvLayer& l : w.layers) {
        std::uniform_real_distribution<float> u(-1.0f / l.in, 1.0f / l.in);
        for (float& x : l.weights) x = u(rng);
        for (float& x : l.bias) x = u(rng);
    }
    Image color;
    FeatureImages f;
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    for (Image* img : {&color, &f.albedo, &f.normal, &f.depth}) {
        img->width = width, img->height = height;
        img->pixels.resize(size_t(width) * height);
        for (Vec3& p : img->pixels) p = {u(rng), u(rng), u(rng)};
    }
    const UnetNetwork net(w);
    const auto t0 = std::chrono::steady_clock::now();
    const Image out = net.denoise(color, f, threads, tile);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%dx%d, %u threads, tile %d: %.2f s (%zu parameters; pixel 0 %.4f)\n", width, height, threads, tile, s,
                w.parameter_count(), out.pixels[0].x);
    return 0;
}
