#include "app/viewer/screenshot.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <vector>

#include "app/viewer/gl_loader.h"
#include "render/error.h"
#include "render/denoise/denoiser.h"
#include "render/image/aov.h"
#include "render/image/image.h"

namespace pkrt::viewer {

std::string back_buffer_png(int width, int height) {
    if (width <= 0 || height <= 0) throw Error("screenshot: nothing to save (the window has no size)");
    std::vector<unsigned char> rgb(static_cast<size_t>(width) * height * 3);
    gl::BindFramebuffer(GL_READ_FRAMEBUFFER, 0);
    gl::ReadBuffer(GL_BACK);
    gl::PixelStorei(GL_PACK_ALIGNMENT, 1);  // rows of 3*width bytes, no padding
    gl::ReadPixels(0, 0, width, height, GL_RGB, GL_UNSIGNED_BYTE, rgb.data());
    // GL's row 0 is the bottom of the window; PNG rows go top to bottom.
    size_t row = static_cast<size_t>(width) * 3;
    std::vector<unsigned char> flipped(rgb.size());
    for (int y = 0; y < height; ++y) std::copy_n(rgb.data() + row * (height - 1 - y), row, flipped.data() + row * y);
    return encode_png_rgb8(width, height, flipped);
}

std::string next_screenshot_name(const std::string& directory, const std::string& extension) {
    for (int n = 1;; ++n) {
        std::filesystem::path p =
            std::filesystem::path(directory) / ("pkrt-screenshot-" + std::to_string(n) + extension);
        std::error_code ec;
        if (!std::filesystem::exists(p, ec)) return p.string();
    }
}

std::string accumulation_exr(const Backend& backend, Denoiser* denoiser) {
    Accumulation acc = backend.accumulation();
    Image image = resolve_accumulation(acc);
    if (!denoiser || acc.features.empty()) return encode_exr(image);
    FeatureImages f = resolve_features(acc);
    Image denoised = denoiser->denoise(image, f);
    return encode_exr_with_aovs(denoised, {}, f, kAllAovs, &image);
}

}  // namespace pkrt::viewer
