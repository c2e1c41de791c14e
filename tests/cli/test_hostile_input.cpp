// Hostile input, class by class (issue 14): every case ends in one `pkrt: error:` line naming the file and
// the problem and a non-zero exit, never a crash, a hang or unbounded memory; limits are checked before
// memory is allocated and can be raised by flags.
#include <gtest/gtest.h>
#include <jpeglib.h>
#include <png.h>
#include <signal.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <cstring>

#include <nlohmann/json.hpp>

#include "render/error.h"
#include "render/scene/loaders.h"
#include "render/scene/scene.h"
#include "tests/cli/test_cli_util.h"
#include "tests/texture/test_jpeg_util.h"
#include "tests/scene/test_ply_util.h"
#include "tests/test_render_util.h"

using namespace pkrt_test;

namespace {

// An 8-bit RGB PNG of w x h (or 16-bit grey), through libpng's simplified writer.
std::string png_bytes(int w, int h, bool grey16 = false) {
    png_image img;
    std::memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    img.width = w;
    img.height = h;
    img.format = grey16 ? PNG_FORMAT_LINEAR_Y : PNG_FORMAT_RGB;
    std::vector<unsigned char> pixels(static_cast<size_t>(w) * h * (grey16 ? 2 : 3));
    for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<unsigned char>(i * 37);
    png_alloc_size_t size = 0;
    EXPECT_TRUE(png_image_write_to_memory(&img, nullptr, &size, 0, pixels.data(), 0, nullptr));
    std::string out(size, '\0');
    EXPECT_TRUE(png_image_write_to_memory(&img, out.data(), &size, 0, pixels.data(), 0, nullptr));
    return out;
}

void put32(std::string& s, uint32_t v) {
    for (int k = 3; k >= 0; --k) s += static_cast<char>((v >> (8 * k)) & 0xFF);
}

std::string chunk(const std::string& type, const std::string& data) {
    std::string c;
    put32(c, static_cast<uint32_t>(data.size()));
    std::string body = type + data;
    c += body;
    put32(c,
          static_cast<uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(body.data()), static_cast<uInt>(body.size()))));
    return c;
}

// A few hundred bytes that claim w x h pixels: a decompression bomb unless its header is checked first.
std::string png_bomb(uint32_t w, uint32_t h) {
    std::string ihdr;
    put32(ihdr, w);
    put32(ihdr, h);
    ihdr += std::string("\x08\x02\x00\x00\x00", 5);  // 8-bit RGB
    unsigned char zeros[64] = {0}, z[128];
    uLongf zn = sizeof z;
    compress(z, &zn, zeros, sizeof zeros);
    return std::string("\x89PNG\r\n\x1a\n", 8) + chunk("IHDR", ihdr) +
           chunk("IDAT", std::string(reinterpret_cast<char*>(z), zn)) + chunk("IEND", "");
}

// A real 8x8 JPEG whose frame header is then rewritten to claim w x h.
std::string jpeg_bytes(uint16_t claim_w = 0, uint16_t claim_h = 0) {
    std::string out = pkrt_test::encode_jpeg(8, 8, std::vector<unsigned char>(8 * 8 * 3, 0));
    if (claim_w) {
        size_t sof = out.find("\xFF\xC0");
        out[sof + 5] = static_cast<char>(claim_h >> 8);
        out[sof + 6] = static_cast<char>(claim_h & 0xFF);
        out[sof + 7] = static_cast<char>(claim_w >> 8);
        out[sof + 8] = static_cast<char>(claim_w & 0xFF);
    }
    return out;
}

// A scene whose one material is textured with `texture`.
void textured_scene(const TempDir& dir, const std::string& name, const std::string& texture) {
    dir.write(name, R"({"camera": {"eye": [0.5, 0.5, 2], "look_at": [0.5, 0.5, 0]},
        "materials": {"t": {"texture": ")" +
                        texture + R"("}},
        "meshes": [{"quad": [[0,0,0],[1,0,0],[1,1,0],[0,1,0]], "material": "t"}]})");
}

#define EXPECT_LOAD_ERROR(path, needle)                                                        \
    do {                                                                                       \
        std::string path_ = (path);                                                            \
        std::string err_ = load_error(path_);                                                  \
        EXPECT_NE(err_.find(needle), std::string::npos) << path_ << " gave: '" << err_ << "'"; \
        EXPECT_NE(err_.find(path_), std::string::npos) << "names the file: " << err_;          \
        EXPECT_EQ(err_.find('\n'), std::string::npos) << "one line: " << err_;                 \
    } while (0)

const std::string kTriangle = "v 0 0 0\nv 1 0 0\nv 0 1 0\n";

}  // namespace

// ---- 1. Crashes ----

TEST(HostileInput, SixteenBitGreyTexturesNeverReachAVulnerableDecoder) {
    TempDir dir;
    // 16-bit PGM: stb_image over-read the heap converting it to 8 bits. Its PNM decoder is no longer compiled in.
    std::string pgm = "P5\n1024 1024\n65535\n" + std::string(2u * 1024 * 1024, '\x7f');
    dir.write("in_grey.pgm", pgm);
    textured_scene(dir, "in_pgm.json", "in_grey.pgm");
    expect_clean_failure(dir, "render in_pgm.json --res 8x8 --spp 1 -o out.png", 1,
                         "in_grey.pgm: unsupported texture format");
    // 16-bit grey PNG goes through libpng and renders.
    dir.write("in_grey16.png", png_bytes(64, 64, true));
    textured_scene(dir, "in_png16.json", "in_grey16.png");
    RunResult r = run_pkrt("render in_png16.json --res 8x8 --spp 1 -o out.png", dir.path().string());
    EXPECT_EQ(r.code, 0) << r.err;
    std::error_code ec;
    fs::remove(dir.file("out.png"), ec);
}

