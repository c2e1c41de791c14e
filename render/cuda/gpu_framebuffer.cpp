#include "render/cuda/gpu_framebuffer.h"

namespace pkrt::cuda {

void GpuFramebuffer::resize(size_t n, bool features) {
    radiance_.allocate(3 * n);
    samples_.allocate(n);
    pixels_ = n;
    if (features) features_.allocate(kFeatureFloats * n);
    else features_.release();
    if (n <= kPinnedReadPixels) {
        pinned_radiance_.allocate(3 * n);
        pinned_samples_.allocate(n);
    } else {
        pinned_radiance_.release();
        pinned_samples_.release();
    }
}

void GpuFramebuffer::split(size_t n, cudaStream_t stream) {
    radiance_.allocate(6 * n);
    samples_.allocate(2 * n);
    clear(2 * n, stream);
}

void GpuFramebuffer::clear(size_t n, cudaStream_t stream) {
    check(cudaMemsetAsync(radiance_.get(), 0, 3 * n * sizeof(float), stream), "clear framebuffer");
    check(cudaMemsetAsync(samples_.get(), 0, n * sizeof(uint32_t), stream), "clear framebuffer");
    if (has_features())
        check(cudaMemsetAsync(features_.get(), 0, features_.size() * sizeof(float), stream), "clear framebuffer");
    check(cudaStreamSynchronize(stream), "clear framebuffer");
}

// Through the pinned copies where there are some, else straight into `a`'s pageable memory.
void GpuFramebuffer::read(Accumulation& a, size_t n, cudaStream_t stream) const {
    bool pinned = pinned_radiance_.get() != nullptr && pinned_radiance_.size() >= 3 * n;
    if (!pinned) {
        a.sums.resize(3 * n);
        a.counts.resize(n);
    }
    float* sums = pinned ? pinned_radiance_.get() : a.sums.data();
    uint32_t* counts = pinned ? pinned_samples_.get() : a.counts.data();
    check(cudaMemcpyAsync(sums, radiance_.get(), 3 * n * sizeof(float), cudaMemcpyDeviceToHost, stream),
          "read framebuffer");
    check(cudaMemcpyAsync(counts, samples_.get(), n * sizeof(uint32_t), cudaMemcpyDeviceToHost, stream),
          "read framebuffer");
    check(cudaStreamSynchronize(stream), "read framebuffer");
    if (pinned) {
        a.sums.assign(sums, sums + 3 * n);
        a.counts.assign(counts, counts + n);
    }
}

void GpuFramebuffer::read_counts(uint32_t* out, size_t first, size_t n, cudaStream_t stream) const {
    check(cudaMemcpyAsync(out, samples_.get() + first, n * sizeof(uint32_t), cudaMemcpyDeviceToHost, stream),
          "read samples");
    check(cudaStreamSynchronize(stream), "read samples");
}

void GpuFramebuffer::read_sums(float* out, size_t first, size_t n, cudaStream_t stream) const {
    check(cudaMemcpyAsync(out, radiance_.get() + 3 * first, 3 * n * sizeof(float), cudaMemcpyDeviceToHost, stream),
          "read sums");
    check(cudaStreamSynchronize(stream), "read sums");
}

// Pageable: read once per output, not per frame.
void GpuFramebuffer::read_features(Accumulation& a, cudaStream_t stream) const {
    a.features.resize(features_.size());
    if (a.features.empty()) return;
    check(cudaMemcpyAsync(a.features.data(), features_.get(), a.features.size() * sizeof(float), cudaMemcpyDeviceToHost,
                          stream),
          "read features");
    check(cudaStreamSynchronize(stream), "read features");
}

void GpuFramebuffer::read_image(Accumulation& a, size_t n, bool pending_clear, bool odd, bool add_odd,
                                cudaStream_t stream) const {
    a.rgba.clear();
    if (pending_clear) {
        a.sums.assign(3 * n, 0.0f);
        a.counts.assign(n, 0u);
    } else {
        read(a, n, stream);
    }
    a.features.clear();
    if (has_features()) {
        if (pending_clear) a.features.assign(kFeatureFloats * n, 0.0f);
        else read_features(a, stream);
    }
    a.odd_sums.clear();
    if (!odd) return;
    a.odd_sums.resize(3 * n);
    read_sums(a.odd_sums.data(), n, n, stream);
    if (!add_odd || pending_clear) return;
    for (size_t i = 0; i < 3 * n; ++i) a.sums[i] += a.odd_sums[i];
    add_second_half_counts(a.counts, stream);
}

void GpuFramebuffer::add_second_half_counts(std::vector<uint32_t>& counts, cudaStream_t stream) const {
    std::vector<uint32_t> odd(counts.size());
    read_counts(odd.data(), counts.size(), odd.size(), stream);
    for (size_t i = 0; i < counts.size(); ++i) counts[i] += odd[i];
}

}  // namespace pkrt::cuda
