// libFuzzer target: a glTF 2.0 file, binary (.glb, when it starts with the magic "glTF") or JSON
// (.gltf). Beside it are the fixtures tri.bin (one triangle: 3 positions, then 3 uvs, 60 bytes) and
// tex.png (2x2 RGB), for URIs to refer to; data: URIs and a .glb's BIN chunk reach the same paths.
#include <cstring>

#include "tests/fuzz/fuzz_common.h"

namespace {

const float kTri[15] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1};

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    pkrt_fuzz::write_file("tri.bin", reinterpret_cast<const char*>(kTri), sizeof kTri);
    pkrt_fuzz::write_tiny_png("tex.png");
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    bool glb = size >= 4 && std::memcmp(data, "glTF", 4) == 0;
    std::string path = pkrt_fuzz::write_file(glb ? "m.glb" : "m.gltf", reinterpret_cast<const char*>(data), size);
    pkrt_fuzz::load_and_prepare(path);
    return 0;
}
