// libFuzzer target: an environment map file (Radiance .hdr, OpenEXR or anything else) lighting a
// one-sphere scene, through the header checks, the stream walk, the decoders and the distribution build.
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    static const char kScene[] = R"({"environment": {"type": "map", "file": "env.img"}, "meshes": [{"sphere": {}}]})";
    pkrt_fuzz::write_file("scene.json", kScene, sizeof kScene - 1);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    pkrt_fuzz::write_file("env.img", reinterpret_cast<const char*>(data), size);
    pkrt_fuzz::load_and_prepare(pkrt_fuzz::work_dir() + "/scene.json");
    return 0;
}
