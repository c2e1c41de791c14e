// The U-Net's forward pass and the tiled inference over an image (unet.h).
#include "render/denoise/unet.h"

#include <algorithm>
#include <cmath>

#include "render/image/look.h"

namespace pkrt {

UnetNetwork::UnetNetwork(const UnetWeights& weights, const std::string& source) : weights_(weights) {
    validate_unet(weights_, source);
    for (const ConvLayer& l : weights_.layers) layers_.push_back(pack_conv(l));
}

Tensor UnetNetwork::forward(const Tensor& input, unsigned threads) const {
    const auto conv = [&](const Tensor& x, int layer) {
        return conv3x3(x, layers_[layer], layer != kUnetLayers - 1, threads);
    };
    // One statement a step, so that each tensor is freed once read: a 1024-pixel tile's peak stays near
    // the full-size level's input, its concatenation and the convolution's output.
    const Tensor p1 = max_pool2(conv(conv(input, 0), 1));
    const Tensor p2 = max_pool2(conv(p1, 2));
    const Tensor p3 = max_pool2(conv(p2, 3));
    Tensor x = max_pool2(conv(p3, 4));
    x = conv(conv(x, 5), 6);
    int layer = 7;
    for (const Tensor* skip : {&p3, &p2, &p1, &input}) {
        Tensor joined = concat(upsample2(x), *skip);
        x = Tensor();
        x = conv(joined, layer);
        joined = Tensor();
        x = conv(x, layer + 1);
        layer += 2;
    }
    return conv(x, 15);
}

float transfer_exposure(const UnetTransfer& t, const Image& color) {
    return t.exposure == UnetExposure::kAuto ? std::exp2(auto_exposure_stops(color)) : 1.0f;
}

float UnetNetwork::exposure(const Image& color) const { return transfer_exposure(weights_.transfer, color); }

Tensor UnetNetwork::input(const Image& color, const FeatureImages& f, float exposure, int x0, int y0, int w,
                          int h) const {
    Tensor t(weights_.input_channels(), h, w);
    const bool albedo = weights_.inputs & kUnetAlbedo, normal = weights_.inputs & kUnetNormal;
    const auto clamp = [](float v, float lo, float hi) {
        return std::isfinite(v) ? std::min(std::max(v, lo), hi) : 0.0f;
    };
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const int ix = x0 + x, iy = y0 + y;
            if (ix >= color.width || iy >= color.height) continue;
            const Vec3 c = color.at(ix, iy);
            const float rgb[3] = {c.x, c.y, c.z};
            int ch = 0;
            for (float v : rgb) t.at(ch++, y, x) = transfer_forward(v * exposure, weights_.transfer);
            if (albedo) {
                const Vec3 a = f.albedo.at(ix, iy);
                for (float v : {a.x, a.y, a.z}) t.at(ch++, y, x) = clamp(v, 0.0f, 1.0f);
            }
            if (normal) {
                const Vec3 n = f.normal.at(ix, iy);
                for (float v : {n.x, n.y, n.z}) t.at(ch++, y, x) = clamp(v, -1.0f, 1.0f);
            }
        }
    return t;
}

Image UnetNetwork::denoise(const Image& color, const FeatureImages& features, unsigned threads, int tile,
                           int margin) const {
    const auto round16 = [](int v) { return (v + 15) / 16 * 16; };
    tile = std::max(16, round16(tile));
    margin = std::max(0, round16(margin));
    const int width = round16(color.width), height = round16(color.height);
    const float exposure = this->exposure(color);
    Image out;
    out.width = color.width;
    out.height = color.height;
    out.pixels.resize(color.pixels.size());
    for (int ty = 0; ty < color.height; ty += tile)
        for (int tx = 0; tx < color.width; tx += tile) {
            // The tile with its margin, within the padded image; its corner on the pool grid.
            const int x0 = std::max(0, tx - margin), y0 = std::max(0, ty - margin);
            const int x1 = std::min(width, tx + tile + margin), y1 = std::min(height, ty + tile + margin);
            const Tensor y = forward(input(color, features, exposure, x0, y0, x1 - x0, y1 - y0), threads);
            for (int py = ty; py < std::min(ty + tile, color.height); ++py)
                for (int px = tx; px < std::min(tx + tile, color.width); ++px) {
                    const Vec3 in = color.at(px, py);
                    float rgb[3];
                    for (int ch = 0; ch < 3; ++ch)
                        rgb[ch] = transfer_output(y.at(ch, py - y0, px - x0), in[ch] * exposure, weights_.transfer) /
                                  exposure;
                    out.at(px, py) = Vec3{rgb[0], rgb[1], rgb[2]};
                }
        }
    return out;
}

}  // namespace pkrt