TEST(HostileInput, CorruptJpegAndPngFailCleanly) {
    TempDir dir;
    std::string jpg = jpeg_bytes();
    std::string png = png_bytes(16, 16);
    struct Case {
        std::string name, bytes;
    };
    std::vector<Case> cases = {
        {"in_trunc.jpg", jpg.substr(0, jpg.size() / 2)},
        {"in_head.jpg", jpg.substr(0, 40)},
        {"in_trunc.png", png.substr(0, png.size() - 20)},
        {"in_sig.png", png.substr(0, 8)},
    };
    // Cut inside the entropy-coded data: libjpeg would fill the rest with grey and only warn.
    cases.push_back({"in_cut.jpg", jpg.substr(0, jpg.find("\xFF\xDA") + 20)});
    // Flipped bytes through the entropy-coded data must never crash (sanitizer builds check the memory).
    for (int k = 0; k < 8; ++k) {
        std::string b = jpg;
        for (size_t i = b.size() / 2 + k; i < b.size() - 2; i += 7) b[i] = static_cast<char>(b[i] ^ (0x5A + k));
        cases.push_back({"in_flip" + std::to_string(k) + ".jpg", b});
    }
    for (const auto& c : cases) {
        dir.write(c.name, c.bytes);
        textured_scene(dir, "in_" + c.name + ".json", c.name);
        RunResult r = run_pkrt("render in_" + c.name + ".json --res 4x4 --spp 1 -q -o out.png", dir.path().string());
        EXPECT_TRUE(r.code == 0 || r.code == 1) << c.name << ": " << r.err;
        if (c.name.rfind("in_flip", 0) != 0) {
            EXPECT_EQ(r.code, 1) << c.name << " must be an error: " << r.err;
        }
        if (r.code == 1) {
            EXPECT_EQ(count_lines(r.err), 1) << r.err;
        }
        std::error_code ec;
        fs::remove(dir.file("out.png"), ec);
    }
}

// ---- 2. Hangs and unbounded memory ----

TEST(HostileInput, OnlyRegularFilesAreOpened) {
    TempDir dir;
    dir.write("in_zero.obj", "mtllib /dev/zero\n" + kTriangle + "f 1 2 3\n");
    expect_clean_failure(dir, "render in_zero.obj -o out.png", 1, "/dev/zero: is not a regular file");
    ASSERT_EQ(::mkfifo(dir.file("in_fifo.mtl").c_str(), 0600), 0);
    dir.write("in_fifo.obj", "mtllib in_fifo.mtl\n" + kTriangle + "f 1 2 3\n");
    expect_clean_failure(dir, "render in_fifo.obj -o out.png", 1, "in_fifo.mtl: is not a regular file");
    dir.write("in_dirmtl.obj", "mtllib in_d\n" + kTriangle + "f 1 2 3\n");
    fs::create_directory(dir.file("in_d"));
    expect_clean_failure(dir, "render in_dirmtl.obj -o out.png", 1, "in_d: is a directory");
    dir.write("in_dirobj.json", R"({"meshes": [{"obj": "in_d"}]})");
    expect_clean_failure(dir, "render in_dirobj.json -o out.png", 1, "in_d: is a directory");
    dir.write("in_zeroobj.json", R"({"meshes": [{"obj": "/dev/zero"}]})");
    expect_clean_failure(dir, "render in_zeroobj.json -o out.png", 1, "/dev/zero: is not a regular file");
    fs::create_symlink("in_loop.png", dir.file("in_loop.png"));
    textured_scene(dir, "in_loop.json", "in_loop.png");
    expect_clean_failure(dir, "render in_loop.json -o out.png", 1, "in_loop.png: symlink loop");
    textured_scene(dir, "in_dirtex.json", "in_d");
    expect_clean_failure(dir, "render in_dirtex.json -o out.png", 1, "in_d: is a directory");
    textured_scene(dir, "in_zerotex.json", "/dev/zero");
    expect_clean_failure(dir, "render in_zerotex.json -o out.png", 1, "/dev/zero: is not a regular file");
    fs::create_symlink("in_loop2.json", dir.file("in_loop2.json"));
    expect_clean_failure(dir, "render in_loop2.json -o out.png", 1, "in_loop2.json: symlink loop");
}

TEST(HostileInput, PolygonCornersAreLimited) {
    TempDir dir;
    auto polygon = [](int n) {
        std::string obj;
        for (int i = 0; i < n; ++i)
            obj += "v " + std::to_string(std::cos(6.283185 * i / n)) + " " +
                   std::to_string(std::sin(6.283185 * i / n)) + " 0\n";
        obj += "f";
        for (int i = 1; i <= n; ++i) obj += " " + std::to_string(i);
        return obj + "\n";
    };
    dir.write("in_poly.obj", polygon(100000));
    expect_clean_failure(dir, "render in_poly.obj -o out.png", 1,
                         "face 1 has 100000 corners, more than the limit of 256 (raise it with --max-polygon-corners)");
    dir.write("in_poly2k.obj", polygon(2000));
    expect_clean_failure(dir, "render in_poly2k.obj -o out.png", 1, "--max-polygon-corners");
    RunResult r = run_pkrt("render in_poly2k.obj --max-polygon-corners 2000 --res 8x8 --spp 1 -q -o out.png",
                           dir.path().string());
    EXPECT_EQ(r.code, 0) << r.err;
    std::error_code ec;
    fs::remove(dir.file("out.png"), ec);
}

TEST(HostileInput, TrianglesPerSceneAreBudgetedBeforeAllocation) {
    TempDir dir;
    std::string spheres = R"({"meshes": [)";
    for (int i = 0; i < 2000; ++i) spheres += std::string(i ? "," : "") + R"({"sphere": {"subdivisions": 7}})";
    dir.write("in_spheres.json", spheres + "]}");
    expect_clean_failure(dir, "render in_spheres.json -o out.png", 1, "triangles (about");
    expect_clean_failure(dir, "render in_spheres.json -o out.png", 1, "raise it with --max-triangles");
    dir.write("in_one.json", R"({"meshes": [{"sphere": {"subdivisions": 7}}]})");
    expect_clean_failure(dir, "render in_one.json --max-triangles 100000 -o out.png", 1, "meshes[0].sphere");
    dir.write("in_tris.obj", kTriangle + "f 1 2 3\nf 1 2 3\nf 1 2 3\n");
    expect_clean_failure(dir, "render in_tris.obj --max-triangles 2 -o out.png", 1,
                         "in_tris.obj: the scene would have 3 triangles");
    expect_clean_failure(dir, "render in_tris.obj --max-triangles 0 -o out.png", 2, "--max-triangles");
}

