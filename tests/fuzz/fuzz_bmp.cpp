// libFuzzer target: BMP through the header and palette checks and stb_image (render/texture/texture_stb.cpp).
#include "tests/fuzz/fuzz_texture.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    return pkrt_fuzz::fuzz_texture("fuzz.bmp", data, size);
}
