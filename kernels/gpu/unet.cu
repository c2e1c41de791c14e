// The U-Net's layers on tensor cores (unet_launch.h). A block computes 8 rows of 16 pixels for up to
// 8 x 16 output channels: per 16-channel chunk of its input it stages the rows with their one-pixel halo
// and the chunk's weights in shared memory, then each of its 4 warps multiplies two rows' 16 x 16
// neighbourhood tiles by the 9 taps' weight tiles (WMMA, fp16 in, fp32 sums). The upsampling and
// concatenation of a decoder layer's input happen as the chunk is staged (a chunk of the upsampled tensor
// reads the pixel below), and a pooled layer's 2x2 max is taken from the sums before anything is stored:
// neither tensor is ever written.
#include <mma.h>

#include "kernels/gpu/unet_launch.h"
#include "kernels/unet_curve.h"

namespace pkrt {

namespace {

using namespace nvcuda;

constexpr int kTileW = 16, kTileH = 8, kWarps = 4, kThreads = kWarps * 32;
constexpr int kHaloW = kTileW + 2, kHaloH = kTileH + 2;
// Halves between staged pixels: their 16 channels. A WMMA tile must start on 32 bytes, and a tile
// begins at any pixel of the halo (kx 0..2), so no padding can spread its rows over more banks: ldmatrix
// reads them 2-way conflicted.
constexpr int kPixelStride = 16;
constexpr int kMaxGroupFrags = 8;  // output-channel tiles per block (grid.z covers wider layers)

// Halves between a weight tile's rows: 8 of padding (rows 16 bytes off 32), so that ldmatrix's 8 rows fall
// on distinct banks.
__host__ __device__ constexpr int weight_stride(int frags) { return frags * 16 + 8; }
__host__ __device__ constexpr int staging_stride(int frags) { return frags * 16 + 4; }  // floats

template <int kFrags> constexpr size_t conv_shared_bytes() {
    const size_t inputs = size_t(kHaloH) * kHaloW * kPixelStride * sizeof(__half) +
                          size_t(9) * 16 * weight_stride(kFrags) * sizeof(__half);
    const size_t staging = size_t(kWarps) * 2 * 16 * staging_stride(kFrags) * sizeof(float);
    return inputs > staging ? inputs : staging;
}

// The 16 channels of chunk `chunk` at pixel (x, y) of the layer's input: zeros outside it.
__device__ void stage_pixel(const UnetConv& c, int chunk, int x, int y, uint4 v[2]) {
    v[0] = v[1] = make_uint4(0, 0, 0, 0);
    if (x < 0 || y < 0 || x >= c.width || y >= c.height) return;
    int channel = chunk * 16;
    const __half* src;
    if (channel < c.a_channels) {
        const int w = c.a_up ? c.width / 2 : c.width;
        const int sx = c.a_up ? x / 2 : x, sy = c.a_up ? y / 2 : y;
        src = c.a + (size_t(sy) * w + sx) * c.a_channels + channel;
    } else {
        channel -= c.a_channels;
        src = c.b + (size_t(y) * c.width + x) * c.b_channels + channel;
    }
    const uint4* s = reinterpret_cast<const uint4*>(src);
    v[0] = __ldg(s);
    v[1] = __ldg(s + 1);
}

template <int kFrags> __global__ void __launch_bounds__(kThreads) unet_conv_kernel(UnetConv c) {
    extern __shared__ __align__(128) unsigned char shared[];
    __half* s_in = reinterpret_cast<__half*>(shared);
    __half* s_w = s_in + kHaloH * kHaloW * kPixelStride;
    float* s_out = reinterpret_cast<float*>(shared);  // the sums, once the last chunk is multiplied
    constexpr int ldw = weight_stride(kFrags), lds = staging_stride(kFrags);

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int x0 = blockIdx.x * kTileW, y0 = blockIdx.y * kTileH;
    const int n0 = blockIdx.z * kMaxGroupFrags * 16;  // first output channel of this block
    const int frags = min(kFrags, (c.out_channels - n0) / 16);
    const int chunks = (c.a_channels + c.b_channels) / 16;

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][kFrags];
#pragma unroll
    for (int r = 0; r < 2; ++r)
#pragma unroll
        for (int n = 0; n < kFrags; ++n) wmma::fill_fragment(acc[r][n], 0.0f);