TEST(HostileInput, TexelsAreCheckedFromTheHeaderBeforeDecoding) {
    TempDir dir;
    dir.write("in_bomb.png", png_bomb(30000, 30000));
    textured_scene(dir, "in_pngbomb.json", "in_bomb.png");
    expect_clean_failure(dir, "render in_pngbomb.json -o out.png", 1,
                         "in_bomb.png: the scene would have 900000000 texels");
    dir.write("in_bomb.jpg", jpeg_bytes(65000, 65000));
    textured_scene(dir, "in_jpgbomb.json", "in_bomb.jpg");
    expect_clean_failure(dir, "render in_jpgbomb.json -o out.png", 1,
                         "in_bomb.jpg: texture of 65000x65000 is larger than 32768");
    dir.write("in_bomb2.jpg", jpeg_bytes(20000, 20000));
    textured_scene(dir, "in_jpgbomb2.json", "in_bomb2.jpg");
    expect_clean_failure(dir, "render in_jpgbomb2.json -o out.png", 1, "raise it with --max-texels");
    // Within the budget, but far more pixels than the file can hold.
    dir.write("in_claim.png", png_bomb(8000, 8000));
    textured_scene(dir, "in_claim.json", "in_claim.png");
    expect_clean_failure(dir, "render in_claim.json -o out.png", 1,
                         "in_claim.png: claims 8000x8000 pixels but has only");
    dir.write("in_claim.jpg", jpeg_bytes(16000, 16000));
    textured_scene(dir, "in_claimj.json", "in_claim.jpg");
    expect_clean_failure(dir, "render in_claimj.json -o out.png", 1,
                         "in_claim.jpg: claims 16000x16000 pixels but has only");
    dir.write("in_small.png", png_bytes(16, 16));
    textured_scene(dir, "in_small.json", "in_small.png");
    expect_clean_failure(dir, "render in_small.json --max-texels 100 -o out.png", 1, "256 texels");
}

TEST(HostileInput, TexturesAreSharedByFileIdentity) {
    TempDir dir;
    dir.write("a.png", png_bytes(16, 16));
    for (int i = 0; i < 6; ++i) fs::create_hard_link(dir.file("a.png"), dir.file("link" + std::to_string(i) + ".png"));
    fs::create_symlink("a.png", dir.file("sym.png"));
    std::string mats, meshes;
    for (std::string t : {"a.png", "link0.png", "link1.png", "link2.png", "link3.png", "link4.png", "link5.png",
                          "sym.png", "./a.png"}) {
        std::string name = "m" + std::to_string(mats.size());
        mats += std::string(mats.empty() ? "" : ",") + "\"" + name + "\": {\"texture\": \"" + t + "\"}";
        meshes += std::string(meshes.empty() ? "" : ",") +
                  R"({"quad": [[0,0,0],[1,0,0],[1,1,0],[0,1,0]], "material": ")" + name + "\"}";
    }
    dir.write("s.json", "{\"materials\": {" + mats + "}, \"meshes\": [" + meshes + "]}");
    pkrt::Scene s = pkrt::load_scene(dir.file("s.json"));
    EXPECT_EQ(s.textures.size(), 1u);
}

// ---- 3. Wrong results accepted silently ----

TEST(HostileInput, ObjIndicesAndFacesAreStrict) {
    TempDir dir;
    struct Case {
        const char* name;
        std::string obj;
        const char* message;
    };
    const Case cases[] = {
        {"wrap.obj", kTriangle + "f 1 2 4294967299\n", "uses vertex 4294967299 but the file has 3"},
        {"big.obj", kTriangle + "f 1 2 99999999999\n", "uses vertex 99999999999 but the file has 3"},
        {"huge.obj", kTriangle + "f 1 2 999999999999999999999999\n", "999999999999999999999999 is out of range"},
        {"neg.obj", kTriangle + "f 1 2 -4\n", "uses vertex -4 but the file has 3"},
        {"zero.obj", kTriangle + "f 0 1 2\n", "uses vertex 0"},
        {"quad.obj", kTriangle + "f 1 2 3 4\n", "uses vertex 4 but the file has 3"},
        {"two.obj", kTriangle + "f 1 2\n", "face 1 has 2 corners"},
        {"slash.obj", kTriangle + "f 1 2 /3\n", "has no vertex index"},
        {"junk.obj", kTriangle + "f 1 2 3x\n", "'3x' is not an integer"},
        {"tex.obj", kTriangle + "vt 0 0\nf 1/1 2/2 3/1\n", "uses texture coordinate 2 but the file has 1"},
        {"hex.obj", "v 0x1p3 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", "'0x1p3' is not a number"},
        {"exp.obj", "v 1e400 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", "'1e400' is out of range"},
        {"few.obj", "v 1 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", "vertex needs 3 numbers"},
        {"cr.obj", "v 0 0 0\rv 1 0 0\rv 0 1 0\rv zz 0 0\rf 1 2 3\r", ":4: vertex coordinate 'zz' is not a number"},
    };
    for (const auto& c : cases) EXPECT_LOAD_ERROR(dir.write(c.name, c.obj), c.message);
}

// A PLY triangle: its header (any counts) and its records, in each encoding.
PlyMesh ply_triangle(std::vector<int64_t> face = {0, 1, 2}) {
    PlyMesh m;
    m.vertices = {{{0, 0, 0}}, {{1, 0, 0}}, {{0, 1, 0}}};
    m.faces = {std::move(face)};
    return m;
}

std::string ply_head(const char* format, const std::string& vertices, const std::string& faces,
                     const std::string& extra = "") {
    return "ply\nformat " + std::string(format) + " 1.0\nelement vertex " + vertices +
           "\nproperty float x\nproperty float y\nproperty float z\nelement face " + faces +
           "\nproperty list uchar int vertex_indices\n" + extra + "end_header\n";
}

TEST(HostileInput, PlyCountsAreCheckedBeforeAllocation) {
    TempDir dir;
    const std::string le = ply_body(ply_triangle(), PlyEncoding::kLittleEndian, {});
    const std::string ascii = ply_body(ply_triangle(), PlyEncoding::kAscii, {});
    const char* bin = "binary_little_endian";
    struct Case {
        const char* name;
        std::string ply;
        const char* message;
    };
    const Case cases[] = {
        {"v32.ply", ply_head(bin, "4294967295", "1") + le,
         "4294967295 vertices, more than 3 for each triangle of the limit of 8388608 (raise it with --max-triangles)"},
        {"v64.ply", ply_head(bin, "18446744073709551615", "1") + le, "18446744073709551615 vertices, more than 3"},
        {"vhuge.ply", ply_head(bin, "99999999999999999999999", "1") + le, "element 'vertex' count is too large"},
        {"fhuge.ply", ply_head(bin, "3", "4294967295") + le, "the scene would have 4294967295 triangles"},
        {"vbytes.ply", ply_head(bin, "1000000", "1") + le,
         "element 'vertex' has 1000000 records but the file has 49 bytes left for them (at least 12 each)"},
        {"fbytes.ply", ply_head(bin, "3", "1000") + le,
         "element 'face' has 1000 records but the file has 13 bytes left"},
        {"edge.ply", ply_head(bin, "3", "1", "element edge 4294967294\nproperty double w\n") + le,
         "element 'edge' has 4294967294 records but the file has 12 bytes left for them (at least 8 each)"},
        {"alist.ply", ply_head("ascii", "3", "1", "element edge 4000000000\nproperty list uint uint e\n") + ascii,
         "element 'edge' has 4000000000 records but the file has"},
        {"avert.ply", ply_head("ascii", "300", "1") + ascii,
         "element 'vertex' has 300 records but the file has 26 bytes left for them (at least 6 each)"},
    };
    for (const auto& c : cases) EXPECT_LOAD_ERROR(dir.write(c.name, c.ply), c.message);
    // With the limits raised out of the way, the file's size and 32-bit indexing still bound the counts.
    pkrt::LoadLimits huge;
    huge.max_triangles = uint64_t(1) << 62;
    std::string err = load_error(dir.write("v32b.ply", ply_head(bin, "4294967294", "1") + le), huge);
    EXPECT_NE(err.find("element 'vertex' has 4294967294 records but the file has 49 bytes"), std::string::npos) << err;
    err = load_error(dir.write("f32.ply", ply_head(bin, "3", "4294967295") + le), huge);
    EXPECT_NE(err.find("element 'face' has 4294967295 records, more than PLY readers index"), std::string::npos) << err;
    pkrt::LoadLimits few;
    few.max_triangles = 1;
    PlyMesh quad = ply_triangle({0, 1, 2, 1});
    err = load_error(dir.write("budget.ply", ply_file(quad, PlyEncoding::kBigEndian)), few);
    EXPECT_NE(err.find("budget.ply: the scene would have 2 triangles"), std::string::npos) << err;
}

