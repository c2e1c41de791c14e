// The learned denoiser's inference time (not a test): OIDN-sized random weights on a random image.
// Usage: unet_bench [WIDTH HEIGHT [THREADS [TILE]]] [--gpu]   (default 1920 1080, every core, kUnetDefaultTile)
// --gpu: on CUDA device 0 (tile: kGpuUnetDefaultTile unless given), the median of 10 runs' GPU time after one
// to warm up.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>
#include <vector>
#include <cstdio>
#include <cstdlib>
#include <random>

#include "render/cpu/parallel.h"
#include "render/denoise/unet.h"
#include "render/devices.h"
#if defined(PKRT_HAVE_CUDA)
#include "render/cuda/gpu_unet_denoiser.h"
#endif

using namespace pkrt;

namespace {

int bench_gpu(const UnetWeights& w, const Image& color, const FeatureImages& f, int tile) {
#if defined(PKRT_HAVE_CUDA)
    std::string why;
    const std::vector<GpuDevice> devices = cuda_devices(&why);
    if (devices.empty()) {
        std::fprintf(stderr, "unet_bench: no CUDA device (%s)\n", why.c_str());
        return 1;
    }
    const auto denoiser = make_cuda_unet_denoiser(devices[0], w, tile);
    denoiser->denoise(color, f);
    std::vector<double> ms, wall;
    for (int i = 0; i < 10; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        denoiser->denoise(color, f);
        wall.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        ms.push_back(denoiser->last_device_ms());
    }
    std::sort(ms.begin(), ms.end());
    std::sort(wall.begin(), wall.end());
    std::printf("%dx%d on %s, tile %d: %.2f ms on the GPU, %.2f ms with the transfers (medians of 10)\n", color.width,
                color.height, devices[0].name.c_str(), tile, ms[5], wall[5]);
    return 0;
#else
    (void)w, (void)color, (void)f, (void)tile;
    std::fprintf(stderr, "unet_bench: built without CUDA\n");
    return 1;
#endif
}

}  // namespace

int main(int argc, char** argv) {
    bool gpu = false;
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], "--gpu") == 0) {
            gpu = true;
            for (int k = i; k + 1 < argc; ++k) argv[k] = argv[k + 1];
            --argc;
            break;
        }
    const int width = argc > 2 ? std::atoi(argv[1]) : 1920, height = argc > 2 ? std::atoi(argv[2]) : 1080;
    const unsigned threads = argc > 3 ? unsigned(std::atoi(argv[3])) : worker_count();
    const int tile = argc > 4 ? std::atoi(argv[4]) : gpu ? kGpuUnetDefaultTile : kUnetDefaultTile;
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
    if (gpu) return bench_gpu(w, color, f, tile);
    const UnetNetwork net(w);
    const auto t0 = std::chrono::steady_clock::now();
    const Image out = net.denoise(color, f, threads, tile);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%dx%d, %u threads, tile %d: %.2f s (%zu parameters; pixel 0 %.4f)\n", width, height, threads, tile, s,
                w.parameter_count(), out.pixels[0].x);
    return 0;
}
