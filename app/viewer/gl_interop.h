// Gets the backend's accumulation into the RGBA32F texture the display pass samples, by the cheapest
// path the backend and the GL context allow:
//   - CUDA backend, GL on the CUDA device: a pixel buffer registered with CUDA; the backend packs into
//     it (map, copy_accumulation, unmap) and glTexSubImage2D copies buffer -> texture, all on the GPU;
//   - CUDA backend, GL elsewhere (Mesa under Xvfb): packed on the device, one copy to the host, upload;
//   - CPU backend: packed into host memory, upload.
// Every upload is timed (wall clock, closed by glFinish so GL's copy is inside it).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "gl_loader.h"

namespace pkrt {
class Backend;
}

namespace pkrt::viewer {

class CudaGlBuffer;
class CudaHostStaging;

class AccumulationUpload {
public:
    AccumulationUpload();
    ~AccumulationUpload();
    AccumulationUpload(const AccumulationUpload&) = delete;
    AccumulationUpload& operator=(const AccumulationUpload&) = delete;

    // Sizes the texture (and the pixel buffer and its CUDA registration for device-output backends) to
    // width x height; a no-op when nothing changed.
    void configure(int width, int height, bool device_output);
    // Copies the accumulation into the texture; returns the milliseconds it took.
    double upload(const Backend& backend);

    GLuint texture() const { return texture_; }
    int width() const { return width_; }
    int height() const { return height_; }
    // How the data travels, for the panel ("CUDA-GL interop: ...", "host copy: ...").
    const std::string& path() const { return path_; }

private:
    void release_buffer();

    GLuint texture_ = 0, pbo_ = 0;
    int width_ = 0, height_ = 0;
    bool device_output_ = false;
    std::string path_ = "none yet";
    std::vector<float> host_;
#if defined(PKRT_HAVE_CUDA)
    std::unique_ptr<CudaGlBuffer> cuda_buffer_;
    std::unique_ptr<CudaHostStaging> staging_;
#endif
};

}  // namespace pkrt::viewer
