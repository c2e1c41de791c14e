// An image the viewer's display takes (app/viewer/gl_interop.h): a backend's accumulation, or a
// denoised view of it (render/denoise/view_denoiser.h). RGBA32F per pixel, row 0 at the top, rgb a sum
// of radiance and a its weight (samples; 1 for an image of means): the display pass divides, so a
// pixel's colour and count always come from the same samples.
#pragma once

namespace pkrt {

class DisplayImage {
public:
    virtual ~DisplayImage() = default;
    // The image in host memory, valid until the next change, where it is kept there (a resident
    // kernel's queued-ahead frames); otherwise null (copy_accumulation).
    virtual const float* finished_rgba() const { return nullptr; }
    // output_on_device(): copy_accumulation's `rgba` is a device pointer (for instance a GL buffer mapped
    // into CUDA, so nothing crosses PCIe) and the copy is complete on return; otherwise host memory.
    virtual bool output_on_device() const { return false; }
    virtual void copy_accumulation(float* rgba) const = 0;
    // The same into a width x height RGBA32F CUDA array behind `surface` (a cudaSurfaceObject_t, here as
    // an integer so this header needs no CUDA): a GL texture mapped into CUDA, written in place. False
    // where the image cannot be (no device output).
    virtual bool copy_accumulation_to_surface(unsigned long long surface) const {
        (void)surface;
        return false;
    }
};

}  // namespace pkrt
