// libFuzzer target: PNG through libpng's low-level API (render/texture/texture_png.cpp).
#include "tests/fuzz/fuzz_texture.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    return pkrt_fuzz::fuzz_texture("fuzz.png", data, size);
}
