// The learned denoiser's network on the CPU (issue #51): a U-Net in the style of Intel Open Image Denoise
// (Áfra et al.), its layers and their order fixed here and in tools/denoiser/unet.py, its widths and
// weights read from a weight file (unet_weights.h).
//
// Input: colour (3 channels: radiance times the exposure, through the transfer curve), then albedo (3,
// clamped to [0, 1]) and normal (3, in [-1, 1]) where the file's input set has them. Five levels: full
// size down to 1/16, a 2x2 max pool after enc_conv1..4; every convolution 3x3, zero padded, ReLU after
// all but the last; nearest 2x upsampling; each decoder level's first convolution takes the upsampled
// tensor followed by the encoder's skip (concatenated channels). Output: 3 channels (added to the input
// colour's curve value where the file says residual) through the inverse curve, divided by the exposure.
// The image is zero padded to a multiple of 16 on its right and bottom.
#pragma once

#include <vector>

#include "render/denoise/unet_weights.h"
#include "render/image/image.h"

namespace pkrt {

// Channel-planar float tensor: data[(c * h + y) * w + x].
struct Tensor {
    int c = 0, h = 0, w = 0;
    std::vector<float> data;
    Tensor() = default;
    Tensor(int channels, int height, int width)
        : c(channels), h(height), w(width), data(size_t(channels) * height * width, 0.0f) {}
    float& at(int ch, int y, int x) { return data[(size_t(ch) * h + y) * w + x]; }
    float at(int ch, int y, int x) const { return data[(size_t(ch) * h + y) * w + x]; }
};

// A convolution's weights in the order its inner loop reads them: blocks of kConvBlock output channels,
// each [in * 9][kConvBlock] (zero past the last channel).
inline constexpr int kConvBlock = 6;
struct PackedConv {
    int in = 0, out = 0;
    std::vector<float> packed, bias;
};
PackedConv pack_conv(const ConvLayer& layer);

// The layers (unet_layers.cpp). conv3x3: zero padding of one pixel, `out` the same size as `in`.
Tensor conv3x3(const Tensor& in, const PackedConv& layer, bool relu, unsigned threads);
Tensor max_pool2(const Tensor& in);                             // even sizes
Tensor upsample2(const Tensor& in);                             // nearest
Tensor concat(const Tensor& a, const Tensor& b);                // a's channels, then b's
float transfer_forward(float radiance, const UnetTransfer& t);  // radiance already exposed
float transfer_inverse(float y, const UnetTransfer& t);
// The exposed radiance for the network's output `y` where the exposed input was `input` (t.output).
float transfer_output(float y, float input, const UnetTransfer& t);
// The exposure the transfer takes `color` with: the image's auto-exposure, or 1 where `t` says none.
float transfer_exposure(const UnetTransfer& t, const Image& color);

// How far into a tile its edge reaches: a tile's convolutions read zeros past its edge where the whole
// image has pixels, and that difference spreads one pixel a convolution at each level, halved by a pool
// (the edge on the pool grid) and doubled by an upsampling: 79 pixels in from either edge, so tiles that
// overlap by 80 give the untiled result bit for bit (test_unet checks, and that 64 does not).
inline constexpr int kUnetMargin = 80;
// 1024: a 1920x1080 image in two tiles, 8% more pixels than untiled, about 1 GB at the peak; 512 took 1.3x
// the time (1.6x the pixels) in 0.7 GB.
inline constexpr int kUnetDefaultTile = 1024;

class UnetNetwork {
public:
    explicit UnetNetwork(const UnetWeights& weights, const std::string& source = "U-Net weights");
    const UnetWeights& weights() const { return weights_; }
    // The network on `input` (input_channels() x h x w, h and w multiples of 16): 3 x h x w, before the
    // inverse curve.
    Tensor forward(const Tensor& input, unsigned threads) const;
    // The denoised image: tiles of `tile` x `tile` pixels with `margin` more around each (both rounded up
    // to a multiple of 16, the pool grid).
    Image denoise(const Image& color, const FeatureImages& features, unsigned threads, int tile = kUnetDefaultTile,
                  int margin = kUnetMargin) const;
    // The exposure the transfer takes `color` with (1 where the file says none).
    float exposure(const Image& color) const;
    // The network's input for pixels [x0, x0 + w) x [y0, y0 + h) of the image (zero outside it).
    Tensor input(const Image& color, const FeatureImages& features, float exposure, int x0, int y0, int w, int h) const;

private:
    UnetWeights weights_;
    std::vector<PackedConv> layers_;
};

}  // namespace pkrt
