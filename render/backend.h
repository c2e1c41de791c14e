// A backend turns a prepared scene into accumulated radiance. The CPU backend runs the per-ray code on
// all cores; the CUDA backend runs the same code under a choice of GPU schedulers. Work is asked for in
// passes of whole samples per pixel, so the CLI can show progress and the viewer can render
// progressively; sample indices keep counting across passes, so N passes of k samples give exactly the
// image of one pass of N*k samples.
#pragma once

#include <memory>
#include <string>

#include "image.h"
#include "scene.h"
#include "stats.h"

namespace pkrt {

struct RenderSettings {
    int width = 512, height = 512;
    int spp = 16;
    int max_depth = 8;
    uint32_t seed = 0;
    std::string mode;  // scheduler, backend-specific; empty = the backend's default
};

class Backend {
public:
    virtual ~Backend() = default;
    virtual std::string name() const = 0;
    virtual std::string device() const = 0;
    virtual std::string default_mode() const = 0;
    // Uploads or references the scene; the scene must outlive the backend's use of it.
    virtual void set_scene(const Scene& scene) = 0;
    // Clears the framebuffer to width x height.
    virtual void reset(int width, int height) = 0;
    // Adds samples [first_sample, first_sample + samples) of every pixel; counters go into stats.
    virtual void accumulate(const RenderSettings& settings, uint32_t first_sample, uint32_t samples, RenderStats& stats) = 0;
    // accumulate() in two halves, for callers that overlap their own work with a frame (the viewer
    // draws and presents the last frame while the GPU renders the next). begin returns once the frame
    // is queued where the backend runs asynchronously (CUDA); end waits for it and adds its counters to
    // stats. Between the two only cancel() may be called. By default the work happens in end.
    virtual void begin_accumulate(const RenderSettings& settings, uint32_t first_sample, uint32_t samples) {
        deferred_ = Deferred{settings, first_sample, samples};
    }
    virtual void end_accumulate(RenderStats& stats) {
        accumulate(deferred_.settings, deferred_.first_sample, deferred_.samples, stats);
    }
    // Mean radiance per pixel.
    virtual Image resolve() const = 0;
    // Samples completed per pixel (the conservation checks read it).
    virtual std::vector<uint32_t> sample_counts() const = 0;
    // The accumulation for display, as RGBA32F per pixel (rgb = radiance sum, a = sample count), row 0
    // at the top. output_on_device(): `rgba` is a device pointer (for instance a GL buffer mapped into
    // CUDA, so nothing crosses PCIe) and the copy is complete on return; otherwise host memory.
    virtual bool output_on_device() const { return false; }
    virtual void copy_accumulation(float* rgba) const = 0;
    // The same into a width x height RGBA32F CUDA array behind `surface` (a cudaSurfaceObject_t, here as
    // an integer so this header needs no CUDA): a GL texture mapped into CUDA, written in place. False
    // where the backend cannot (no device output).
    virtual bool copy_accumulation_to_surface(unsigned long long surface) const {
        (void)surface;
        return false;
    }
    // Asks a running accumulate() to stop soon (from another thread); the framebuffer is then partial.
    virtual void cancel() {}
    // Scheduler modes this backend offers; the first is the default.
    virtual std::vector<std::string> modes() const { return {default_mode()}; }

private:
    struct Deferred {
        RenderSettings settings;
        uint32_t first_sample = 0, samples = 0;
    };
    Deferred deferred_;
};

// "auto" picks CUDA when a device is usable, else the CPU; `why` receives a sentence saying which and
// why. "cuda" without a device throws Error with the reason.
std::unique_ptr<Backend> make_backend(const std::string& kind, std::string* why);

std::unique_ptr<Backend> make_cpu_backend(unsigned threads = 0);

struct RenderOutput {
    Image image;
    RenderStats stats;
};

// The whole render: reset, passes of samples with progress, resolve. progress may be null.
class Progress;
RenderOutput render_image(Backend& backend, const Scene& scene, const RenderSettings& settings, Progress* progress);

}  // namespace pkrt
