// The CUDA side of the display interop (built only with PKRT_HAVE_CUDA). Kept apart from the GL code so
// that only this file includes cuda_gl_interop.h (which drags in <GL/gl.h>) and the rest of the viewer
// builds the same with or without CUDA.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace pkrt {
class DisplayImage;
}

namespace pkrt::viewer {

// A GL object registered with CUDA: registration, mapping and their undoing, shared by the two kinds.
class CudaGlResource {
public:
    CudaGlResource() = default;
    virtual ~CudaGlResource();
    CudaGlResource(const CudaGlResource&) = delete;
    CudaGlResource& operator=(const CudaGlResource&) = delete;

    void detach();
    bool attached() const { return resource_ != nullptr; }
    // Hands the object back to GL.
    virtual void unmap();

protected:
    // Takes the result of a cudaGraphicsGL*Register* call (an int here: this header has no CUDA types).
    // False, with CUDA's reason in `why`, when it failed, for instance because the GL context is not on a
    // CUDA device (Mesa under Xvfb): the caller then takes another path.
    bool adopt(int error, void* resource, std::string* why);
    void map_resource();

    void* resource_ = nullptr;  // cudaGraphicsResource_t
    bool mapped_ = false;
};

// A GL pixel buffer registered for write-discard access: the backend writes the packed accumulation
// straight into GL's memory, and GL then copies buffer -> texture on the GPU.
class CudaGlBuffer : public CudaGlResource {
public:
    bool attach(unsigned pbo, std::string* why);
    // Maps the buffer into CUDA and returns its device address; unmap() hands it back to GL.
    float* map(size_t expected_bytes);
};

// A GL texture (RGBA32F) registered for surface writes: the backend packs the accumulation straight into
// the texture the display pass samples, so there is no buffer -> texture copy at all.
class CudaGlTexture : public CudaGlResource {
public:
    ~CudaGlTexture() override;
    bool attach(unsigned texture, std::string* why);
    // Maps the texture into CUDA and returns a surface object (cudaSurfaceObject_t) over it.
    unsigned long long map();
    void unmap() override;
    // Copies width x height RGBA32F texels from host memory into the texture by a copy engine (map,
    // cudaMemcpy2DToArray, unmap): no kernel, so it runs beside a resident grid.
    void copy_from_host(const float* rgba, int width, int height);

private:
    unsigned long long surface_ = 0;  // cudaSurfaceObject_t while mapped
};

// Fallback when GL cannot see the CUDA device: the backend packs into device memory and one copy brings
// it to the host for glTexSubImage2D.
class CudaHostStaging {
public:
    CudaHostStaging() = default;
    ~CudaHostStaging();
    CudaHostStaging(const CudaHostStaging&) = delete;
    CudaHostStaging& operator=(const CudaHostStaging&) = delete;

    void copy(const DisplayImage& image, size_t floats, std::vector<float>& host);

private:
    float* device_ = nullptr;
    size_t floats_ = 0;
};

}  // namespace pkrt::viewer
