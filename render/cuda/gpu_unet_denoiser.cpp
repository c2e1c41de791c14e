#include "render/cuda/gpu_unet_denoiser.h"

#include <algorithm>
#include <array>

#include "kernels/gpu/unet_launch.h"
#include "render/cuda/device_memory.h"
#include "render/denoise/half.h"
#include "render/denoise/unet.h"

namespace pkrt {

namespace {

using cuda::check;
using cuda::DeviceArray;

// What a layer reads: `a` (upsampled where up) and the skip `b`, as indices into the forward pass's
// tensors; -1: none. Tensor 0 is the network's input, tensor i + 1 layer i's output.
struct LayerInputs {
    int a, b;
    bool up;
};
constexpr std::array<LayerInputs, kUnetLayers> kInputs = {{{0, -1, false},
                                                           {1, -1, false},
                                                           {2, -1, false},
                                                           {3, -1, false},
                                                           {4, -1, false},
                                                           {5, -1, false},
                                                           {6, -1, false},
                                                           {7, 4, true},  // up(enc_conv5b), pooled enc_conv3
                                                           {8, -1, false},
                                                           {9, 3, true},  // pooled enc_conv2
                                                           {10, -1, false},
                                                           {11, 2, true},  // pooled enc_conv1
                                                           {12, -1, false},
                                                           {13, 0, true},  // the input
                                                           {14, -1, false},
                                                           {15, -1, false}}};
// The level (a power of two down from the full size) of each tensor.
constexpr std::array<int, kUnetLayers + 1> kLevel = {0, 0, 1, 2, 3, 4, 4, 4, 3, 3, 2, 2, 1, 1, 0, 0, 0};
bool pooled(int layer) { return layer >= 1 && layer <= 4; }

class CudaUnetDenoiser final : public Denoiser {
public:
    CudaUnetDenoiser(const GpuDevice& device, const UnetWeights& weights, int tile)
        : dev_(device), inputs_(weights.inputs), transfer_(weights.transfer),
          tile_(std::max(16, (tile + 15) / 16 * 16)) {
        validate_unet(weights, "U-Net weights");
        check(cudaSetDevice(dev_.index), "U-Net: device");
        check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "U-Net: stream");
        check(cudaEventCreate(&start_), "U-Net: event");
        check(cudaEventCreate(&end_), "U-Net: event");
        channels_[0] = weights.input_channels();
        for (int l = 0; l < kUnetLayers; ++l) channels_[l + 1] = weights.layers[l].out;
        pack_weights(weights);
    }
    ~CudaUnetDenoiser() override {
        cudaStreamDestroy(stream_);
        cudaEventDestroy(start_);
        cudaEventDestroy(end_);
    }

    std::string device() const override { return "GPU " + std::to_string(dev_.index) + " (" + dev_.name + "), U-Net"; }
    double last_device_ms() const override { return last_ms_; }

    Image denoise(const Image& color, const FeatureImages& features, const DenoiseParams&) override;

private:
    int padded(int tensor) const { return tensor == 0 ? 16 : unet_padded_channels(channels_[tensor]); }
    void pack_weights(const UnetWeights& weights);
    void reserve(int width, int height);
    void forward(int width, int height);

