// The learned denoiser's weight file (issue #51): one little-endian binary file, written by the PyTorch
// exporter (tools/denoiser/unet.py) and read here with strict validation. The architecture itself is fixed
// (render/denoise/unet.h); the file names its input transform and the width of each of its 16
// convolutions, which must fit that architecture.
//
//   offset  size  field
//   0       8     magic "PKRTUNET"
//   8       4     version, 2 (a version 1 file has no output field, and its output is 0)
//   12      4     input channels: bit 0 colour (required), bit 1 albedo, bit 2 normal (in that order)
//   16      4     exposure: 0 none, 1 the image's auto-exposure (render/image/look.h) before the curve
//   20      4     transfer curve: 1 log, y = scale * ln(1 + min(x, max_input)) of the colour x >= 0
//   24      4     float32 scale (> 0)
//   28      4     float32 max_input (> 0)
//   32      4     output: 0 the curve's value of the denoised colour; 1 residual, the curve's value of the
//                 denoised colour less the input colour's (a converged image needs a zero output)
//   36      4     layer count, 16
//   40      16n   per layer: in channels, out channels, kernel height, kernel width (3, 3)
//   ...           per layer in the same order: weights fp16 [out][in][3][3] (PyTorch's OIHW), bias fp16 [out]
//
// Nothing may follow the last bias. The layers, in order, are kUnetLayerNames.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace pkrt {

inline constexpr char kUnetMagic[8] = {'P', 'K', 'R', 'T', 'U', 'N', 'E', 'T'};
inline constexpr uint32_t kUnetVersion = 2;  // the version written; 1 is read too
inline constexpr int kUnetLayers = 16;
inline constexpr uint32_t kUnetMaxChannels = 512;                 // any one layer's width
inline constexpr uint64_t kUnetMaxParameters = 4u * 1024 * 1024;  // 8 MiB of fp16

// The layers in file order: encoder convolutions (a 2x2 max pool after enc_conv1..4), the bottleneck, then
// the decoder's (a nearest 2x upsample before each "a" layer, whose input is the upsampled tensor followed
// by the skip: enc_conv3's pooled output, enc_conv2's, enc_conv1's, the network's input). ReLU after every
// layer but dec_conv0.
inline constexpr std::array<const char*, kUnetLayers> kUnetLayerNames = {
    "enc_conv0",  "enc_conv1",  "enc_conv2",  "enc_conv3",  "enc_conv4",  "enc_conv5a", "enc_conv5b", "dec_conv4a",
    "dec_conv4b", "dec_conv3a", "dec_conv3b", "dec_conv2a", "dec_conv2b", "dec_conv1a", "dec_conv1b", "dec_conv0"};

enum UnetInput : uint32_t { kUnetColor = 1, kUnetAlbedo = 2, kUnetNormal = 4 };
enum class UnetExposure : uint32_t { kNone = 0, kAuto = 1 };
enum class UnetCurve : uint32_t { kLog = 1 };
enum class UnetOutput : uint32_t { kCurve = 0, kResidual = 1 };

struct UnetTransfer {
    UnetExposure exposure = UnetExposure::kAuto;
    UnetCurve curve = UnetCurve::kLog;
    float scale = 1.0f;
    float max_input = 65504.0f;  // the largest half: what the training data's EXRs can hold
    UnetOutput output = UnetOutput::kCurve;
};

struct ConvLayer {
    int in = 0, out = 0;
    std::vector<float> weights;  // [out][in][3][3]
    std::vector<float> bias;     // [out]
    float weight(int o, int i, int ky, int kx) const { return weights[((size_t(o) * in + i) * 3 + ky) * 3 + kx]; }
};

struct UnetWeights {
    uint32_t inputs = kUnetColor | kUnetAlbedo | kUnetNormal;
    UnetTransfer transfer;
    std::vector<ConvLayer> layers;  // kUnetLayers of them, in kUnetLayerNames' order
    int input_channels() const;
    size_t parameter_count() const;
};

// The width layer `index` must take, given the earlier layers' outputs (the concatenations above); -1
// where `inputs` is no valid channel set.
int unet_expected_in(const UnetWeights& w, int index);
// An Error naming `source` and the first problem unless `w` fits the architecture and the limits above:
// layer count, widths, weights and biases of their sizes, all finite; the transfer's parameters.
void validate_unet(const UnetWeights& w, const std::string& source);

// The file's bytes (weights rounded to fp16) and back; decode throws Error naming `source`.
std::string encode_unet_weights(const UnetWeights& w);
UnetWeights decode_unet_weights(const std::string& bytes, const std::string& source);
UnetWeights read_unet_weights(const std::string& path);
void write_unet_weights(const std::string& path, const UnetWeights& w);

// The widths used by the shipped network (OIDN's, in Intel's published U-Net): 918,720 weights.
UnetWeights unet_with_widths(uint32_t inputs, const std::array<int, kUnetLayers>& out_widths);
std::array<int, kUnetLayers> unet_default_widths();

}  // namespace pkrt
