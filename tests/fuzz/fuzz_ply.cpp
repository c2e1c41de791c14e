// libFuzzer target: a PLY file (ASCII or binary), loaded as a bare `pkrt render m.ply` would load it.
// Coverage guides the strict pass (render/scene/ply_scan.cpp); assimp is Debian's uninstrumented library, so
// what reaches it is exercised, not steered, and a fault in it shows as a crash.
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string path = pkrt_fuzz::write_file("m.ply", reinterpret_cast<const char*>(data), size);
    pkrt_fuzz::load_and_prepare(path);
    return 0;
}