    GpuDevice dev_;
    uint32_t inputs_;        // of the weights: which features the network takes
    UnetTransfer transfer_;  // and the curve it takes them through
    int tile_;
    std::array<int, kUnetLayers + 1> channels_{};
    cudaStream_t stream_ = nullptr;
    cudaEvent_t start_ = nullptr, end_ = nullptr;
    double last_ms_ = 0.0;
    std::array<DeviceArray<__half>, kUnetLayers> weight_;
    std::array<DeviceArray<float>, kUnetLayers> bias_;
    DeviceArray<Vec3> color_, albedo_, normal_, out_;
    DeviceArray<__half> arena_;
    DeviceArray<float> net_;                    // the last layer's output, fp32
    std::array<size_t, kUnetLayers> offset_{};  // of tensors 0..15 in the arena (16: net_)
    int width_ = 0, height_ = 0;
};

// Per 16-channel chunk of the padded input, per tap, [16][padded out]: the order unet.cu stages them.
void CudaUnetDenoiser::pack_weights(const UnetWeights& weights) {
    for (int l = 0; l < kUnetLayers; ++l) {
        const ConvLayer& layer = weights.layers[l];
        const LayerInputs in = kInputs[l];
        const int a_real = channels_[in.a], a_pad = padded(in.a);
        const int b_real = in.b < 0 ? 0 : channels_[in.b], b_pad = in.b < 0 ? 0 : padded(in.b);
        const int out_pad = unet_padded_channels(layer.out), k_pad = a_pad + b_pad;
        std::vector<__half> packed(size_t(k_pad) * 9 * out_pad, __half(0.0f));
        for (int p = 0; p < k_pad; ++p) {
            const int real = p < a_pad ? (p < a_real ? p : -1) : (p - a_pad < b_real ? a_real + p - a_pad : -1);
            if (real < 0) continue;
            for (int tap = 0; tap < 9; ++tap)
                for (int o = 0; o < layer.out; ++o)
                    packed[((size_t(p / 16) * 9 + tap) * 16 + p % 16) * out_pad + o] =
                        __half(layer.weight(o, real, tap / 3, tap % 3));
        }
        std::vector<float> bias(size_t(out_pad), 0.0f);
        std::copy(layer.bias.begin(), layer.bias.end(), bias.begin());
        weight_[l].upload(packed);
        bias_[l].upload(bias);
    }
}

void CudaUnetDenoiser::reserve(int width, int height) {
    if (width <= width_ && height <= height_) return;
    width_ = std::max(width, width_);
    height_ = std::max(height, height_);
    size_t at = 0;
    for (int t = 0; t < kUnetLayers; ++t) {  // tensors 0..15; the pooled layers' outputs are their levels'
        offset_[t] = at;
        const size_t pixels = (size_t(width_) >> kLevel[t]) * (size_t(height_) >> kLevel[t]);
        at += pixels * padded(t);
    }
    arena_.allocate(at);
    net_.allocate(size_t(width_) * height_ * 16);
}

void CudaUnetDenoiser::forward(int width, int height) {
    for (int l = 0; l < kUnetLayers; ++l) {
        const LayerInputs in = kInputs[l];
        UnetConv c;
        c.a = arena_.get() + offset_[in.a];
        c.a_channels = padded(in.a);
        c.a_up = in.up;
        if (in.b >= 0) {
            c.b = arena_.get() + offset_[in.b];
            c.b_channels = padded(in.b);
        }
        const int level = kLevel[in.a] - (in.up ? 1 : 0);  // the layer works at its input's size
        c.width = width >> level;
        c.height = height >> level;
        c.weights = weight_[l].get();
        c.bias = bias_[l].get();
        c.out_channels = padded(l + 1);
        c.relu = l != kUnetLayers - 1;
        c.pool = pooled(l);
        if (l == kUnetLayers - 1) c.out_float = net_.get();
        else c.out = arena_.get() + offset_[l + 1];
        check(launch_unet_conv(c, stream_), "U-Net: convolution");
    }
}

Image CudaUnetDenoiser::denoise(const Image& color, const FeatureImages& features, const DenoiseParams&) {
    check_denoise_inputs(color, features);
    cuda::quit_resident_kernels();  // a resident grid holding the device would keep these kernels waiting
    check(cudaSetDevice(dev_.index), "U-Net: device");
    const int margin = (kUnetMargin + 15) / 16 * 16;
    const int width = (color.width + 15) / 16 * 16, height = (color.height + 15) / 16 * 16;
    reserve(std::min(width, tile_ + 2 * margin), std::min(height, tile_ + 2 * margin));
    const bool albedo = inputs_ & kUnetAlbedo, normal = inputs_ & kUnetNormal;
    color_.upload(color.pixels);
    if (albedo) albedo_.upload(features.albedo.pixels);
    if (normal) normal_.upload(features.normal.pixels);
    out_.allocate(color.pixels.size());
    UnetCurveParams curve;
    curve.exposure = transfer_exposure(transfer_, color);
    curve.scale = transfer_.scale;
    curve.max_input = transfer_.max_input;
    curve.residual = transfer_.output == UnetOutput::kResidual;
    check(cudaEventRecord(start_, stream_), "U-Net");
    for (int ty = 0; ty < color.height; ty += tile_)
        for (int tx = 0; tx < color.width; tx += tile_) {
            // The tile with its margin, within the padded image; its corner on the pool grid (unet.cpp).
            const int x0 = std::max(0, tx - margin), y0 = std::max(0, ty - margin);
            const int x1 = std::min(width, tx + tile_ + margin), y1 = std::min(height, ty + tile_ + margin);
            UnetInputArgs ia;
            ia.color = color_.get();
            ia.albedo = albedo ? albedo_.get() : nullptr;
            ia.normal = normal ? normal_.get() : nullptr;
            ia.image_width = color.width;
            ia.image_height = color.height;
            ia.x0 = x0;
            ia.y0 = y0;
            ia.width = x1 - x0;
            ia.height = y1 - y0;
            ia.curve = curve;
            ia.out = arena_.get() + offset_[0];
            check(launch_unet_input(ia, stream_), "U-Net: input");
            forward(x1 - x0, y1 - y0);
            UnetOutputArgs oa;
            oa.net = net_.get();
            oa.color = color_.get();
            oa.width = x1 - x0;
            oa.x0 = x0;
            oa.y0 = y0;
            oa.tx0 = tx;
            oa.ty0 = ty;
            oa.tx1 = std::min(tx + tile_, color.width);
            oa.ty1 = std::min(ty + tile_, color.height);
            oa.image_width = color.width;
            oa.curve = curve;
            oa.out = out_.get();
            check(launch_unet_output(oa, stream_), "U-Net: output");
        }
    check(cudaEventRecord(end_, stream_), "U-Net");
    Image out;
    out.width = color.width;
    out.height = color.height;
    out.pixels.resize(color.pixels.size());
    check(cudaMemcpyAsync(out.pixels.data(), out_.get(), out.pixels.size() * sizeof(Vec3), cudaMemcpyDeviceToHost,
                          stream_),
          "U-Net: read back");
    check(cudaStreamSynchronize(stream_), "U-Net");
    float ms = 0.0f;
    check(cudaEventElapsedTime(&ms, start_, end_), "U-Net");
    last_ms_ = ms;
    return out;
}

}  // namespace

std::unique_ptr<Denoiser> make_cuda_unet_denoiser(const GpuDevice& device, const UnetWeights& weights, int tile) {
    return std::make_unique<CudaUnetDenoiser>(device, weights, tile);
}

}  // namespace pkrt
