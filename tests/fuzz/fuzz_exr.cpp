// libFuzzer target: an OpenEXR float texture (render/texture/texture_exr.cpp).
#include "tests/fuzz/fuzz_texture.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    return pkrt_fuzz::fuzz_texture("fuzz.exr", data, size);
}