TEST(HostileInput, PlyStructureIsStrict) {
    TempDir dir;
    const char* bin = "binary_little_endian";
    const std::string le = ply_body(ply_triangle(), PlyEncoding::kLittleEndian, {});
    std::string count255 = le;
    count255[36] = '\xff';  // the face's corner count: 255 corners in 12 bytes
    const std::string tri = "0 0 0\n1 0 0\n0 1 0\n";
    auto ascii = [&](const std::string& body) { return ply_head("ascii", "3", "1") + body; };
    std::string float_indices = ply_head("ascii", "3", "1");
    float_indices.replace(float_indices.find("uchar int"), 9, "uchar float");
    struct Case {
        const char* name;
        std::string ply;
        const char* message;
    };
    const Case cases[] = {
        {"trunc.ply", ply_head(bin, "3", "1") + le.substr(0, le.size() - 2),
         "the data ends inside 'face' record 0 of 1 (a truncated file?)"},
        {"count255.ply", ply_head(bin, "3", "1") + count255, "the data ends inside 'face' record 0 of 1"},
        {"index.ply", ply_file(ply_triangle({0, 1, 7}), PlyEncoding::kLittleEndian),
         "face 0 uses vertex 7 but the file has 3 (numbered from 0)"},
        {"index_be.ply", ply_file(ply_triangle({0, 3, 1}), PlyEncoding::kBigEndian), "face 0 uses vertex 3 but"},
        {"negative.ply", ply_file(ply_triangle({0, -1, 1}), PlyEncoding::kLittleEndian), "face 0 uses vertex -1"},
        {"index_a.ply", ascii(tri + "3 0 1 3\n"), "face 0 uses vertex 3 but the file has 3"},
        {"corners.ply", ply_file(ply_triangle({0, 1}), PlyEncoding::kBigEndian),
         "face 0 has 2 corners (a face needs 3)"},
        {"format.ply", "ply\nformat binary_middle_endian 1.0\nend_header\n", "unknown format 'binary_middle_endian'"},
        {"version.ply", "ply\nformat ascii 2.0\nend_header\n", "unknown PLY version '2.0'"},
        {"noformat.ply", "ply\nelement vertex 3\nend_header\n", "header line 2: an element before the format line"},
        {"noend.ply", ply_head("ascii", "3", "1").substr(0, 120), "no end_header line"},
        {"noend2.ply", "ply\nformat ascii 1.0\nelement vertex 3\n", "no end_header line"},
        {"magic.ply", "PLX\nformat ascii 1.0\nend_header\n", "not a PLY file"},
        {"junk.ply", "ply\nformat ascii 1.0\nelemental vertex 3\nend_header\n",
         "header line 3: unknown header line 'elemental"},
        {"type.ply", "ply\nformat ascii 1.0\nelement vertex 1\nproperty float128 x\nend_header\n",
         "unknown type 'float128'"},
        {"listf.ply", "ply\nformat ascii 1.0\nelement face 1\nproperty list float int vertex_indices\nend_header\n",
         "a list's count must have an integer type"},
        {"idxf.ply", float_indices + tri + "3 0 1 2\n", "face property 'vertex_indices' must have an integer type"},
        {"noface.ply",
         "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\nproperty float z\n"
         "end_header\n0 0 0\n",
         "no 'face' element (point clouds are not supported)"},
        {"noz.ply",
         "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\nelement face 0\n"
         "property list uchar int vertex_indices\nend_header\n0 0\n",
         "the vertex element has no 'z' property"},
        {"zero.ply", ascii(tri.substr(0, 12) + "0 zero 0\n3 0 1 2\n"),
         "line 12: 'vertex' record 2: 'y' 'zero' is not a number"},
        {"hex.ply", ascii("0x1p3 0 0\n" + tri.substr(6) + "3 0 1 2\n"), "'0x1p3' is not a number"},
        {"e400.ply", ascii("1e400 0 0\n" + tri.substr(6) + "3 0 1 2\n"), "'1e400' is out of range"},
        // assimp's reader stops short of these (64-bit overflow, a sign on an unsigned value) and would
        // read the rest of the line from the wrong place.
        {"digits.ply", ascii("100000000000000000000 0 0\n" + tri.substr(6) + "3 0 1 2\n"),
         "'100000000000000000000' has more than 19 digits before its point or in its exponent"},
        {"exp20.ply", ascii("0e99999999999999999999 0 0\n" + tri.substr(6) + "3 0 1 2\n"), "has more than 19 digits"},
        {"minus0.ply", ascii(tri + "-0 0 1 2\n"), "'vertex_indices' count '-0' is not an unsigned integer"},
        {"idxx.ply", ascii(tri + "3 0 1 x\n"), "'face' record 0: 'vertex_indices' 'x' is not an integer"},
        {"idx25.ply", ascii(tri + "3 0 1 2.5\n"), "'2.5' is not an integer"},
        {"props.ply",
         ply_head("ascii", "3", "1",
                  [] {
                      std::string many = "element extra 0\n";
                      for (int i = 0; i < 1001; ++i) many += "property uchar p" + std::to_string(i) + "\n";
                      return many;
                  }()) +
             tri + "3 0 1 2\n",
         "element 'extra' has 1001 properties, more than 1000"},
        {"c300.ply", ascii(tri + "300 0 1 2\n"), "'vertex_indices' count 300 is out of range for uchar"},
        {"few.ply", ascii(tri + "4 0 1 2\n"), "'face' record 0 has too few values"},
        {"many.ply", ascii("0 0 0 0\n" + tri.substr(6) + "3 0 1 2\n"), "'vertex' record 0 has 1 values too many"},
        {"short.ply", ply_head("ascii", "3", "2") + tri + "3 0 1 2\n", "the file ends after 1 of 2 'face' records"},
    };
    for (const auto& c : cases) EXPECT_LOAD_ERROR(dir.write(c.name, c.ply), c.message);
    // On the command line: one error line, no output.
    TempDir cli;
    cli.write("in_index.ply", ply_file(ply_triangle({0, 1, 7}), PlyEncoding::kBigEndian));
    expect_clean_failure(cli, "render in_index.ply -o out.png", 1,
                         "in_index.ply: face 0 uses vertex 7 but the file has 3");
    cli.write("in_header.ply", "ply\nformat ascii 1.0\nelement vertex 4294967295\n");
    expect_clean_failure(cli, "render in_header.ply -o out.png", 1, "in_header.ply: no end_header line");
}

