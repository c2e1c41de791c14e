#include "gl_interop.h"

#include <chrono>
#include <cstdlib>

#include "render/backend.h"
#include "render/error.h"

#if defined(PKRT_HAVE_CUDA)
#include "cuda_gl_buffer.h"
#endif

namespace pkrt::viewer {

AccumulationUpload::AccumulationUpload(bool prefer_buffer) : prefer_buffer_(prefer_buffer) {
    gl::GenTextures(1, &texture_);
    gl::BindTexture(GL_TEXTURE_2D, texture_);
    // Linear: with a resolution scale below 1 the image is magnified; at scale 1 texel centres land on
    // pixel centres and linear filtering returns the texel itself.
    gl::TexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    gl::TexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    gl::TexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    gl::TexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    gl::BindTexture(GL_TEXTURE_2D, 0);
}

AccumulationUpload::~AccumulationUpload() {
#if defined(PKRT_HAVE_CUDA)
    cuda_buffer_.reset();  // unregister before GL deletes the buffer or texture
    cuda_texture_.reset();
    staging_.reset();
#endif
    if (pbo_) gl::DeleteBuffers(1, &pbo_);
    if (texture_) gl::DeleteTextures(1, &texture_);
}

void AccumulationUpload::release_buffer() {
#if defined(PKRT_HAVE_CUDA)
    if (cuda_buffer_) cuda_buffer_->detach();
    if (cuda_texture_) cuda_texture_->detach();  // before the texture's storage is specified again
#endif
    if (pbo_) gl::DeleteBuffers(1, &pbo_);
    pbo_ = 0;
}

void AccumulationUpload::configure(int width, int height, bool device_output) {
    if (width == width_ && height == height_ && device_output == device_output_) return;
    width_ = width;
    height_ = height;
    device_output_ = device_output;
    size_t floats = static_cast<size_t>(width) * height * 4;

    release_buffer();  // registrations cannot follow a change of size: drop them, register anew
    gl::BindTexture(GL_TEXTURE_2D, texture_);
    gl::TexImage2D(GL_TEXTURE_2D, 0, GL_RGBA32F, width, height, 0, GL_RGBA, GL_FLOAT, nullptr);
    gl::BindTexture(GL_TEXTURE_2D, 0);

    if (!device_output) {
        host_.resize(floats);
        path_ = "host copy (CPU backend: accumulation packed in RAM, glTexSubImage2D)";
        return;
    }
#if defined(PKRT_HAVE_CUDA)
    std::string why;
    if (!prefer_buffer_) {
        if (!cuda_texture_) cuda_texture_ = std::make_unique<CudaGlTexture>();
        if (cuda_texture_->attach(texture_, &why)) {
            path_ = "CUDA-GL interop (texture written by CUDA through a surface, no copies)";
            host_.clear();
            host_.shrink_to_fit();
            return;
        }
    }
    gl::GenBuffers(1, &pbo_);
    gl::BindBuffer(GL_PIXEL_UNPACK_BUFFER, pbo_);
    gl::BufferData(GL_PIXEL_UNPACK_BUFFER, static_cast<GLsizeiptr>(floats * sizeof(float)), nullptr, GL_DYNAMIC_COPY);
    gl::BindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    if (!cuda_buffer_) cuda_buffer_ = std::make_unique<CudaGlBuffer>();
    if (cuda_buffer_->attach(pbo_, &why)) {
        path_ = "CUDA-GL interop (pixel buffer written by CUDA, copied to the texture on the GPU)";
        host_.clear();
        host_.shrink_to_fit();
    } else {
        // GL runs somewhere CUDA cannot reach (software GL under Xvfb): stage through the host.
        gl::DeleteBuffers(1, &pbo_);
        pbo_ = 0;
        if (!staging_) staging_ = std::make_unique<CudaHostStaging>();
        host_.resize(floats);
        path_ = "host staging (GL context not on the CUDA device: " + why + ")";
    }
#else
    throw Error("the backend writes device memory but this viewer was built without CUDA");
#endif
}

#if defined(PKRT_HAVE_CUDA)
namespace {
// A mapped object goes back to GL even when the backend's copy throws.
template <class F>
void unmap_on_error(CudaGlResource& mapped, F&& copy) {
    try {
        copy();
    } catch (...) {
        mapped.unmap();
        throw;
    }
}
}  // namespace
#endif

double AccumulationUpload::upload(const Backend& backend) {
    using clock = std::chrono::steady_clock;
    auto ms = [](clock::time_point a, clock::time_point b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
    // Earlier GL work (the last swap) must not count as transfer time.
    gl::Finish();
    auto t0 = clock::now();
    timing_ = UploadTiming{};
    size_t floats = static_cast<size_t>(width_) * height_ * 4;
    gl::BindTexture(GL_TEXTURE_2D, texture_);
    gl::PixelStorei(GL_UNPACK_ALIGNMENT, 4);
#if defined(PKRT_HAVE_CUDA)
    if (device_output_ && cuda_texture_ && cuda_texture_->attached()) {
        gl::BindTexture(GL_TEXTURE_2D, 0);  // GL must not hold the texture while CUDA writes it
        unsigned long long surface = cuda_texture_->map();
        auto t1 = clock::now();
        bool written = false;
        unmap_on_error(*cuda_texture_, [&] { written = backend.copy_accumulation_to_surface(surface); });  // complete on return
        auto t2 = clock::now();
        cuda_texture_->unmap();
        auto t3 = clock::now();
        if (!written) throw Error("display interop: the backend cannot write a CUDA surface");
        timing_ = UploadTiming{ms(t0, t1), ms(t1, t2), ms(t2, t3), 0.0};
        return ms(t0, t3);  // the unmap orders CUDA's writes before any later GL use: nothing to wait for
    }
    if (device_output_ && cuda_buffer_ && cuda_buffer_->attached()) {
        float* ptr = cuda_buffer_->map(floats * sizeof(float));
        auto t1 = clock::now();
        unmap_on_error(*cuda_buffer_, [&] { backend.copy_accumulation(ptr); });  // complete on return
        auto t2 = clock::now();
        cuda_buffer_->unmap();
        auto t3 = clock::now();
        timing_ = UploadTiming{ms(t0, t1), ms(t1, t2), ms(t2, t3), 0.0};
        gl::BindBuffer(GL_PIXEL_UNPACK_BUFFER, pbo_);
        gl::TexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, width_, height_, GL_RGBA, GL_FLOAT, nullptr);  // offset 0 in the PBO
        gl::BindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    } else if (device_output_) {
        if (!staging_) throw Error("internal: display transfer configured without a path for device output");
        staging_->copy(backend, floats, host_);
        gl::TexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, width_, height_, GL_RGBA, GL_FLOAT, host_.data());
    } else
#endif
    {
        backend.copy_accumulation(host_.data());
        gl::TexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, width_, height_, GL_RGBA, GL_FLOAT, host_.data());
    }
    gl::BindTexture(GL_TEXTURE_2D, 0);
    // Without this the time would end when GL queued the copy, not when it was done.
    gl::Finish();
    double total = ms(t0, clock::now());
    timing_.gl_copy = total - timing_.map - timing_.pack - timing_.unmap;
    return total;
}

}  // namespace pkrt::viewer
