// Device and pinned host memory owned by RAII wrappers, and the one way CUDA errors become pkrt::Error.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <string>
#include <vector>

#include "render/error.h"

namespace pkrt::cuda {

// Set when a persistent kernel could neither finish nor be stopped: freeing memory it still uses would
// block forever, so destructors leave everything to the driver's teardown at process exit.
inline std::atomic<bool> g_device_wedged{false};

// Ends every resident kernel of the process (render/cuda/resident_scheduler.cpp). Freeing device or
// pinned memory synchronises the whole device, and a kernel that never ends would make it wait forever:
// every free here calls this first.
void quit_resident_kernels();

inline void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) {
        cudaGetLastError();
        throw Error(std::string("CUDA: ") + what + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
    }
}

// n elements of T from one allocator (device memory, pinned host memory), freed with it.
template <class T, cudaError_t (*Alloc)(void**, size_t), cudaError_t (*Free)(void*)> class CudaBuffer {
public:
    CudaBuffer() = default;
    CudaBuffer(const CudaBuffer&) = delete;
    CudaBuffer& operator=(const CudaBuffer&) = delete;
    ~CudaBuffer() { release(); }
    void allocate(size_t n) {
        if (n == n_ && p_) return;
        release();
        if (n == 0) return;
        check(Alloc(reinterpret_cast<void**>(&p_), n * sizeof(T)), "allocate");
        n_ = n;
    }
    void release() {
        if (p_ && !g_device_wedged) {
            quit_resident_kernels();
            Free(p_);
        }
        p_ = nullptr;
        n_ = 0;
    }
    T* get() const { return p_; }
    size_t size() const { return n_; }

private:
    T* p_ = nullptr;
    size_t n_ = 0;
};

inline cudaError_t device_alloc(void** p, size_t bytes) { return cudaMalloc(p, bytes); }
inline cudaError_t pinned_alloc(void** p, size_t bytes) { return cudaHostAlloc(p, bytes, cudaHostAllocDefault); }

template <class T> class DeviceArray : public CudaBuffer<T, device_alloc, cudaFree> {
public:
    void upload(const std::vector<T>& v) {
        this->allocate(std::max<size_t>(v.size(), 1));
        if (!v.empty())
            check(cudaMemcpy(this->get(), v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice), "upload");
    }
};

// n pinned host elements (not zeroed): a copy engine's target for large read-backs.
template <class T> using PinnedArray = CudaBuffer<T, pinned_alloc, cudaFreeHost>;

// Pinned host memory, zeroed. Mapped: also in the device's address space, so the host reads or writes
// it while a kernel runs (stop flag, live statistics); otherwise a fast target for async copies.
template <class T> class PinnedHost {
public:
    explicit PinnedHost(bool mapped = false) {
        check(cudaHostAlloc(reinterpret_cast<void**>(&h_), sizeof(T),
                            mapped ? cudaHostAllocMapped : cudaHostAllocDefault),
              "cudaHostAlloc");
        std::memset(static_cast<void*>(h_), 0, sizeof(T));
        if (mapped) check(cudaHostGetDevicePointer(reinterpret_cast<void**>(&d_), h_, 0), "cudaHostGetDevicePointer");
    }
    ~PinnedHost() {
        if (g_device_wedged) return;
        quit_resident_kernels();
        cudaFreeHost(h_);
    }
    PinnedHost(const PinnedHost&) = delete;
    PinnedHost& operator=(const PinnedHost&) = delete;
    T* host() const { return h_; }
    T* device() const { return d_; }  // null unless mapped

private:
    T* h_ = nullptr;
    T* d_ = nullptr;
};

template <class T> struct MappedHost : PinnedHost<T> {
    MappedHost() : PinnedHost<T>(true) {}
};

}  // namespace pkrt::cuda