TEST(HostileInput, CrOnlyLineEndingsAreLines) {
    TempDir dir;
    dir.write("bom.obj", "\xEF\xBB\xBFv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
    pkrt::Scene b;
    EXPECT_EQ(pkrt::load_obj(b, dir.file("bom.obj"), pkrt::ObjOptions{}), 1u)
        << "a byte order mark is not part of the first line";
    dir.write("cr.obj", "v 0 0 0\rv 1 0 0\rv 0 1 0\rv nan 0 0\rf 1 2 3\rf 1 2 4\r");
    pkrt::Scene s;
    EXPECT_EQ(pkrt::load_obj(s, dir.file("cr.obj"), pkrt::ObjOptions{}), 1u);
    EXPECT_EQ(s.load_stats.nonfinite_triangles, 1u) << "the NaN vertex is seen, not read as 0";
}

TEST(HostileInput, MtlValuesAreCheckedLikeJson) {
    TempDir dir;
    struct Case {
        const char* mtl;
        const char* message;
    };
    const Case cases[] = {
        {"newmtl a\nKd 5 0 0\n", "Kd 5: must be between 0 and 1"},
        {"newmtl a\nKd -1 0 0\n", "Kd -1: must be between 0 and 1"},
        {"newmtl a\nKd nan 0 0\n", "Kd nan: must be a finite number"},
        {"newmtl a\nKd 0.5\n", "Kd needs 3 numbers"},
        {"newmtl a\nKe 1e30 0 0\n", "Ke 1e30: must be between 0 and 1e20"},
        {"newmtl a\nd 2\n", "d 2: must be between 0 and 1"},
        {"newmtl a\rKd 0.5 0.5 0.5\rNs nan\r", ":3: Ns nan: must be a finite number"},
    };
    int i = 0;
    for (const auto& c : cases) {
        std::string name = "m" + std::to_string(i++);
        dir.write(name + ".mtl", c.mtl);
        std::string obj = dir.write(name + ".obj", "mtllib " + name + ".mtl\n" + kTriangle + "usemtl a\nf 1 2 3\n");
        std::string err = load_error(obj);
        EXPECT_NE(err.find(c.message), std::string::npos) << c.mtl << " gave: " << err;
        EXPECT_NE(err.find(name + ".mtl"), std::string::npos) << "names the MTL: " << err;
    }
}

TEST(HostileInput, JsonIsStrict) {
    TempDir dir;
    const std::string ok = R"({"meshes": [{"sphere": {}}]})";
    EXPECT_EQ(load_error(dir.write("ok.json", ok)), "");
    EXPECT_LOAD_ERROR(dir.write("garbage.json", ok + " garbage"), "invalid JSON");
    EXPECT_LOAD_ERROR(dir.write("nul.json", ok + std::string(1, '\0') + "x"), "invalid JSON");
    EXPECT_LOAD_ERROR(dir.write("two.json", ok + ok), "invalid JSON");
    EXPECT_LOAD_ERROR(dir.write("overflow.json", R"({"meshes": [{"sphere": {"radius": 1e400}}]})"), "number overflow");
    EXPECT_LOAD_ERROR(
        dir.write(
            "env.json",
            R"({"environment": {"type": "constant", "color": 3e38, "intensity": 10}, "meshes": [{"sphere": {}}]})"),
        "environment: colour times intensity must be at most 1e20");
    EXPECT_LOAD_ERROR(
        dir.write(
            "sky.json",
            R"({"environment": {"type": "sky", "zenith": [1e19, 1, 1], "intensity": 100}, "meshes": [{"sphere": {}}]})"),
        "environment: colour times intensity");
    EXPECT_LOAD_ERROR(
        dir.write("emit.json",
                  R"({"materials": {"l": {"emission": 3e38}}, "meshes": [{"sphere": {}, "material": "l"}]})"),
        "materials.l.emission: must be at most 1e20");
    std::string far =
        load_error(dir.write("far.json", R"({"camera": {"eye": [0, 0, 1e20]}, "meshes": [{"sphere": {}}]})"));
    EXPECT_NE(far.find("camera: eye and look_at must be within 1e18"), std::string::npos) << far;
    EXPECT_EQ(far.find("parallel"), std::string::npos) << far;
    EXPECT_LOAD_ERROR(
        dir.write("up.json", R"({"camera": {"eye": [0, 5, 0], "up": [0, 1, 0]}, "meshes": [{"sphere": {}}]})"),
        "camera.up: must not be parallel");
    // A key given twice is refused, not last-wins; an unknown key is quoted in part, not echoed whole.
    EXPECT_LOAD_ERROR(dir.write("twice.json", R"({"meshes": [], "meshes": [{"sphere": {}}]})"),
                      "invalid JSON: key 'meshes' appears twice in one object");
    std::string big = load_error(dir.write("big.json", "{\"" + std::string(10 << 20, 'k') + "\": 1}"));
    EXPECT_NE(big.find("unknown key 'kkkk"), std::string::npos) << big.substr(0, 200);
    EXPECT_LT(big.size(), 500u);
    std::string name = load_error(dir.write("bigmat.json", R"({"materials": {")" + std::string(1 << 20, 'm') +
                                                               R"(": {"bogus": 1}}, "meshes": [{"sphere": {}}]})"));
    EXPECT_NE(name.find("unknown key 'bogus'"), std::string::npos) << name.substr(0, 200);
    EXPECT_LT(name.size(), 500u);
}

// ---- 4. Data lost or left behind ----

