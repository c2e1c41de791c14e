#include "app/viewer/gl_interop.h"

#include <chrono>
#include <cstdlib>

#include "render/display_image.h"
#include "render/error.h"

#if defined(PKRT_HAVE_CUDA)
#include "app/viewer/cuda_gl_buffer.h"
#endif

namespace pkrt::viewer {

namespace {
// Linear: with a resolution scale below 1 the image is magnified; at scale 1 texel centres land on
// pixel centres and linear filtering returns the texel itself.
GLuint make_display_texture() { return gl::make_texture_2d(GL_LINEAR); }
}  // namespace

AccumulationUpload::AccumulationUpload(bool prefer_buffer) : prefer_buffer_(prefer_buffer) {
    device_texture_ = make_display_texture();
    host_texture_ = make_display_texture();
    texture_ = host_texture_;
}

AccumulationUpload::~AccumulationUpload() {
#if defined(PKRT_HAVE_CUDA)
    host_cuda_.reset();
    release_retired();
    cuda_buffer_.reset();  // unregister before GL deletes the buffer or texture
    cuda_texture_.reset();
    staging_.reset();
#endif
    if (pbo_) gl::DeleteBuffers(1, &pbo_);
    for (GLuint t : {device_texture_, host_texture_}) gl::DeleteTextures(1, &t);
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
    width_ = width;
    height_ = height;
    device_output_ = device_output;
    size_t floats = static_cast<size_t>(width) * height * 4;
    // Host data goes to a texture of its own: the device texture's CUDA registration is left alone
    // while a resident kernel runs (undoing it there is not a copy-engine operation).
    if (!device_output) {
        if (width != host_width_ || height != host_height_) {
#if defined(PKRT_HAVE_CUDA)
            retire_host_registration();
#endif
            gl::BindTexture(GL_TEXTURE_2D, host_texture_);
            gl::TexImage2D(GL_TEXTURE_2D, 0, GL_RGBA32F, width, height, 0, GL_RGBA, GL_FLOAT, nullptr);
            gl::BindTexture(GL_TEXTURE_2D, 0);
            host_width_ = width;
            host_height_ = height;
        }
        texture_ = host_texture_;
        return;
    }
#if defined(PKRT_HAVE_CUDA)
    release_retired();  // the device path runs no resident grid
#endif
    texture_ = device_texture_;
    if (width == device_width_ && height == device_height_) {
        path_ = device_path_;
        return;
    }
    device_width_ = width;
    device_height_ = height;
    struct RememberPath {
        AccumulationUpload* u;
        ~RememberPath() { u->device_path_ = u->path_; }
    } remember{this};

    release_buffer();  // registrations cannot follow a change of size: drop them, register anew
    gl::BindTexture(GL_TEXTURE_2D, device_texture_);
    gl::TexImage2D(GL_TEXTURE_2D, 0, GL_RGBA32F, width, height, 0, GL_RGBA, GL_FLOAT, nullptr);
    gl::BindTexture(GL_TEXTURE_2D, 0);
#if defined(PKRT_HAVE_CUDA)
    std::string why;
    if (!prefer_buffer_) {
        if (!cuda_texture_) cuda_texture_ = std::make_unique<CudaGlTexture>();
        if (cuda_texture_->attach(device_texture_, &why)) {
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

bool AccumulationUpload::host_ready(int width, int height) const {
#if defined(PKRT_HAVE_CUDA)
    return host_cuda_failed_ ||
           (host_cuda_ && host_cuda_->attached() && width == host_width_ && height == host_height_);
#else
    (void)width;
    (void)height;
    return true;
#endif
}

void AccumulationUpload::prepare_host(int width, int height) {
#if defined(PKRT_HAVE_CUDA)
    release_retired();
    if (host_cuda_) host_cuda_->detach();
    gl::BindTexture(GL_TEXTURE_2D, host_texture_);
    gl::TexImage2D(GL_TEXTURE_2D, 0, GL_RGBA32F, width, height, 0, GL_RGBA, GL_FLOAT, nullptr);
    gl::BindTexture(GL_TEXTURE_2D, 0);
    host_width_ = width;
    host_height_ = height;
    if (!host_cuda_) host_cuda_ = std::make_unique<CudaGlTexture>();
    std::string why;
    host_cuda_failed_ = !host_cuda_->attach(host_texture_, &why);
#else
    (void)width;
    (void)height;
#endif
}

#if defined(PKRT_HAVE_CUDA)
void AccumulationUpload::retire_host_registration() {
    if (!host_cuda_ || !host_cuda_->attached()) return;
    retired_.emplace_back(std::move(host_cuda_), host_texture_);
    host_texture_ = make_display_texture();  // host_width_/height_ are set by the caller
}

void AccumulationUpload::release_retired() {
    for (auto& r : retired_) {
        r.first.reset();  // unregister before GL deletes the texture
        gl::DeleteTextures(1, &r.second);
    }
    retired_.clear();
}

namespace {
// A mapped object goes back to GL even when the backend's copy throws.
template <class F> void unmap_on_error(CudaGlResource& mapped, F&& copy) {
    try {
        copy();
    } catch (...) {
        mapped.unmap();
        throw;
    }
}
}  // namespace
#endif

double AccumulationUpload::upload(const DisplayImage& backend) {
    using clock = std::chrono::steady_clock;
    auto ms = [](clock::time_point a, clock::time_point b) {
        return std::chrono::duration<double, std::milli>(b - a).count();
    };
    // Earlier GL work (the last swap) must not count as transfer time. Not beside a resident grid:
    // there every wait for GL is a wait for GL's time slice on the GPU.
    if (!backend.finished_rgba()) gl::Finish();
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
        unmap_on_error(*cuda_texture_,
                       [&] { written = backend.copy_accumulation_to_surface(surface); });  // complete on return
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
        if (const float* rgba = backend.finished_rgba()) {
#if defined(PKRT_HAVE_CUDA)
        if (host_cuda_ && host_cuda_->attached()) {
            gl::BindTexture(GL_TEXTURE_2D, 0);  // GL must not hold the texture while CUDA writes it
            auto t1 = clock::now();
            host_cuda_->copy_from_host(rgba, width_, height_);
            auto t2 = clock::now();
            path_ =
                "copy engines (the resident kernel packs each frame's image as it ends; host RAM, then the texture mapped into CUDA)";
            timing_ = UploadTiming{ms(t0, t1), ms(t1, t2), 0.0, 0.0};
            return ms(t0, t2);  // the unmap inside orders the copy before any later GL use
        }
#endif
        path_ =
            "host copy (the resident kernel packs each frame's image as it ends; a copy engine brings it to RAM, glTexSubImage2D)";
        gl::TexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, width_, height_, GL_RGBA, GL_FLOAT, rgba);
    } else {
        path_ = "host copy (accumulation packed in RAM, glTexSubImage2D)";
        host_.resize(floats);
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
