// libFuzzer target: a U-Net weight file (render/denoise/unet_weights.h) decoded in memory; a file that
// decodes (and is small enough to stay fast under the sanitizers) then denoises a small image, whose
// pixels must come out finite whatever the weights.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <string>

#include "render/denoise/unet.h"
#include "render/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    try {
        const pkrt::UnetWeights w =
            pkrt::decode_unet_weights(std::string(reinterpret_cast<const char*>(data), size), "fuzz.pkrtunet");
        if (w.parameter_count() > 20000) return 0;
        pkrt::Image color;
        pkrt::FeatureImages f;
        for (pkrt::Image* img : {&color, &f.albedo, &f.normal, &f.depth}) {
            img->width = 20, img->height = 18;
            img->pixels.assign(20 * 18, pkrt::Vec3{0.5f, 2.0f, 0.01f});
        }
        const pkrt::Image out = pkrt::UnetNetwork(w).denoise(color, f, 1, 16);
        for (const pkrt::Vec3& p : out.pixels)
            if (!std::isfinite(p.x + p.y + p.z)) std::abort();
    } catch (const pkrt::Error&) {
    } catch (const std::bad_alloc&) {
        std::abort();
    }
    return 0;
}