namespace {
const std::string kSphere = R"({"camera": {"eye": [0, 0, 4]}, "meshes": [{"sphere": {"subdivisions": 1}}]})";
}

TEST(HostileInput, OutputsNeverOverwriteInputs) {
    TempDir dir;
    dir.write("in_s.json", kSphere);
    std::string render = "render in_s.json --res 8x8 --spp 1 -q";
    expect_clean_failure(dir, render + " --stats in_s.json", 1, "--stats in_s.json: is the input");
    fs::create_hard_link(dir.file("in_s.json"), dir.file("in_hard.json"));
    expect_clean_failure(dir, render + " --stats in_hard.json", 1, "--stats in_hard.json: is the input");
    fs::create_symlink("in_s.json", dir.file("in_sym.json"));
    expect_clean_failure(dir, render + " --stats in_sym.json", 1, "is the input");
    EXPECT_EQ(read_text(dir.file("in_s.json")), kSphere) << "the scene is untouched";
    dir.write("in_tex.png", png_bytes(4, 4));
    textured_scene(dir, "in_t.json", "in_tex.png");
    expect_clean_failure(dir, "render in_t.json --res 8x8 --spp 1 -o in_tex.png", 1, "-o in_tex.png: is the input");
    expect_clean_failure(dir, "render in_t.json --res 8x8 --spp 1 -o ./in_tex.png", 1, "is the input");
    // Two outputs that are one file (hard links with different extensions).
    dir.write("in_o.png", "x");
    fs::create_hard_link(dir.file("in_o.png"), dir.file("in_o.pfm"));
    expect_clean_failure(dir, "render in_s.json --res 8x8 --spp 1 -q -o in_o.png --hdr in_o.pfm", 1,
                         "--hdr in_o.pfm: is the same file as -o");
    // Bench outputs too.
    expect_clean_failure(dir, "bench in_s.json --backend cpu --res 8x8 --repeat 1 --warmup 0 -q --json in_hard.json", 1,
                         "--json in_hard.json: is the input");
}

TEST(HostileInput, OutputsAreAllOrNothing) {
    TempDir dir;
    dir.write("in_s.json", kSphere);
    // The EXR's name is too long for the file system (256 bytes): its rename fails after the PNG's, and
    // no PNG may be left behind.
    std::string hdr = std::string(252, 'h') + ".exr";
    expect_clean_failure(dir, "render in_s.json --res 8x8 --spp 1 -q -o out.png --hdr " + hdr, 1, hdr);
    EXPECT_FALSE(fs::exists(dir.file("out.png")));
}

TEST(HostileInput, StaleTemporaryFilesOfDeadProcessesAreRemoved) {
    TempDir dir;
    dir.write("in_s.json", kSphere);
    dir.write(".out.png.pkrt-4194305.tmp", "left by a killed run");  // above Linux's largest PID: dead
    dir.write(".out.png.tmp4194306", "left by a killed run of an older pkrt");
    std::string live = ".out.png.pkrt-" + std::to_string(::getpid()) + ".tmp";
    dir.write(live, "being written by a live process");
    RunResult r = run_pkrt("render in_s.json --res 8x8 --spp 1 -q -o out.png", dir.path().string());
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_FALSE(fs::exists(dir.file(".out.png.pkrt-4194305.tmp")));
    EXPECT_FALSE(fs::exists(dir.file(".out.png.tmp4194306")));
    EXPECT_TRUE(fs::exists(dir.file(live))) << "a live process's file is not touched";
}

TEST(HostileInput, InterruptedRenderExitsWithTheSignalAndLeavesNothing) {
    for (int sig : {SIGINT, SIGTERM}) {
        TempDir dir;
        dir.write("in_s.json", kSphere);
        // A render of minutes, signalled after a moment.
        std::string cmd = "(" + shell_quote(PKRT_BINARY) +
                          " render in_s.json --backend cpu --res 512x512 --spp 100000 -q"
                          " -o out.png --hdr out.exr --stats out.json & p=$!; sleep 1; kill -" +
                          std::to_string(sig) + " $p; wait $p)";
        RunResult r = run_in(cmd, dir.path().string());
        EXPECT_EQ(r.code, 128 + sig) << r.err;
        for (const auto& e : dir.entries()) EXPECT_EQ(e.rfind("in_", 0), 0u) << "left behind: " << e;
    }
}

TEST(HostileInput, OutputSymlinkIsWrittenThrough) {
    TempDir dir;
    dir.write("in_s.json", kSphere);
    fs::create_directory(dir.file("images"));
    dir.write("images/target.png", "old");
    fs::create_symlink("images/target.png", dir.file("link.png"));
    RunResult r = run_pkrt("render in_s.json --res 8x8 --spp 1 -q -o link.png", dir.path().string());
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(fs::is_symlink(fs::symlink_status(dir.file("link.png")))) << "the link is kept";
    std::string png = read_text(dir.file("images/target.png"));
    EXPECT_EQ(png.substr(1, 3), "PNG") << "its target holds the image";
}

// Runs pkrt itself as the direct child (no shell between) and returns its exit status, stderr and peak
// resident set: wait4 reports that one process's own rusage, whatever else this test binary ran before.
static RunResult run_pkrt_measured(const std::vector<std::string>& args, const std::string& cwd, double& peak_bytes) {
    std::string err_path = cwd + "/.stderr";
    pid_t pid = ::fork();
    if (pid == 0) {
        if (::chdir(cwd.c_str()) != 0) ::_exit(126);
        int null_fd = ::open("/dev/null", O_RDWR);
        int err_fd = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (null_fd < 0 || err_fd < 0) ::_exit(126);
        ::dup2(null_fd, 0);
        ::dup2(null_fd, 1);
        ::dup2(err_fd, 2);
        std::vector<char*> argv{const_cast<char*>(PKRT_BINARY)};
        for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        ::execv(PKRT_BINARY, argv.data());
        ::_exit(127);
    }
    RunResult r;
    int status = 0;
    struct rusage ru {};
    if (pid > 0 && ::wait4(pid, &status, 0, &ru) == pid) {
        r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
        peak_bytes = ru.ru_maxrss * 1024.0;
    }
    r.err = read_text(err_path);
    std::error_code ec;
    fs::remove(err_path, ec);
    return r;
}

