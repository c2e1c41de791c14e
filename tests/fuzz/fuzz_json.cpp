// libFuzzer target: a JSON scene (it may name the fixture files tri.obj, tri.mtl, tri.ply and tex.png beside it).
#include "tests/fuzz/fuzz_common.h"

namespace {

const char kObj[] = "mtllib tri.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvn 0 0 1\nusemtl a\nf 1/1/1 2/1/1 3/1/1\n";
const char kMtl[] = "newmtl a\nKd 0.5 0.5 0.5\nmap_Kd tex.png\n";
const char kPly[] =
    "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
    "element face 1\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n";

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    pkrt_fuzz::write_file("tri.obj", kObj, sizeof kObj - 1);
    pkrt_fuzz::write_file("tri.mtl", kMtl, sizeof kMtl - 1);
    pkrt_fuzz::write_file("tri.ply", kPly, sizeof kPly - 1);
    pkrt_fuzz::write_tiny_png("tex.png");
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string path = pkrt_fuzz::write_file("scene.json", reinterpret_cast<const char*>(data), size);
    pkrt_fuzz::load_and_prepare(path);
    return 0;
}
