// libFuzzer target: TGA (raw, run-length, colour-mapped) through the stream walk and stb_image
// (render/texture/texture_stb.cpp).
#include "tests/fuzz/fuzz_texture.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    return pkrt_fuzz::fuzz_texture("fuzz.tga", data, size);
}
