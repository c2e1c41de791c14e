// MTL map options read strictly (issue 50, class 5): every option is known and well formed, numbers finite
// and within 1e6, on/off words exactly that, and a file name follows; the error names the MTL and its
// line, not the OBJ. Before, -bm nan, -s inf, -clamp maybe and a bare -s rendered without a word (the
// library took "nan" as a number, "maybe" as on, and the file name as -s's second number).
#include <gtest/gtest.h>

#include "render/image/image.h"
#include "tests/test_render_util.h"
#include "tests/test_util.h"

using namespace pkrt_test;

namespace {

const std::string kQuad = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\n";

// The error of loading an OBJ whose MTL's material `a` has `lines`; empty when it loads. `path` gets the MTL's.
std::string mtl_error(const TempDir& dir, const std::string& name, const std::string& lines, std::string* path) {
    *path = dir.write(name + ".mtl", "newmtl a\nKd 1 1 1\n" + lines);
    std::string obj = dir.write(name + ".obj", "mtllib " + name + ".mtl\n" + kQuad + "usemtl a\nf 1/1 2/2 3/3 4/4\n");
    return load_error(obj);
}

void write_texture(const TempDir& dir, const std::string& name, float value) {
    pkrt::Image img;
    img.width = img.height = 2;
    img.pixels.assign(4, pkrt::Vec3{value, value, value});
    pkrt::write_image(dir.file(name), img);
}

}  // namespace

TEST(MtlOptions, WellFormedOptionsLoad) {
    TempDir dir;
    write_texture(dir, "tex.png", 0.5f);
    std::string mtl;
    for (const std::string line : {"map_Kd tex.png\n", "map_Kd -s 2 2 1 -o 0.5 -0.5 0 -clamp on tex.png\n",
                                   "map_Kd -blendu off -blendv on tex.png\n", "bump -bm -0.5 tex.png\n",
                                   "map_Kd -mm 0 1 -boost 1.5 -texres 512 -imfchan l tex.png\n",
                                   "map_Kd -colorspace linear -type sphere -t 0 0 0 tex.png\n"}) {
        EXPECT_EQ(mtl_error(dir, "ok", line, &mtl), "") << line;
    }
}

TEST(MtlOptions, MalformedOptionsNameTheMtlAndLine) {
    TempDir dir;
    write_texture(dir, "tex.png", 0.5f);
    struct Case {
        std::string line, message;
    };
    const std::vector<Case> cases = {
        {"bump -bm nan tex.png", "bump -bm 'nan': must be a finite number"},
        {"bump -bm -inf tex.png", "bump -bm '-inf': must be a finite number"},
        {"map_Kd -s inf 1 1 tex.png", "map_Kd -s 'inf': must be a finite number"},
        {"map_Kd -s 1e40 1 1 tex.png", "map_Kd -s 1e40: must be between -1e6 and 1e6"},
        {"map_Kd -s 2e6 1 1 tex.png", "map_Kd -s 2e6: must be between -1e6 and 1e6"},
        {"map_Kd -o nan 0 0 tex.png", "map_Kd -o 'nan': must be a finite number"},
        {"map_Kd -o 0x10 0 0 tex.png", "map_Kd -o '0x10': must be a finite number"},
        {"map_Kd -clamp maybe tex.png", "map_Kd -clamp 'maybe': must be one of on off"},
        {"map_Kd -blendu maybe tex.png", "map_Kd -blendu 'maybe': must be one of on off"},
        {"map_Kd -s tex.png", "map_Kd -s: needs 3 numbers before the file name"},
        {"map_Kd -s 2 tex.png", "map_Kd -s: needs 3 numbers before the file name"},
        {"map_Kd -o", "map_Kd -o: needs 3 numbers"},
        {"bump -bm", "bump -bm: needs 1 number"},
        {"map_Kd -clamp on", "map_Kd: names no file"},
        {"map_Kd", "map_Kd: names no file"},
        {"map_Ke -zoom 2 tex.png", "map_Ke: unknown option '-zoom'"},
        {"map_Kd -texres 0 tex.png", "map_Kd -texres '0': must be a whole number from 1 to 65536"},
    };
    int i = 0;
    for (const Case& c : cases) {
        std::string name = "m" + std::to_string(i++), mtl;
        std::string err = mtl_error(dir, name, c.line + "\n", &mtl);
        SCOPED_TRACE(c.line);
        EXPECT_NE(err.find(mtl + ":3: " + c.message), std::string::npos) << "gave: " << err;
        EXPECT_EQ(err.find(name + ".obj"), std::string::npos) << "names the MTL, not the OBJ: " << err;
    }
}

// A 10 KB option line and a 1 MB map keyword are quoted, not copied whole.
TEST(MtlOptions, HostileTextIsQuotedShort) {
    TempDir dir;
    std::string mtl;
    std::string err = mtl_error(dir, "long", "map_Kd -clamp " + std::string(10000, 'x') + " tex.png\n", &mtl);
    EXPECT_NE(err.find("-clamp 'xxxx"), std::string::npos) << err.substr(0, 200);
    EXPECT_LT(err.size(), 300u);
    err = mtl_error(dir, "key", "map_" + std::string(1 << 20, 'K') + " -zoom tex.png\n", &mtl);
    EXPECT_NE(err.find("...: unknown option '-zoom'"), std::string::npos) << err.substr(0, 200);
    EXPECT_LT(err.size(), 300u);
}

// Ke times a float map_Ke texel must stay within 1e20 (what Ke alone may be): 1e20 x 10 is infinite in
// single precision, and every sample that met it was dropped with a warning.
TEST(MtlOptions, EmissionTimesItsMapStaysFinite) {
    TempDir dir;
    write_texture(dir, "bright.exr", 10.0f);
    std::string mtl;
    std::string err = mtl_error(dir, "ke", "Ke 1e20 1e20 1e20\nmap_Ke bright.exr\n", &mtl);
    EXPECT_NE(err.find(mtl + ": material 'a' map_Ke: Ke times its brightest texel"), std::string::npos) << err;
    EXPECT_EQ(mtl_error(dir, "ke_ok", "Ke 1e19 1e19 1e19\nmap_Ke bright.exr\n", &mtl), "");
    // An 8-bit map (texels at most 1) with Ke 1e20 is fine.
    write_texture(dir, "tex.png", 1.0f);
    EXPECT_EQ(mtl_error(dir, "ke8", "Ke 1e20 1e20 1e20\nmap_Ke tex.png\n", &mtl), "");
}
