// The CUDA side of the display interop (built only with PKRT_HAVE_CUDA). Kept apart from the GL code so
// that only this file includes cuda_gl_interop.h (which drags in <GL/gl.h>) and the rest of the viewer
// builds the same with or without CUDA.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace pkrt {
class Backend;
}

namespace pkrt::viewer {

// A GL pixel buffer registered with CUDA for write-discard access: the backend writes the packed
// accumulation straight into GL's memory, and GL then copies buffer -> texture on the GPU.
class CudaGlBuffer {
public:
    CudaGlBuffer() = default;
    ~CudaGlBuffer();
    CudaGlBuffer(const CudaGlBuffer&) = delete;
    CudaGlBuffer& operator=(const CudaGlBuffer&) = delete;

    // Registers GL buffer `pbo`. False (with the CUDA error in `why`) when the GL context is not on a CUDA
    // device, for instance Mesa under Xvfb: the caller then stages through the host.
    bool attach(unsigned pbo, std::string* why);
    void detach();
    bool attached() const { return resource_ != nullptr; }
    // Maps the buffer into CUDA and returns its device address; unmap() hands it back to GL.
    float* map(size_t expected_bytes);
    void unmap();

private:
    void* resource_ = nullptr;  // cudaGraphicsResource_t
    bool mapped_ = false;
};

// A GL texture registered with CUDA for surface writes: the backend packs the accumulation straight
// into the texture the display pass samples, so there is no buffer -> texture copy at all.
class CudaGlTexture {
public:
    CudaGlTexture() = default;
    ~CudaGlTexture();
    CudaGlTexture(const CudaGlTexture&) = delete;
    CudaGlTexture& operator=(const CudaGlTexture&) = delete;

    // Registers GL_TEXTURE_2D `texture` (RGBA32F). False, with the reason, where CUDA cannot reach it.
    bool attach(unsigned texture, std::string* why);
    void detach();
    bool attached() const { return resource_ != nullptr; }
    // Maps the texture into CUDA and returns a surface object (cudaSurfaceObject_t) over it.
    unsigned long long map();
    void unmap();

private:
    void* resource_ = nullptr;         // cudaGraphicsResource_t
    unsigned long long surface_ = 0;   // cudaSurfaceObject_t while mapped
    bool mapped_ = false;
};

// Fallback when GL cannot see the CUDA device: the backend packs into device memory and one copy brings
// it to the host for glTexSubImage2D.
class CudaHostStaging {
public:
    CudaHostStaging() = default;
    ~CudaHostStaging();
    CudaHostStaging(const CudaHostStaging&) = delete;
    CudaHostStaging& operator=(const CudaHostStaging&) = delete;

    void copy(const Backend& backend, size_t floats, std::vector<float>& host);

private:
    float* device_ = nullptr;
    size_t floats_ = 0;
};

}  // namespace pkrt::viewer