TEST(HostileInput, RenderNeedsNoMoreMemoryThanItSays) {
    TempDir dir;
    dir.write("in_big.json", R"({"camera": {"eye": [0, 0, 8]}, "meshes": [{"sphere": {"subdivisions": 7}},
        {"sphere": {"subdivisions": 7, "center": [2, 0, 0]}}, {"sphere": {"subdivisions": 7, "center": [-2, 0, 0]}}]})");
    double peak = 0.0;
    RunResult r = run_pkrt_measured({"render", "in_big.json", "--backend", "cpu", "--res", "256x256", "--spp", "1",
                                     "-o", "out.png", "--hdr", "out.exr"},
                                    dir.path().string(), peak);
    ASSERT_EQ(r.code, 0) << r.err;
    // "... (at most 123.4 MiB of host memory) ..."
    size_t at = r.err.find("(at most ");
    ASSERT_NE(at, std::string::npos) << r.err;
    double value = std::stod(r.err.substr(at + 9));
    std::string unit = r.err.substr(r.err.find(' ', at + 9) + 1, 3);
    double said = value * (unit == "GiB" ? 1073741824.0 : unit == "MiB" ? 1048576.0 : 1024.0);
    EXPECT_GT(peak, 0.0);
    EXPECT_LT(peak, said) << r.err;
}

TEST(HostileInput, ARenameFailingPartwayPutsTheEarlierOutputsBack) {
    TempDir dir;
    dir.write("in_s.json", kSphere);
    dir.write("b.png", "the old image");
    // The EXR's name is a directory: its temporary file is written, then the rename onto it fails after
    // the PNG was already renamed into place.
    fs::create_directory(dir.file("b.exr"));
    expect_clean_failure(dir, "render in_s.json --res 8x8 --spp 1 -q -o b.png --hdr b.exr", 1, "b.exr");
    EXPECT_EQ(read_text(dir.file("b.png")), "the old image");
    // Nothing else is left: no temporary file, no kept copy of the old image.
    EXPECT_EQ(dir.entries().size(), 3u) << "in_s.json, b.png and b.exr only";
    // And with no old file, the new one is removed again.
    fs::remove(dir.file("b.png"));
    expect_clean_failure(dir, "render in_s.json --res 8x8 --spp 1 -q -o b.png --hdr b.exr", 1, "b.exr");
    EXPECT_FALSE(fs::exists(dir.file("b.png")));
}

TEST(HostileInput, ImageSizeIsBudgetedBeforeRendering) {
    TempDir dir;
    dir.write("in_s.json", kSphere);
    // 16384 x 16384 needs about 16 GiB: refused at once, with the flag that raises the limit.
    expect_clean_failure(dir, "render in_s.json --res 16384x16384 --spp 1 -q -o out.png", 1, "--max-pixels");
    expect_clean_failure(dir, "bench in_s.json --backend cpu --res 16384x16384 --repeat 1 --warmup 0 -q", 1,
                         "--max-pixels");
    // A scene's own resolution is held to the same budget.
    dir.write("in_big.json", R"({"render": {"resolution": [16384, 16384]}, "meshes": [{"sphere": {}}]})");
    expect_clean_failure(dir, "render in_big.json --spp 1 -q -o out.png", 1, "in_big.json: render.resolution");
    // Raised, a small limit still holds and a render within it runs.
    expect_clean_failure(dir, "render in_s.json --res 64x64 --max-pixels 1000 --spp 1 -q -o out.png", 1,
                         "--max-pixels");
    RunResult r = run_pkrt("render in_s.json --res 16x16 --max-pixels 1000 --spp 1 -q -o out.png", dir.path().string());
    EXPECT_EQ(r.code, 0) << r.err;
}

// ---- Issue 33: keyframe files, glTF's nesting and bytes, output names and links ----

namespace {
const std::string kKeys = R"({"keys": [{"time": 0, "eye": [0, 0, 4], "look_at": [0, 0, 0]}]})";
const std::string kSequence = "render in_s.json --backend cpu --res 8x8 --spp 1 -q --frames 2 ";
}  // namespace

TEST(HostileInput, KeyframeFilesAreCheckedInputs) {
    TempDir dir;
    dir.write("in_s.json", kSphere);
    ASSERT_EQ(::mkfifo(dir.file("in_fifo.json").c_str(), 0600), 0);
    expect_clean_failure(dir, kSequence + "--camera-path in_fifo.json -o f%d.png", 1,
                         "in_fifo.json: is not a regular file");
    expect_clean_failure(dir, kSequence + "--camera-path /dev/zero -o f%d.png", 1, "/dev/zero: is not a regular file");
    fs::create_directory(dir.file("in_d"));
    expect_clean_failure(dir, kSequence + "--camera-path in_d -o f%d.png", 1, "in_d: is a directory");
    dir.write("in_garbage.json", kKeys + std::string("\0garbage", 8));
    expect_clean_failure(dir, kSequence + "--camera-path in_garbage.json -o f%d.png", 1,
                         "in_garbage.json: invalid JSON: NUL byte at offset");
    dir.write("in_trailing.json", kKeys + " {}");
    expect_clean_failure(dir, kSequence + "--camera-path in_trailing.json -o f%d.png", 1,
                         "in_trailing.json: invalid JSON: ");
    dir.write("in_twice.json", R"({"keys": [], "keys": [{"time": 0, "eye": [0, 0, 4], "look_at": [0, 0, 0]}]})");
    expect_clean_failure(dir, kSequence + "--camera-path in_twice.json -o f%d.png", 1, "key 'keys' appears twice");
    dir.write("in_bad.json", "{\"keys\": [");
    RunResult r = run_pkrt(kSequence + "--camera-path in_bad.json -o f%d.png", dir.path().string());
    EXPECT_EQ(r.err.find("json.exception"), std::string::npos) << "pkrt's words, not the library's: " << r.err;
    // The key file is an input: no output replaces it, by its name, a hard link or a frame's number.
    std::string keys = dir.write("in_k.json", kKeys);
    expect_clean_failure(dir, kSequence + "--camera-path in_k.json -o f%d.png --stats in_k.json", 1,
                         "--stats in_k.json: is the input in_k.json");
    fs::create_hard_link(keys, dir.file("in_hard.json"));
    expect_clean_failure(dir, kSequence + "--camera-path in_k.json -o f%d.png --stats in_hard.json", 1,
                         "is the input in_k.json");
    dir.write("in_k1.png", kKeys);
    expect_clean_failure(dir, kSequence + "--camera-path in_k1.png -o in_k%d.png", 1,
                         "-o in_k1.png: is the input in_k1.png");
    EXPECT_EQ(read_text(dir.file("in_k1.png")), kKeys);
    // 1e-50 degrees is not zero as a double, but is as a float: every frame would be the same.
    expect_clean_failure(dir, kSequence + "--camera-path orbit:1e-50 -o f%d.png", 1, "orbit:DEGREES");
}

