// The U-Net's layers on the CPU. A 3x3 convolution is a matrix product per strip of kStrip pixels of a
// row: the strip's 3x3 neighbourhoods of every input channel copied into a [in * 9][kStrip] patch
// (im2col), then kConvBlock output channels at a time accumulated over it, the accumulators in registers.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "render/cpu/parallel.h"
#include "render/denoise/unet.h"
#include "kernels/unet_curve.h"

namespace pkrt {

namespace {

constexpr int kStrip = 16;

// The strip's neighbourhoods: patch[(c * 9 + ky * 3 + kx) * kStrip + i] = in(c, y + ky - 1, x0 + i + kx - 1),
// zero outside the tensor and past the strip's n pixels. A strip away from the left and right edges is
// three copies of a row a channel and row (the general loop's tests took as long as the product itself).
void gather_patch(const Tensor& in, int y, int x0, int n, float* patch) {
    const bool interior = x0 >= 1 && x0 + kStrip + 1 <= in.w;
    for (int c = 0; c < in.c; ++c)
        for (int ky = 0; ky < 3; ++ky) {
            const int sy = y + ky - 1;
            float* dst = patch + (size_t(c) * 9 + ky * 3) * kStrip;
            if (sy < 0 || sy >= in.h) {
                std::memset(dst, 0, 3 * kStrip * sizeof(float));
                continue;
            }
            const float* row = &in.data[(size_t(c) * in.h + sy) * in.w];
            for (int kx = 0; kx < 3; ++kx, dst += kStrip) {
                if (interior) {
                    std::memcpy(dst, row + x0 + kx - 1, kStrip * sizeof(float));
                    continue;
                }
                for (int i = 0; i < kStrip; ++i) {
                    const int sx = x0 + i + kx - 1;
                    dst[i] = i < n && sx >= 0 && sx < in.w ? row[sx] : 0.0f;
                }
            }
        }
}

// out[j][i] = sum over k of w[k][j] * patch[k][i], summed in k's order for every pixel wherever it lies
// (so tiles agree with the whole image bit for bit). The kConvBlock x kStrip sums stay in registers: 12
// vectors of 8 floats with AVX2, the classic 6x16 block. Built twice on x86-64 GCC, for AVX2 + FMA and for
// the baseline (SSE2), and chosen at load time.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
__attribute__((target_clones("arch=x86-64-v3", "default")))
#endif
void accumulate(const float* __restrict w, const float* __restrict patch, int k_count, float* __restrict out) {
    // GCC's vector extension: 8 floats, one AVX register (two SSE ones in the baseline build).
    typedef float v8 __attribute__((vector_size(32)));
    static_assert(kStrip == 16);
    v8 acc[kConvBlock][2] = {};
    for (int k = 0; k < k_count; ++k) {
        v8 p0, p1;
        std::memcpy(&p0, patch + size_t(k) * kStrip, sizeof p0);
        std::memcpy(&p1, patch + size_t(k) * kStrip + 8, sizeof p1);
        const float* wk = w + size_t(k) * kConvBlock;
        for (int j = 0; j < kConvBlock; ++j) {
            acc[j][0] += wk[j] * p0;
            acc[j][1] += wk[j] * p1;
        }
    }
    std::memcpy(out, acc, sizeof acc);
}

}  // namespace

PackedConv pack_conv(const ConvLayer& layer) {
    PackedConv p;
    p.in = layer.in;
    p.out = layer.out;
    p.bias = layer.bias;
    const int k_count = layer.in * 9, blocks = (layer.out + kConvBlock - 1) / kConvBlock;
    p.packed.assign(size_t(blocks) * k_count * kConvBlock, 0.0f);
    for (int o = 0; o < layer.out; ++o)
        for (int k = 0; k < k_count; ++k)
            p.packed[(size_t(o / kConvBlock) * k_count + k) * kConvBlock + o % kConvBlock] =
                layer.weights[size_t(o) * k_count + k];
    return p;
}

Tensor conv3x3(const Tensor& in, const PackedConv& layer, bool relu, unsigned threads) {
    Tensor out(layer.out, in.h, in.w);
    const int strips = (in.w + kStrip - 1) / kStrip, k_count = layer.in * 9;
    const int blocks = (layer.out + kConvBlock - 1) / kConvBlock;
    threads = std::max(1u, threads);
    std::vector<std::vector<float>> patches(threads, std::vector<float>(size_t(k_count) * kStrip));
    parallel_chunks(
        size_t(in.h) * strips, 4,
        [&](unsigned worker, size_t begin, size_t end) {
            float* patch = patches[worker].data();
            for (size_t item = begin; item < end; ++item) {
                const int y = int(item / strips), x0 = int(item % strips) * kStrip;
                const int n = std::min(kStrip, in.w - x0);
                gather_patch(in, y, x0, n, patch);
                for (int b = 0; b < blocks; ++b) {
                    float acc[kConvBlock][kStrip];
                    accumulate(&layer.packed[size_t(b) * k_count * kConvBlock], patch, k_count, &acc[0][0]);
                    for (int j = 0; j < kConvBlock && b * kConvBlock + j < layer.out; ++j) {
                        const int o = b * kConvBlock + j;
                        float* dst = &out.data[(size_t(o) * out.h + y) * out.w + x0];
                        for (int i = 0; i < n; ++i) {
                            const float v = acc[j][i] + layer.bias[o];
                            dst[i] = relu ? std::max(v, 0.0f) : v;
                        }
                    }
                }
            }
        },
        threads);
    return out;
}

Tensor max_pool2(const Tensor& in) {
    Tensor out(in.c, in.h / 2, in.w / 2);
    for (int c = 0; c < out.c; ++c)
        for (int y = 0; y < out.h; ++y)
            for (int x = 0; x < out.w; ++x)
                out.at(c, y, x) = std::max(std::max(in.at(c, 2 * y, 2 * x), in.at(c, 2 * y, 2 * x + 1)),
                                           std::max(in.at(c, 2 * y + 1, 2 * x), in.at(c, 2 * y + 1, 2 * x + 1)));
    return out;
}

Tensor upsample2(const Tensor& in) {
    Tensor out(in.c, in.h * 2, in.w * 2);
    for (int c = 0; c < out.c; ++c)
        for (int y = 0; y < out.h; ++y)
            for (int x = 0; x < out.w; ++x) out.at(c, y, x) = in.at(c, y / 2, x / 2);
    return out;
}

Tensor concat(const Tensor& a, const Tensor& b) {
    Tensor out(a.c + b.c, a.h, a.w);
    std::copy(a.data.begin(), a.data.end(), out.data.begin());
    std::copy(b.data.begin(), b.data.end(), out.data.begin() + ptrdiff_t(a.data.size()));
    return out;
}

float transfer_forward(float radiance, const UnetTransfer& t) {
    return unet_curve_forward(radiance, t.scale, t.max_input);
}

float transfer_inverse(float y, const UnetTransfer& t) { return unet_curve_inverse(y, t.scale, t.max_input); }
float transfer_output(float y, float input, const UnetTransfer& t) {
    return unet_curve_output(y, input, t.output == UnetOutput::kResidual, t.scale, t.max_input);
}

}  // namespace pkrt
