// libFuzzer target: a glTF 2.0 file, binary (.glb, when it starts with the magic "glTF") or JSON
// (.gltf). Beside it are the fixtures tri.bin (one triangle: 3 positions, then 3 uvs, 60 bytes) and
// tex.png (2x2 RGB), for URIs to refer to; data: URIs and a .glb's BIN chunk reach the same paths.
#include <cstring>

#include "fuzz_common.h"

namespace {

const float kTri[15] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1};
// A 2x2 RGB PNG.
const unsigned char kPng[] = {
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00, 0x02,
    0x00, 0x00, 0x00, 0x02, 0x08, 0x02, 0x00, 0x00, 0x00, 0xfd, 0xd4, 0x9a, 0x73, 0x00, 0x00, 0x00, 0x11, 0x49, 0x44, 0x41,
    0x54, 0x78, 0x9c, 0x63, 0xf8, 0xcf, 0xc0, 0xc0, 0xf0, 0x1f, 0x8c, 0x80, 0x18, 0x00, 0x1d, 0xf0, 0x03, 0xfd, 0xd3, 0xd0,
    0x7d, 0x26, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82};

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    pkrt_fuzz::write_file("tri.bin", reinterpret_cast<const char*>(kTri), sizeof kTri);
    pkrt_fuzz::write_file("tex.png", reinterpret_cast<const char*>(kPng), sizeof kPng);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    bool glb = size >= 4 && std::memcmp(data, "glTF", 4) == 0;
    std::string path = pkrt_fuzz::write_file(glb ? "m.glb" : "m.gltf", reinterpret_cast<const char*>(data), size);
    pkrt_fuzz::load_and_prepare(path);
    return 0;
}
