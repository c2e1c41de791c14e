#include "cuda_gl_buffer.h"

#include <cuda_gl_interop.h>
#include <cuda_runtime_api.h>

#include "render/backend.h"
#include "render/error.h"

namespace pkrt::viewer {

namespace {

void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) throw Error(std::string("display interop: ") + what + ": " + cudaGetErrorString(e));
}

}  // namespace

CudaGlBuffer::~CudaGlBuffer() {
    // Destructors must not throw: errors here can only come from a context already torn down.
    if (mapped_) cudaGraphicsUnmapResources(1, reinterpret_cast<cudaGraphicsResource_t*>(&resource_), 0);
    if (resource_) cudaGraphicsUnregisterResource(static_cast<cudaGraphicsResource_t>(resource_));
}

bool CudaGlBuffer::attach(unsigned pbo, std::string* why) {
    detach();
    cudaGraphicsResource_t res = nullptr;
    cudaError_t e = cudaGraphicsGLRegisterBuffer(&res, pbo, cudaGraphicsRegisterFlagsWriteDiscard);
    if (e != cudaSuccess) {
        cudaGetLastError();  // the failure is not sticky: clear it so later CUDA calls do not report it
        if (why) *why = cudaGetErrorString(e);
        return false;
    }
    resource_ = res;
    return true;
}

void CudaGlBuffer::detach() {
    if (!resource_) return;
    if (mapped_) unmap();
    check(cudaGraphicsUnregisterResource(static_cast<cudaGraphicsResource_t>(resource_)), "cudaGraphicsUnregisterResource");
    resource_ = nullptr;
}

float* CudaGlBuffer::map(size_t expected_bytes) {
    auto* res = reinterpret_cast<cudaGraphicsResource_t*>(&resource_);
    check(cudaGraphicsMapResources(1, res, 0), "cudaGraphicsMapResources");
    mapped_ = true;
    void* ptr = nullptr;
    size_t size = 0;
    check(cudaGraphicsResourceGetMappedPointer(&ptr, &size, *res), "cudaGraphicsResourceGetMappedPointer");
    if (size < expected_bytes) throw Error("display interop: the mapped pixel buffer is smaller than the frame");
    return static_cast<float*>(ptr);
}

void CudaGlBuffer::unmap() {
    if (!mapped_) return;
    mapped_ = false;
    check(cudaGraphicsUnmapResources(1, reinterpret_cast<cudaGraphicsResource_t*>(&resource_), 0),
          "cudaGraphicsUnmapResources");
}

CudaGlTexture::~CudaGlTexture() {
    if (surface_) cudaDestroySurfaceObject(surface_);
    if (mapped_) cudaGraphicsUnmapResources(1, reinterpret_cast<cudaGraphicsResource_t*>(&resource_), 0);
    if (resource_) cudaGraphicsUnregisterResource(static_cast<cudaGraphicsResource_t>(resource_));
}

bool CudaGlTexture::attach(unsigned texture, std::string* why) {
    detach();
    cudaGraphicsResource_t res = nullptr;
    cudaError_t e = cudaGraphicsGLRegisterImage(&res, texture, GL_TEXTURE_2D,
                                                cudaGraphicsRegisterFlagsSurfaceLoadStore | cudaGraphicsRegisterFlagsWriteDiscard);
    if (e != cudaSuccess) {
        cudaGetLastError();
        if (why) *why = cudaGetErrorString(e);
        return false;
    }
    resource_ = res;
    return true;
}

void CudaGlTexture::detach() {
    if (!resource_) return;
    if (mapped_) unmap();
    check(cudaGraphicsUnregisterResource(static_cast<cudaGraphicsResource_t>(resource_)), "cudaGraphicsUnregisterResource");
    resource_ = nullptr;
}

unsigned long long CudaGlTexture::map() {
    auto* res = reinterpret_cast<cudaGraphicsResource_t*>(&resource_);
    check(cudaGraphicsMapResources(1, res, 0), "cudaGraphicsMapResources");
    mapped_ = true;
    // The array behind the texture may differ from one mapping to the next: a surface per mapping.
    cudaArray_t array = nullptr;
    check(cudaGraphicsSubResourceGetMappedArray(&array, *res, 0, 0), "cudaGraphicsSubResourceGetMappedArray");
    cudaResourceDesc desc{};
    desc.resType = cudaResourceTypeArray;
    desc.res.array.array = array;
    cudaSurfaceObject_t surface = 0;
    check(cudaCreateSurfaceObject(&surface, &desc), "cudaCreateSurfaceObject");
    surface_ = surface;
    return surface_;
}

void CudaGlTexture::unmap() {
    if (surface_) cudaDestroySurfaceObject(surface_);
    surface_ = 0;
    if (!mapped_) return;
    mapped_ = false;
    check(cudaGraphicsUnmapResources(1, reinterpret_cast<cudaGraphicsResource_t*>(&resource_), 0),
          "cudaGraphicsUnmapResources");
}

CudaHostStaging::~CudaHostStaging() {
    if (device_) cudaFree(device_);
}

void CudaHostStaging::copy(const Backend& backend, size_t floats, std::vector<float>& host) {
    if (floats != floats_) {
        if (device_) cudaFree(device_);
        device_ = nullptr;
        floats_ = 0;
        check(cudaMalloc(reinterpret_cast<void**>(&device_), floats * sizeof(float)), "cudaMalloc");
        floats_ = floats;
    }
    backend.copy_accumulation(device_);
    host.resize(floats);
    check(cudaMemcpy(host.data(), device_, floats * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
}

}  // namespace pkrt::viewer
