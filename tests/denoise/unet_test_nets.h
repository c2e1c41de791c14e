// Networks and inputs the U-Net's tests share (test_unet on the CPU, test_gpu_unet on a CUDA device).
#pragma once

#include <array>
#include <cmath>
#include <random>

#include "render/denoise/unet.h"

namespace pkrt_test {

using namespace pkrt;

inline ConvLayer random_layer(std::mt19937& rng, int in, int out, float scale = 1.0f) {
    ConvLayer l;
    l.in = in;
    l.out = out;
    std::uniform_real_distribution<float> u(-scale, scale);
    for (int i = 0; i < in * out * 9; ++i) l.weights.push_back(u(rng));
    for (int i = 0; i < out; ++i) l.bias.push_back(u(rng));
    return l;
}

// Small random network, weights scaled by 1/sqrt(fan-in) so activations stay near 1 through 16 layers.
inline UnetWeights random_net(uint32_t seed, uint32_t inputs = kUnetColor | kUnetAlbedo | kUnetNormal,
                              const std::array<int, kUnetLayers>& widths = {4, 5, 6, 7, 8, 9, 10, 11, 8, 7, 6, 5, 6, 5,
                                                                            4, 3}) {
    UnetWeights w = unet_with_widths(inputs, widths);
    std::mt19937 rng(seed);
    for (ConvLayer& l : w.layers) l = random_layer(rng, l.in, l.out, 1.5f / std::sqrt(9.0f * l.in));
    w.transfer.scale = 0.5f;
    w.transfer.max_input = 1000.0f;
    return w;
}

struct UnetScene {
    Image color;
    FeatureImages features;
};
inline UnetScene random_scene(uint32_t seed, int width, int height) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    UnetScene s;
    for (Image* img : {&s.color, &s.features.albedo, &s.features.normal, &s.features.depth}) {
        img->width = width, img->height = height;
        img->pixels.resize(size_t(width) * height);
    }
    for (size_t i = 0; i < s.color.pixels.size(); ++i) {
        const float bright = u(rng) < 0.02f ? 200.0f : 3.0f;  // a few fireflies
        s.color.pixels[i] = {bright * u(rng), bright * u(rng), bright * u(rng)};
        // Past the ranges the network takes (albedo [0, 1], normal [-1, 1]), which clamp them.
        s.features.albedo.pixels[i] = {1.3f * u(rng), 1.3f * u(rng), 1.3f * u(rng)};
        s.features.normal.pixels[i] = {2.4f * u(rng) - 1.2f, 2.4f * u(rng) - 1.2f, 2.4f * u(rng) - 1.2f};
    }
    return s;
}

// dec_conv1a copies the input's colour (the first 3 of the input's channels, which come last in its
// concatenation) into its first 3 outputs, and dec_conv1b and dec_conv0 pass them on; every other weight
// is 0. So the output is the input colour.
inline UnetWeights identity_net(uint32_t inputs = kUnetColor | kUnetAlbedo | kUnetNormal) {
    UnetWeights w = unet_with_widths(inputs, unet_default_widths());
    auto centre = [](ConvLayer& l, int o, int i) { l.weights[(size_t(o) * l.in + i) * 9 + 4] = 1.0f; };
    ConvLayer& a = w.layers[13];
    for (int k = 0; k < 3; ++k) {
        centre(a, k, a.in - w.input_channels() + k);
        centre(w.layers[14], k, k);
        centre(w.layers[15], k, k);
    }
    w.transfer.scale = 0.2f;
    return w;
}

// A residual network whose every weight and bias is 0: its correction is 0, so the output is the input
// colour, through the curve and back in float32.
inline UnetWeights zero_residual_net(uint32_t inputs = kUnetColor | kUnetAlbedo | kUnetNormal) {
    UnetWeights w = unet_with_widths(inputs, unet_default_widths());
    w.transfer.scale = 0.2f;
    w.transfer.output = UnetOutput::kResidual;
    return w;
}

}  // namespace pkrt_test
