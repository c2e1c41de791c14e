// Gets the backend's accumulation into the RGBA32F texture the display pass samples, by the cheapest
// path the backend and the GL context allow:
//   - CUDA backend, GL on the CUDA device: the texture itself registered with CUDA; the backend packs
//     into it through a surface (map, copy_accumulation_to_surface, unmap), no copies at all. With
//     `--interop buffer` (or where textures cannot be registered) a pixel buffer registered with
//     CUDA instead, which glTexSubImage2D then copies into the texture on the GPU;
//   - CUDA backend, GL elsewhere (Mesa under Xvfb): packed on the device, one copy to the host, upload;
//   - CPU backend: packed into host memory, upload.
// Every upload is timed (wall clock, closed by glFinish so GL's copy is inside it).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "app/viewer/gl_loader.h"

namespace pkrt {
class DisplayImage;
}

namespace pkrt::viewer {

class CudaGlBuffer;
class CudaGlTexture;
class CudaHostStaging;

// Where an upload's time went (milliseconds): mapping into CUDA, packing (the backend's copy, waited
// for), handing back to GL, and GL's own copy to the texture (closed by glFinish).
struct UploadTiming {
    double map = 0, pack = 0, unmap = 0, gl_copy = 0;
};

class AccumulationUpload {
public:
    // prefer_buffer: CUDA-GL interop through a pixel buffer even where the texture could be registered.
    explicit AccumulationUpload(bool prefer_buffer = false);
    ~AccumulationUpload();
    AccumulationUpload(const AccumulationUpload&) = delete;
    AccumulationUpload& operator=(const AccumulationUpload&) = delete;

    // Sizes the texture (and the pixel buffer and its CUDA registration for device-output backends) to
    // width x height; a no-op when nothing changed.
    void configure(int width, int height, bool device_output);
    // Resident mode: registers the host-data texture at width x height with CUDA, so that the kernel's
    // packed images reach it by copy engines. Registration must not happen beside a resident grid (it
    // waits for the grid, forever): call with none running. host_ready() says whether it is needed.
    void prepare_host(int width, int height);
    bool host_ready(int width, int height) const;
    // Copies the image (a backend's accumulation, or a denoised view of it, of the configured size and
    // on the configured side) into the texture; returns the milliseconds it took.
    double upload(const DisplayImage& image);

    GLuint texture() const { return texture_; }
    int width() const { return width_; }
    int height() const { return height_; }
    // How the data travels, for the panel ("CUDA-GL interop: ...", "host copy: ...").
    const std::string& path() const { return path_; }
    const UploadTiming& last_timing() const { return timing_; }

private:
    void release_buffer();

    GLuint texture_ = 0;  // the one the last configure() chose
    GLuint device_texture_ = 0, host_texture_ = 0, pbo_ = 0;
    int width_ = 0, height_ = 0;
    int device_width_ = 0, device_height_ = 0, host_width_ = 0, host_height_ = 0;
    std::string device_path_;
    bool device_output_ = false;
    bool prefer_buffer_ = false;
    std::string path_ = "none yet";
    UploadTiming timing_;
    std::vector<float> host_;
#if defined(PKRT_HAVE_CUDA)
    // Resident mode's host data reaches host_texture_ by a copy engine through this registration. A
    // registration is never undone while the grid may run: one of an old size is retired with its
    // texture, and retired ones go when the device path is back (no grid) or at the end.
    void retire_host_registration();
    void release_retired();
    std::unique_ptr<CudaGlTexture> host_cuda_;
    bool host_cuda_failed_ = false;  // GL is not on the CUDA device: glTexSubImage2D it is
    std::vector<std::pair<std::unique_ptr<CudaGlTexture>, GLuint>> retired_;
    std::unique_ptr<CudaGlBuffer> cuda_buffer_;
    std::unique_ptr<CudaGlTexture> cuda_texture_;
    std::unique_ptr<CudaHostStaging> staging_;
#endif
};

}  // namespace pkrt::viewer