    for (int chunk = 0; chunk < chunks; ++chunk) {
        for (int p = threadIdx.x; p < kHaloH * kHaloW; p += kThreads) {
            uint4 v[2];
            stage_pixel(c, chunk, x0 + p % kHaloW - 1, y0 + p / kHaloW - 1, v);
            uint4* d = reinterpret_cast<uint4*>(s_in + p * kPixelStride);
            d[0] = v[0];
            d[1] = v[1];
        }
        // The chunk's weights for this block's channels: 9 taps x 16 rows of frags * 16 halves.
        const __half* wsrc = c.weights + size_t(chunk) * 9 * 16 * c.out_channels + n0;
        const int row_vectors = kFrags * 2;  // uint4 (8 halves) a row
        for (int i = threadIdx.x; i < 9 * 16 * row_vectors; i += kThreads) {
            const int row = i / row_vectors, col = i % row_vectors;
            uint4 v = make_uint4(0, 0, 0, 0);
            if (col < frags * 2) v = __ldg(reinterpret_cast<const uint4*>(wsrc + size_t(row) * c.out_channels) + col);
            *reinterpret_cast<uint4*>(s_w + row * ldw + col * 8) = v;
        }
        __syncthreads();
#pragma unroll 1
        for (int tap = 0; tap < 9; ++tap) {
            const int ky = tap / 3, kx = tap % 3;
            wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a[2];
#pragma unroll
            for (int r = 0; r < 2; ++r)
                wmma::load_matrix_sync(a[r], s_in + ((2 * warp + r + ky) * kHaloW + kx) * kPixelStride, kPixelStride);
#pragma unroll
            for (int n = 0; n < kFrags; ++n) {
                wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
                wmma::load_matrix_sync(b, s_w + tap * 16 * ldw + n * 16, ldw);
#pragma unroll
                for (int r = 0; r < 2; ++r) wmma::mma_sync(acc[r][n], a[r], b, acc[r][n]);
            }
        }
        __syncthreads();
    }

    // Each warp's two rows of sums, [row][pixel][channel], then bias, ReLU and the store (or the pool).
    float* mine = s_out + warp * 2 * 16 * lds;
#pragma unroll
    for (int r = 0; r < 2; ++r)
#pragma unroll
        for (int n = 0; n < kFrags; ++n)
            wmma::store_matrix_sync(mine + r * 16 * lds + n * 16, acc[r][n], lds, wmma::mem_row_major);
    __syncwarp();
    const int width = frags * 16;
    auto value = [&](int r, int i, int ch) {
        const float v = mine[(r * 16 + i) * lds + ch] + c.bias[n0 + ch];
        return c.relu ? fmaxf(v, 0.0f) : v;
    };
    // The coarsest levels are narrower than a tile: pixels past the edge are not stored. (A pooled layer's
    // size is even, so its 2x2 windows lie wholly inside or outside.)
    if (c.pool) {
        const int py = (y0 + 2 * warp) / 2, pw = c.width / 2;
        if (2 * py >= c.height) return;
        for (int k = lane; k < 8 * width / 2; k += 32) {
            const int i = k / (width / 2), ch = 2 * (k % (width / 2));
            if (x0 + 2 * i >= c.width) continue;
            float m[2];
            for (int q = 0; q < 2; ++q)
                m[q] = fmaxf(fmaxf(value(0, 2 * i, ch + q), value(0, 2 * i + 1, ch + q)),
                             fmaxf(value(1, 2 * i, ch + q), value(1, 2 * i + 1, ch + q)));
            const size_t at = (size_t(py) * pw + x0 / 2 + i) * c.out_channels + n0 + ch;
            *reinterpret_cast<__half2*>(c.out + at) = __floats2half2_rn(m[0], m[1]);
        }
        return;
    }
    for (int r = 0; r < 2; ++r) {
        const int y = y0 + 2 * warp + r;
        if (y >= c.height) break;
        for (int k = lane; k < 16 * width / 2; k += 32) {
            const int i = k / (width / 2), ch = 2 * (k % (width / 2));
            if (x0 + i >= c.width) continue;
            const size_t at = (size_t(y) * c.width + x0 + i) * c.out_channels + n0 + ch;
            if (c.out_float) {
                c.out_float[at] = value(r, i, ch);
                c.out_float[at + 1] = value(r, i, ch + 1);
            } else {
                *reinterpret_cast<__half2*>(c.out + at) = __floats2half2_rn(value(r, i, ch), value(r, i, ch + 1));
            }
        }
    }
}

template <int kFrags> cudaError_t launch_conv(const UnetConv& c, cudaStream_t stream) {
    constexpr size_t bytes = conv_shared_bytes<kFrags>();
    // Set at every launch: the setting is the current device's, and it costs less than the launch.
    cudaError_t e =
        cudaFuncSetAttribute(unet_conv_kernel<kFrags>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes));
    if (e != cudaSuccess) return e;
    const int groups = (c.out_channels / 16 + kMaxGroupFrags - 1) / kMaxGroupFrags;
    dim3 grid((c.width + kTileW - 1) / kTileW, (c.height + kTileH - 1) / kTileH, groups);
    unet_conv_kernel<kFrags><<<grid, kThreads, bytes, stream>>>(c);
    return cudaGetLastError();
}

