// libFuzzer target: a texture file (PNG, JPEG or anything else) used by a one-quad scene.
#include "fuzz_common.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    static const char kScene[] =
        R"({"materials": {"t": {"texture": "tex.img"}}, "meshes": [{"quad": [[0,0,0],[1,0,0],[1,1,0],[0,1,0]], "material": "t"}]})";
    pkrt_fuzz::write_file("scene.json", kScene, sizeof kScene - 1);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    pkrt_fuzz::write_file("tex.img", reinterpret_cast<const char*>(data), size);
    pkrt_fuzz::load_and_prepare(pkrt_fuzz::work_dir() + "/scene.json");
    return 0;
}
