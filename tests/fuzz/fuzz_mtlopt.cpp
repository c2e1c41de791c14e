// libFuzzer target: MTL map statements and their options (render/scene/mtl_options.cpp). Each input line is
// a statement of material `a` of m.mtl (a bare option list gets "map_Kd " before it), loaded through an OBJ
// quad with texture coordinates beside tex.png and a float glow.hdr: the strict option pass, then
// tinyobjloader's reading of what it let through, the texture transforms, the bump height map and the
// emission check. What the pass accepts must load or fail with a pkrt Error, never crash.
#include <string>

#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    pkrt_fuzz::write_tiny_png("tex.png");
    // A 1x1 Radiance file of one bright texel: an emission map whose product with Ke must stay finite.
    static const char kHdr[] = "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 1 +X 1\n\x80\x80\x80\xa0";
    pkrt_fuzz::write_file("glow.hdr", kHdr, sizeof kHdr - 1);
    const std::string obj =
        "mtllib m.mtl\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nusemtl a\nf 1/1 2/2 3/3 4/4\n";
    pkrt_fuzz::write_file("m.obj", obj.data(), obj.size());
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string in(reinterpret_cast<const char*>(data), size), mtl = "newmtl a\nKd 1 1 1\n";
    size_t start = 0;
    while (start <= in.size()) {
        size_t end = in.find('\n', start);
        if (end == std::string::npos) end = in.size();
        std::string line = in.substr(start, end - start);
        mtl += (line.rfind("-", 0) == 0 ? "map_Kd " + line : line) + "\n";
        start = end + 1;
    }
    pkrt_fuzz::write_file("m.mtl", mtl.data(), mtl.size());
    pkrt_fuzz::load_and_prepare(pkrt_fuzz::work_dir() + "/m.obj");
    return 0;
}