__device__ float clamp_finite(float v, float lo, float hi) { return isfinite(v) ? fminf(fmaxf(v, lo), hi) : 0.0f; }

__global__ void unet_input_kernel(UnetInputArgs a) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= a.width || y >= a.height) return;
    __align__(16) __half v[16];
#pragma unroll
    for (int k = 0; k < 16; ++k) v[k] = __float2half(0.0f);
    const int ix = a.x0 + x, iy = a.y0 + y;
    if (ix < a.image_width && iy < a.image_height) {
        const size_t i = size_t(iy) * a.image_width + ix;
        const Vec3 col = a.color[i];
        int ch = 0;
        for (float c : {col.x, col.y, col.z})
            v[ch++] = __float2half(unet_curve_forward(c * a.curve.exposure, a.curve.scale, a.curve.max_input));
        if (a.albedo) {
            const Vec3 al = a.albedo[i];
            for (float c : {al.x, al.y, al.z}) v[ch++] = __float2half(clamp_finite(c, 0.0f, 1.0f));
        }
        if (a.normal) {
            const Vec3 n = a.normal[i];
            for (float c : {n.x, n.y, n.z}) v[ch++] = __float2half(clamp_finite(c, -1.0f, 1.0f));
        }
    }
    uint4* d = reinterpret_cast<uint4*>(a.out + (size_t(y) * a.width + x) * 16);
    d[0] = reinterpret_cast<const uint4*>(v)[0];
    d[1] = reinterpret_cast<const uint4*>(v)[1];
}

__global__ void unet_output_kernel(UnetOutputArgs a) {
    const int px = a.tx0 + blockIdx.x * blockDim.x + threadIdx.x, py = a.ty0 + blockIdx.y * blockDim.y + threadIdx.y;
    if (px >= a.tx1 || py >= a.ty1) return;
    const float* n = a.net + (size_t(py - a.y0) * a.width + (px - a.x0)) * 16;
    const size_t i = size_t(py) * a.image_width + px;
    const Vec3 in = a.color[i];
    float rgb[3];
    for (int c = 0; c < 3; ++c)
        rgb[c] = unet_curve_output(n[c], in[c] * a.curve.exposure, a.curve.residual, a.curve.scale, a.curve.max_input) /
                 a.curve.exposure;
    a.out[i] = Vec3{rgb[0], rgb[1], rgb[2]};
}

}  // namespace

cudaError_t launch_unet_conv(const UnetConv& c, cudaStream_t stream) {
    switch (c.out_channels / 16 >= kMaxGroupFrags ? kMaxGroupFrags : c.out_channels / 16) {
        case 1: return launch_conv<1>(c, stream);
        case 2: return launch_conv<2>(c, stream);
        case 3: return launch_conv<3>(c, stream);
        case 4: return launch_conv<4>(c, stream);
        case 5: return launch_conv<5>(c, stream);
        case 6: return launch_conv<6>(c, stream);
        case 7: return launch_conv<7>(c, stream);
        case 8: return launch_conv<8>(c, stream);
        default: return cudaErrorInvalidValue;
    }
}

cudaError_t launch_unet_input(const UnetInputArgs& a, cudaStream_t stream) {
    dim3 block(32, 8), grid((a.width + 31) / 32, (a.height + 7) / 8);
    unet_input_kernel<<<grid, block, 0, stream>>>(a);
    return cudaGetLastError();
}

cudaError_t launch_unet_output(const UnetOutputArgs& a, cudaStream_t stream) {
    if (a.tx1 <= a.tx0 || a.ty1 <= a.ty0) return cudaSuccess;
    dim3 block(32, 8), grid((a.tx1 - a.tx0 + 31) / 32, (a.ty1 - a.ty0 + 7) / 8);
    unet_output_kernel<<<grid, block, 0, stream>>>(a);
    return cudaGetLastError();
}

}  // namespace pkrt