TEST(HostileInput, DeeplyNestedGltfIsRefusedEverywhere) {
    TempDir dir;
    std::string deep = std::string(15000, '[') + std::string(15000, ']');
    dir.write("in_deep.gltf", R"({"asset": {"version": "2.0"}, "extras": )" + deep + "}");
    expect_clean_failure(dir, "render in_deep.gltf --backend cpu -o out.png", 1, "nested deeper than 128 levels");
    dir.write("in_deep.json", R"({"meshes": [{"gltf": "in_deep.gltf"}]})");
    expect_clean_failure(dir, "render in_deep.json --backend cpu -o out.png", 1, "nested deeper than 128 levels");
    expect_clean_failure(dir, "bench in_deep.gltf --backend cpu --res 8x8 --repeat 1 --warmup 0 -q", 1,
                         "nested deeper than 128 levels");
    dir.write("in_deepscene.json", R"({"meshes": [{"sphere": {}}], "x": )" + deep + "}");
    expect_clean_failure(dir, "render in_deepscene.json --backend cpu -o out.png", 1, "nested deeper than 128 levels");
}

TEST(HostileInput, GltfBytesAreBudgetedAcrossBuffers) {
    TempDir dir;
    // 150 buffers naming one 64 MB file: refused from their declared lengths, before any is read.
    std::string buffers;
    for (int i = 0; i < 150; ++i)
        buffers += std::string(i ? ", " : "") + R"({"byteLength": 67108864, "uri": "in.bin"})";
    dir.write("in.bin", "tiny");
    dir.write("in_many.gltf", R"({"asset": {"version": "2.0"}, "buffers": [)" + buffers + "]}");
    expect_clean_failure(dir, "render in_many.gltf --backend cpu -o out.png", 1, "raise it with --max-asset-bytes");
    // A buffer's file larger than what is left of the budget is not read whole.
    dir.write("in_big.bin", std::string(1 << 20, 'x'));
    dir.write("in_one.gltf", R"({"asset": {"version": "2.0"}, "buffers": [{"byteLength": 60, "uri": "in_big.bin"}]})");
    expect_clean_failure(dir, "render in_one.gltf --backend cpu --max-asset-bytes 100000 -o out.png", 1,
                         "in_big.bin: the scene would have");
}

TEST(HostileInput, JsonOutputsTakeNamesThatAreNotUtf8) {
    TempDir dir;
    std::string scene = "in_\xff\xfe.json", reference = "in_\xff.exr";
    dir.write(scene, kSphere);
    const std::string render = "render " + shell_quote(scene) + " --backend cpu --res 8x8 --spp 1 -q ";
    RunResult r = run_pkrt(render + "-o ref.png --hdr ref.exr", dir.path().string());
    ASSERT_EQ(r.code, 0) << r.err;
    fs::rename(dir.file("ref.exr"), dir.file(reference));
    // The reference's name goes into the statistics: writing them failed after the whole render.
    r = run_pkrt(render + "-o out.png --stats out.json --reference " + shell_quote(reference), dir.path().string());
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(nlohmann::json::accept(read_text(dir.file("out.json"))));
    r = run_pkrt("bench " + shell_quote(scene) + " --backend cpu --res 8x8 --repeat 1 --warmup 0 -q --json b.json",
                 dir.path().string());
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(nlohmann::json::accept(read_text(dir.file("b.json"))));
}

TEST(HostileInput, OutputNamesUpToTheLongestLegalOneAreWritten) {
    TempDir dir;
    dir.write("in_s.json", kSphere);
    for (size_t len : {250, 255}) {
        std::string name = std::string(len - 4, 'n') + ".png";
        RunResult r = run_pkrt("render in_s.json --backend cpu --res 8x8 --spp 1 -q -o " + name + " --hdr " +
                                   std::string(len - 4, 'h') + ".exr",
                               dir.path().string());
        EXPECT_EQ(r.code, 0) << r.err;
        EXPECT_EQ(read_text(dir.file(name)).substr(1, 3), "PNG");
        // Twice: the second write replaces the first through the kept old file's name.
        r = run_pkrt("render in_s.json --backend cpu --res 8x8 --spp 1 -q -o " + name, dir.path().string());
        EXPECT_EQ(r.code, 0) << r.err;
        std::string pattern = std::string(len - 5, 'f') + "%d.png";  // frames 0 and 1: len bytes
        r = run_pkrt(kSequence + "--camera-path orbit -o " + pattern, dir.path().string());
        EXPECT_EQ(r.code, 0) << r.err;
        EXPECT_TRUE(fs::exists(dir.file(std::string(len - 5, 'f') + "1.png")));
    }
    for (const auto& e : dir.entries()) EXPECT_NE(e.find(".tmp"), e.size() - 4) << "left behind: " << e;
}

TEST(HostileInput, DanglingOutputSymlinksKeepTheLink) {
    TempDir dir;
    dir.write("in_s.json", kSphere);
    fs::create_symlink("target.png", dir.file("link.png"));
    RunResult r = run_pkrt("render in_s.json --backend cpu --res 8x8 --spp 1 -q -o link.png", dir.path().string());
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(fs::is_symlink(fs::symlink_status(dir.file("link.png")))) << "the link stays";
    EXPECT_EQ(read_text(dir.file("target.png")).substr(1, 3), "PNG") << "its target gets the image";
    // A link into a folder that does not exist: one error before the render, the link untouched.
    TempDir other;
    other.write("in_s.json", kSphere);
    fs::create_symlink("in_missing/target.png", other.file("in_link.png"));
    expect_clean_failure(other, "render in_s.json --backend cpu -o in_link.png", 1, "does not exist");
    EXPECT_TRUE(fs::is_symlink(fs::symlink_status(other.file("in_link.png"))));
}

// ---- Issue 50: limits that hold at their bound ----

// Emission of exactly 1e20, the documented bound, loads (issue 50, class 6): the check ran after the value
// was rounded to float (1.00000002e20) and refused it as "at most 1e20". Just above it is still refused.
TEST(HostileInput, EmissionOfExactlyTheBoundLoads) {
    TempDir dir;
    EXPECT_EQ(load_error(dir.write("emit.json", R"({"materials": {"l": {"emission": [1e20, 1e20, 1e20]}},
        "meshes": [{"sphere": {}, "material": "l"}]})")),
              "");
    EXPECT_EQ(load_error(dir.write("env.json", R"({"environment": {"type": "constant", "color": 1e20},
        "meshes": [{"sphere": {}}]})")),
              "");
    EXPECT_LOAD_ERROR(
        dir.write("over.json",
                  R"({"materials": {"l": {"emission": 1.001e20}}, "meshes": [{"sphere": {}, "material": "l"}]})"),
        "materials.l.emission: must be at most 1e20");
}
