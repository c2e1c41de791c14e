#include "app/viewer/cuda_gl_buffer.h"

#include <cuda_gl_interop.h>
#include <cuda_runtime_api.h>

#include "render/display_image.h"
#include "render/error.h"

namespace pkrt::viewer {

namespace {

void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) throw Error(std::string("display interop: ") + what + ": " + cudaGetErrorString(e));
}

}  // namespace

CudaGlResource::~CudaGlResource() {
    // Destructors must not throw: errors here can only come from a context already torn down.
    if (mapped_) cudaGraphicsUnmapResources(1, reinterpret_cast<cudaGraphicsResource_t*>(&resource_), 0);
    if (resource_) cudaGraphicsUnregisterResource(static_cast<cudaGraphicsResource_t>(resource_));
}

bool CudaGlResource::adopt(int error, void* resource, std::string* why) {
    auto e = static_cast<cudaError_t>(error);
    if (e == cudaSuccess && !resource) e = cudaErrorInvalidResourceHandle;  // never claim a null registration
    if (e != cudaSuccess) {
        cudaGetLastError();  // the failure is not sticky: clear it so later CUDA calls do not report it
        if (why) *why = cudaGetErrorString(e);
        return false;
    }
    resource_ = resource;
    return true;
}

void CudaGlResource::detach() {
    if (!resource_) return;
    if (mapped_) unmap();
    check(cudaGraphicsUnregisterResource(static_cast<cudaGraphicsResource_t>(resource_)),
          "cudaGraphicsUnregisterResource");
    resource_ = nullptr;
}

void CudaGlResource::map_resource() {
    check(cudaGraphicsMapResources(1, reinterpret_cast<cudaGraphicsResource_t*>(&resource_), 0),
          "cudaGraphicsMapResources");
    mapped_ = true;
}

void CudaGlResource::unmap() {
    if (!mapped_) return;
    mapped_ = false;
    check(cudaGraphicsUnmapResources(1, reinterpret_cast<cudaGraphicsResource_t*>(&resource_), 0),
          "cudaGraphicsUnmapResources");
}

bool CudaGlBuffer::attach(unsigned pbo, std::string* why) {
    detach();
    cudaGraphicsResource_t res = nullptr;
    cudaError_t e = cudaGraphicsGLRegisterBuffer(&res, pbo, cudaGraphicsRegisterFlagsWriteDiscard);
    return adopt(e, res, why);  // not in one expression: `res` must be read after the call wrote it
}

float* CudaGlBuffer::map(size_t expected_bytes) {
    map_resource();
    void* ptr = nullptr;
    size_t size = 0;
    check(cudaGraphicsResourceGetMappedPointer(&ptr, &size, static_cast<cudaGraphicsResource_t>(resource_)),
          "cudaGraphicsResourceGetMappedPointer");
    if (size < expected_bytes) throw Error("display interop: the mapped pixel buffer is smaller than the frame");
    return static_cast<float*>(ptr);
}

CudaGlTexture::~CudaGlTexture() {
    if (surface_) cudaDestroySurfaceObject(surface_);
}

bool CudaGlTexture::attach(unsigned texture, std::string* why) {
    detach();
    cudaGraphicsResource_t res = nullptr;
    cudaError_t e =
        cudaGraphicsGLRegisterImage(&res, texture, GL_TEXTURE_2D,
                                    cudaGraphicsRegisterFlagsSurfaceLoadStore | cudaGraphicsRegisterFlagsWriteDiscard);
    return adopt(e, res, why);
}

unsigned long long CudaGlTexture::map() {
    map_resource();
    // The array behind the texture may differ from one mapping to the next: a surface per mapping.
    cudaArray_t array = nullptr;
    check(cudaGraphicsSubResourceGetMappedArray(&array, static_cast<cudaGraphicsResource_t>(resource_), 0, 0),
          "cudaGraphicsSubResourceGetMappedArray");
    cudaResourceDesc desc{};
    desc.resType = cudaResourceTypeArray;
    desc.res.array.array = array;
    cudaSurfaceObject_t surface = 0;
    check(cudaCreateSurfaceObject(&surface, &desc), "cudaCreateSurfaceObject");
    surface_ = surface;
    return surface_;
}

void CudaGlTexture::copy_from_host(const float* rgba, int width, int height) {
    map_resource();
    try {
        cudaArray_t array = nullptr;
        check(cudaGraphicsSubResourceGetMappedArray(&array, static_cast<cudaGraphicsResource_t>(resource_), 0, 0),
              "cudaGraphicsSubResourceGetMappedArray");
        size_t row = static_cast<size_t>(width) * 4 * sizeof(float);
        check(cudaMemcpy2DToArray(array, 0, 0, rgba, row, row, static_cast<size_t>(height), cudaMemcpyHostToDevice),
              "cudaMemcpy2DToArray");
    } catch (...) {
        unmap();
        throw;
    }
    unmap();
}

void CudaGlTexture::unmap() {
    if (surface_) cudaDestroySurfaceObject(surface_);
    surface_ = 0;
    CudaGlResource::unmap();
}

CudaHostStaging::~CudaHostStaging() {
    if (device_) cudaFree(device_);
}

void CudaHostStaging::copy(const DisplayImage& image, size_t floats, std::vector<float>& host) {
    if (floats != floats_) {
        if (device_) cudaFree(device_);
        device_ = nullptr;
        floats_ = 0;
        check(cudaMalloc(reinterpret_cast<void**>(&device_), floats * sizeof(float)), "cudaMalloc");
        floats_ = floats;
    }
    image.copy_accumulation(device_);
    host.resize(floats);
    check(cudaMemcpy(host.data(), device_, floats * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
}

}  // namespace pkrt::viewer
