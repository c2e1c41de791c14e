// The CUDA backend's framebuffer (sums of radiance and sample counts per pixel, kernels/gpu/gpu_records.h)
// and its read-back. An adaptive render's has two halves: even-numbered samples at pixel p, odd ones at
// p + pixels (kernels/adaptive.h). Reads are synchronous on the stream given, which the caller has made
// wait for the frames that write the pixels.
#pragma once

#include "render/cuda/device_memory.h"
#include "render/image/image.h"
#include "kernels/gpu/gpu_records.h"

namespace pkrt::cuda {

class GpuFramebuffer {
public:
    // One image of n pixels, not cleared; with pinned copies for read(), up to kPinnedReadPixels
    // (pinning gigabytes may fail where pageable memory would not). features: with feature sums
    // (kernels/features.h), one set per image pixel.
    void resize(size_t n, bool features);
    // An adaptive render's two halves of n pixels each, cleared.
    void split(size_t n, cudaStream_t stream);
    // The first n pixels cleared (and the features).
    void clear(size_t n, cudaStream_t stream);
    DeviceFramebuffer view() const {
        return DeviceFramebuffer{radiance_.get(), samples_.get(), features_.get(), static_cast<uint32_t>(pixels_)};
    }
    bool has_features() const { return features_.get() != nullptr; }

    // The first n pixels' sums and counts into a.sums and a.counts.
    void read(Accumulation& a, size_t n, cudaStream_t stream) const;
    void read_counts(uint32_t* out, size_t first, size_t n, cudaStream_t stream) const;
    // An adaptive render's second half's counts added to `counts` (the first half's, one per pixel).
    void add_second_half_counts(std::vector<uint32_t>& counts, cudaStream_t stream) const;
    void read_sums(float* out, size_t first, size_t n, cudaStream_t stream) const;
    // The feature sums into a.features (cleared where the framebuffer keeps none).
    void read_features(Accumulation& a, cudaStream_t stream) const;
    // The image of n pixels into a's sums, counts and features; zeros where `pending_clear` (a clear
    // still to come). `odd`: an adaptive render's second half too, into a.odd_sums, and added to the
    // first where `add_odd` (between rounds the first half holds the even samples alone).
    void read_image(Accumulation& a, size_t n, bool pending_clear, bool odd, bool add_odd, cudaStream_t stream) const;

private:
    static constexpr size_t kPinnedReadPixels = size_t{3840} * 2160;
    DeviceArray<float> radiance_;
    DeviceArray<uint32_t> samples_;
    DeviceArray<float> features_;  // kFeatureFloats a pixel, or none
    size_t pixels_ = 0;            // of the image (an adaptive render's halves hold twice as many)
    // read()'s copies, allocated with the framebuffer (pinned allocations and frees are kept away from a
    // running resident grid).
    mutable PinnedArray<float> pinned_radiance_;
    mutable PinnedArray<uint32_t> pinned_samples_;
};

}  // namespace pkrt::cuda
