// Radiance RGBE (.hdr) through stb_image_write (Debian's libstb holds its implementation).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <stb_image_write.h>

#include "render/error.h"
#include "render/image/image.h"

namespace pkrt {

std::string encode_hdr(const Image& image) {
    if (image.width <= 0 || image.height <= 0) throw Error("cannot encode HDR: empty image");
    // RGBE holds non-negative finite values up to about 1.7e38: NaN and negatives (never a radiance) become
    // 0, and infinities the largest value, so that no pixel's exponent is garbage.
    std::vector<float> rgb(image.pixels.size() * 3);
    for (size_t i = 0; i < image.pixels.size(); ++i)
        for (int c = 0; c < 3; ++c) {
            float v = image.pixels[i][c];
            rgb[3 * i + c] = v > 0.0f ? std::min(v, 1e38f) : 0.0f;
        }
    std::string out;
    auto append = [](void* context, void* data, int size) {
        static_cast<std::string*>(context)->append(static_cast<const char*>(data), static_cast<size_t>(size));
    };
    if (!stbi_write_hdr_to_func(append, &out, image.width, image.height, 3, rgb.data()))
        throw Error("cannot encode HDR");
    return out;
}

}  // namespace pkrt
