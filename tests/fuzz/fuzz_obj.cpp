// libFuzzer target: an OBJ and its MTL in one input. The part after a line "@@MTL@@" (if any) is the
// file m.mtl beside m.obj; the OBJ reaches it with "mtllib m.mtl". Beside them, tex.png (2x2 RGB) and
// Maps/Tex.png (the same) for the MTL's maps, spelled in any case or with backslashes: the cut-out,
// height-map, metal-rough and roughness images derived from them and the tangents of normal-mapped
// meshes run here; other names are missing textures (an error, or with --missing-textures warn, which
// the input's first byte chooses, a warning).
#include <algorithm>
#include <cstring>
#include <filesystem>

#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    pkrt_fuzz::write_tiny_png("tex.png");
    std::filesystem::create_directories(pkrt_fuzz::work_dir() + "/Maps");
    pkrt_fuzz::write_tiny_png("Maps/Tex.png");
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const char* text = reinterpret_cast<const char*>(data);
    pkrt::LoadLimits limits = pkrt_fuzz::small_limits();
    if (size > 0 && (data[0] & 1)) limits.missing_textures = pkrt::MissingTextures::kWarn;
    static const char kSep[] = "\n@@MTL@@\n";
    const char* end = text + size;
    const char* sep = std::search(text, end, kSep, kSep + sizeof kSep - 1);
    pkrt_fuzz::write_file("m.obj", text, static_cast<size_t>(sep - text));
    const char* mtl = sep == end ? end : sep + sizeof kSep - 1;
    pkrt_fuzz::write_file("m.mtl", mtl, static_cast<size_t>(end - mtl));
    pkrt_fuzz::load_and_prepare(pkrt_fuzz::work_dir() + "/m.obj", limits);
    return 0;
}
