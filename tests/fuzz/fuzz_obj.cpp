// libFuzzer target: an OBJ and its MTL in one input. The part after a line "@@MTL@@" (if any) is the
// file m.mtl beside m.obj; the OBJ reaches it with "mtllib m.mtl". A texture the MTL names does not
// exist: that error path is covered here, decoding by fuzz_texture.
#include <algorithm>
#include <cstring>

#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const char* text = reinterpret_cast<const char*>(data);
    static const char kSep[] = "\n@@MTL@@\n";
    const char* end = text + size;
    const char* sep = std::search(text, end, kSep, kSep + sizeof kSep - 1);
    pkrt_fuzz::write_file("m.obj", text, static_cast<size_t>(sep - text));
    const char* mtl = sep == end ? end : sep + sizeof kSep - 1;
    pkrt_fuzz::write_file("m.mtl", mtl, static_cast<size_t>(end - mtl));
    pkrt_fuzz::load_and_prepare(pkrt_fuzz::work_dir() + "/m.obj");
    return 0;
}
