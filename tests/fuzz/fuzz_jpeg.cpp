// libFuzzer target: JPEG through libjpeg-turbo, CMYK and YCCK included (render/texture/texture_jpeg.cpp).
#include "tests/fuzz/fuzz_texture.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    return pkrt_fuzz::fuzz_texture("fuzz.jpeg", data, size);
}
