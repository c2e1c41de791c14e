// PLY meshes (render/scene/ply_loader.cpp behind render/scene/ply_scan.cpp): the three encodings, property types and
// spellings, polygons, what is ignored, scene JSON entries, a bare file, and the Stanford bunny.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "render/error.h"
#include "render/scene/loaders.h"
#include "render/scene/scene.h"
#include "tests/scene/test_ply_util.h"
#include "tests/test_render_util.h"
#include "tests/test_util.h"

using namespace pkrt;
using namespace pkrt_test;

namespace {

constexpr PlyEncoding kEncodings[] = {PlyEncoding::kAscii, PlyEncoding::kLittleEndian, PlyEncoding::kBigEndian};

// A unit quad (0 1 2 3) and a triangle (0 1 4) above it; the normals differ per vertex so that a vertex
// read from the wrong place shows, and the coordinates (0.1, 1/3) are not exact in binary.
PlyMesh quad_and_triangle() {
    PlyMesh m;
    m.vertices = {{{0.1, 0, 0}, {0, 0, 1}, {0.1, 0.25}},
                  {{1, 0, 0}, {0, 1, 0}, {1, 0}},
                  {{1, 1.0 / 3.0, 0}, {1, 0, 0}, {1, 1}},
                  {{0, 1, 0}, {0, 0, -1}, {0, 1.0 / 3.0}},
                  {{0.5, 0.5, 2}, {-1, 0, 0}, {0.5, 0.75}}};
    m.faces = {{0, 1, 2, 3}, {0, 1, 4}};
    return m;
}

Vec3 position(const PlyVertex& v) {
    return {static_cast<float>(v.p[0]), static_cast<float>(v.p[1]), static_cast<float>(v.p[2])};
}

void expect_vec3(Vec3 got, Vec3 want, const std::string& what) {
    EXPECT_EQ(got.x, want.x) << what;
    EXPECT_EQ(got.y, want.y) << what;
    EXPECT_EQ(got.z, want.z) << what;
}

// The triangles a mesh must become: each face fanned from its first corner, in file order.
void expect_mesh(const Scene& s, const PlyMesh& m, bool normals, bool uvs, const std::string& what) {
    size_t t = 0;
    for (const auto& f : m.faces) {
        for (size_t k = 1; k + 1 < f.size(); ++k, ++t) {
            ASSERT_LT(t, s.tris.size()) << what;
            const PlyVertex* v[3] = {&m.vertices[f[0]], &m.vertices[f[k]], &m.vertices[f[k + 1]]};
            const TriVerts& tv = s.tris[t];
            const TriShading& sh = s.shading[t];
            std::string tri = what + ", triangle " + std::to_string(t);
            expect_vec3(tv.v0, position(*v[0]), tri + " v0");
            expect_vec3(tv.v1, position(*v[1]), tri + " v1");
            expect_vec3(tv.v2, position(*v[2]), tri + " v2");
            const Vec3 n[3] = {sh.n0, sh.n1, sh.n2};
            const Vec2 uv[3] = {sh.uv0, sh.uv1, sh.uv2};
            for (int c = 0; c < 3; ++c) {
                Vec3 want_n = normals ? Vec3{static_cast<float>(v[c]->n[0]), static_cast<float>(v[c]->n[1]),
                                             static_cast<float>(v[c]->n[2])}
                                      : Vec3{0, 0, 0};
                expect_vec3(n[c], want_n, tri + " normal " + std::to_string(c));
                EXPECT_EQ(uv[c].x, uvs ? static_cast<float>(v[c]->uv[0]) : 0.0f) << tri << " u " << c;
                EXPECT_EQ(uv[c].y, uvs ? static_cast<float>(v[c]->uv[1]) : 0.0f) << tri << " v " << c;
            }
        }
    }
    EXPECT_EQ(s.tris.size(), t) << what;
}

Scene load(const std::string& path, size_t expect_added) {
    Scene s;
    EXPECT_EQ(load_ply(s, path, PlyOptions{}), expect_added) << path;
    return s;
}

}  // namespace

TEST(Ply, EncodingsAndValueTypesGiveTheSameTriangles) {
    TempDir dir;
    PlyMesh m = quad_and_triangle();
    for (PlyEncoding e : kEncodings) {
        for (const char* type : {"float", "double"}) {
            PlyLayout l;
            l.position_type = l.normal_type = l.uv_type = type;
            std::string name = std::string(ply_format_name(e)) + "_" + type + ".ply";
            Scene s = load(dir.write(name, ply_file(m, e, l)), 3);  // the quad is two triangles
            expect_mesh(s, m, true, true, name);
            EXPECT_TRUE(s.load_stats.warnings.empty()) << name << ": " << s.load_stats.warnings[0];
            ASSERT_EQ(s.materials.size(), 1u) << "a PLY has no materials: the default";
            EXPECT_EQ(s.shading[0].material, 0);
        }
    }
}

TEST(Ply, BinaryDataMayStartWithALineFeed) {
    // assimp drops a first data byte of 0x0a (taking it for the LF of a CR LF header) and reads every
    // value after it a byte off. x = 1.0000012f is 0a 00 80 3f little-endian; 6.162976e-33f is 0a 00 00 00
    // big-endian.
    TempDir dir;
    PlyMesh m;
    m.vertices = {{{1.0000011920928955, 0, 0}}, {{2, 0, 0}}, {{0, 2, 0}}};
    m.faces = {{0, 1, 2}};
    Scene s = load(dir.write("lf.ply", ply_file(m, PlyEncoding::kLittleEndian)), 1);
    expect_mesh(s, m, false, false, "lf.ply");
    PlyMesh b = m;
    b.vertices[0].p[0] = 6.162975822039155e-33;
    Scene t = load(dir.write("lf_be.ply", ply_file(b, PlyEncoding::kBigEndian)), 1);
    expect_mesh(t, b, false, false, "lf_be.ply");
}

TEST(Ply, ElementsInAnyOrderAndIgnoredLists) {
    // Faces before vertices (assimp needs the vertices first: it is given them first), an element in
    // between, and lists in the vertex element that are walked past.
    TempDir dir;
    PlyMesh m = quad_and_triangle();
    for (PlyEncoding e : kEncodings) {
        std::string h = "ply\nformat " + std::string(ply_format_name(e)) +
                        " 1.0\nelement face 2\n"
                        "property uchar flags\nproperty list uchar uint vertex_indices\nproperty list int double w\n"
                        "element material 1\nproperty float shininess\nelement vertex 5\n"
                        "property list ushort int extra\n"
                        "property double x\nproperty double y\nproperty double z\nend_header\n";
        std::string body;
        auto record_end = [&]() {
            if (e == PlyEncoding::kAscii) body += "\n";
        };
        for (const auto& f : m.faces) {
            put_ply_value(body, e, "uchar", 7);
            put_ply_value(body, e, "uchar", static_cast<double>(f.size()));
            for (int64_t i : f) put_ply_value(body, e, "uint", static_cast<double>(i));
            put_ply_value(body, e, "int", 2);
            put_ply_value(body, e, "double", 0.5);
            put_ply_value(body, e, "double", -1e300);
            record_end();
        }
        put_ply_value(body, e, "float", 30);
        record_end();
        for (size_t v = 0; v < m.vertices.size(); ++v) {
            put_ply_value(body, e, "ushort", static_cast<double>(v % 3));
            for (size_t k = 0; k < v % 3; ++k) put_ply_value(body, e, "int", 10 + k);
            for (double c : m.vertices[v].p) put_ply_value(body, e, "double", c);
            record_end();
        }
        std::string name = std::string("order_") + ply_format_name(e) + ".ply";
        Scene s = load(dir.write(name, h + body), 3);
        expect_mesh(s, m, false, false, name);
        EXPECT_EQ(s.load_stats.warnings.size(), 4u) << name;  // material; vertex 'extra'; face 'flags', 'w'
    }
}

TEST(Ply, ListAndPositionTypes) {
    TempDir dir;
    PlyMesh m;
    m.vertices = {{{0, 0, 0}}, {{2, 0, 0}}, {{3, 2, 0}}, {{1, 3, 0}}, {{-1, 2, 0}}, {{1, 1, -2}}};
    m.faces = {{0, 1, 2, 3, 4}, {0, 1, 5}, {5, 4, 3}};
    const char* lists[][2] = {{"uchar", "int"},  {"int", "uint"},    {"ushort", "ushort"},
                              {"char", "short"}, {"uint8", "int32"}, {"uint", "uchar"}};
    for (PlyEncoding e : kEncodings) {
        for (const auto& types : lists) {
            for (const char* pos : {"float", "short", "char", "int"}) {
                PlyLayout l;
                l.count_type = types[0];
                l.index_type = types[1];
                l.position_type = pos;
                std::string name =
                    std::string(ply_format_name(e)) + "_" + types[0] + "_" + types[1] + "_" + pos + ".ply";
                Scene s = load(dir.write(name, ply_file(m, e, l)), 5);  // a pentagon is three triangles
                expect_mesh(s, m, false, false, name);
            }
        }
    }
}

TEST(Ply, TextureCoordinateSpellingsAndVertexIndex) {
    TempDir dir;
    PlyMesh m = quad_and_triangle();
    const char* names[][2] = {{"u", "v"}, {"s", "t"}, {"texture_u", "texture_v"}, {"texture_s", "texture_t"}};
    for (PlyEncoding e : kEncodings) {
        for (const auto& uv : names) {
            PlyLayout l;
            l.uv_type = "float";
            l.uv_names[0] = uv[0];
            l.uv_names[1] = uv[1];
            l.index_name = "vertex_index";
            std::string name = std::string(ply_format_name(e)) + "_" + uv[0] + ".ply";
            Scene s = load(dir.write(name, ply_file(m, e, l)), 3);
            expect_mesh(s, m, false, true, name);
        }
    }
}

TEST(Ply, IgnoredContentIsOneWarningPerKind) {
    TempDir dir;
    // pbrt-v4's faces carry face_indices; colours, an edge and a tristrips element are loaded past.
    std::string ascii =
        "ply\nformat ascii 1.0\nobj_info from a scanner\nelement vertex 4\nproperty float x\nproperty float y\n"
        "property float z\nproperty uchar red\nproperty uchar green\nproperty uchar blue\nproperty float confidence\n"
        "element face 2\nproperty list uchar int vertex_indices\nproperty int face_indices\n"
        "element edge 2\nproperty int vertex1\nproperty int vertex2\n"
        "element tristrips 1\nproperty list int int vertex_indices\nend_header\n"
        "0 0 0 255 0 0 1\n1 0 0 0 255 0 1\n1 1 0 0 0 255 1\n0 1 0 9 9 9 0.5\n"
        "3 0 1 2 0\n3 0 2 3 7\n0 1\n1 2\n4 0 1 2 3\n";
    Scene s = load(dir.write("scan.ply", ascii), 2);
    const std::string p = dir.file("scan.ply") + ": ";
    std::vector<std::string> want = {
        p + "'edge' elements ignored", p + "'tristrips' elements ignored (triangle strips are not supported)",
        p + "'red/green/blue' vertex colours ignored", p + "vertex properties 'confidence' ignored",
        p + "'face_indices' face property ignored (per-face material indices)"};
    EXPECT_EQ(s.load_stats.warnings, want);
    expect_vec3(s.tris[1].v2, Vec3{0, 1, 0}, "second face's last corner");
}

TEST(Ply, NonFiniteVerticesAreKeptAndTheirTrianglesCounted) {
    TempDir dir;
    PlyMesh m;
    m.vertices = {{{0, 0, 0}}, {{1, 0, 0}}, {{0, 1, 0}}, {{NAN, 0, 0}}, {{0, INFINITY, 0}}, {{2, 0, 0}}};
    m.faces = {{0, 1, 2}, {0, 1, 3}, {0, 4, 2}, {0, 1, 5}};  // good, NaN, inf, zero area
    for (PlyEncoding e : {PlyEncoding::kLittleEndian, PlyEncoding::kBigEndian}) {
        Scene s = load(dir.write("nf.ply", ply_file(m, e)), 1);
        EXPECT_EQ(s.load_stats.nonfinite_triangles, 2u);
        EXPECT_EQ(s.load_stats.degenerate_triangles, 1u);
    }
    // ASCII spells them nan and inf; 1e39 is beyond float, so infinite too.
    std::string ascii = ply_header(m, PlyEncoding::kAscii, {}) +
                        "0 0 0\n1 0 0\n0 1 0\nnan 0 0\n0 1e39 0\n2 0 0\n3 0 1 2\n3 0 1 3\n3 0 4 2\n3 0 1 5\n";
    Scene s = load(dir.write("nf_ascii.ply", ascii), 1);
    EXPECT_EQ(s.load_stats.nonfinite_triangles, 2u);
    EXPECT_EQ(s.load_stats.degenerate_triangles, 1u);
}

TEST(Ply, AsciiNumbersAreCorrectlyRounded) {
    // assimp's own ASCII reader is off by an ulp or more on many numbers with 8 significant digits
    // (8.8392967e+03 came back as 8839.2959, not 8839.29688): the strict pass's values are the ones used.
    TempDir dir;
    PlyMesh m;
    m.vertices = {{{8.8392967e+03, 0, 0}}, {{0, 2.5904798e-03, 0}}, {{0, 0, 9.4214052e+08}}};
    m.faces = {{0, 1, 2}};
    std::string ascii =
        ply_header(m, PlyEncoding::kAscii, {}) + "8.8392967e+03 0 0\n0 2.5904798e-03 0\n0 0 9.4214052e+08\n3 0 1 2\n";
    Scene s = load(dir.write("round.ply", ascii), 1);
    ASSERT_EQ(s.tris.size(), 1u);
    EXPECT_EQ(s.tris[0].v0.x, 8.8392967e+03f);
    EXPECT_EQ(s.tris[0].v1.y, 2.5904798e-03f);
    EXPECT_EQ(s.tris[0].v2.z, 9.4214052e+08f);
}

// Blank lines (assimp would take two in a row, or one of spaces, for a record), tabs, trailing spaces
// and a last line without its newline.
TEST(Ply, CrLfAsciiAndWhitespace) {
    TempDir dir;
    PlyMesh m = quad_and_triangle();
    std::string text = ply_file(m, PlyEncoding::kAscii);
    std::string crlf;
    for (char c : text) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
    Scene s = load(dir.write("crlf.ply", crlf), 3);
    expect_mesh(s, m, false, false, "crlf.ply");
    std::string spaced = ply_header(m, PlyEncoding::kAscii, {}) +
                         "  0.1\t0 0 \n1 0 0\n\n\n1 0.33333333333333331 0\n  \t\n0 1 0\n0.5 0.5 2\n"
                         "4 0 1 2 3\n \n3 0 1 4";
    Scene t = load(dir.write("spaced.ply", spaced), 3);
    expect_mesh(t, m, false, false, "spaced.ply");
}

TEST(Ply, LargeMeshesReadTheSameInEveryEncoding) {
    // More than assimp's 1 MiB read buffer in each encoding, so that records cross its block boundaries.
    TempDir dir;
    PlyMesh m;
    const int n = 160;
    for (int y = 0; y <= n; ++y)
        for (int x = 0; x <= n; ++x) m.vertices.push_back({{x * 0.1, y * 0.1, std::sin(x * 0.3) * std::cos(y * 0.2)}});
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x) {
            int64_t i = y * (n + 1) + x;
            m.faces.push_back({i, i + 1, i + n + 2, i + n + 1});
        }
    PlyLayout l;
    l.position_type = "double";
    for (PlyEncoding e : kEncodings) {
        std::string bytes = ply_file(m, e, l);
        ASSERT_GT(bytes.size(), size_t(1) << 20) << ply_format_name(e);
        std::string name = std::string("grid_") + ply_format_name(e) + ".ply";
        Scene s = load(dir.write(name, bytes), 2 * n * n);
        expect_mesh(s, m, false, false, name);
    }
}

TEST(Ply, SceneJsonEntryTakesTransformAndMaterial) {
    TempDir dir;
    PlyMesh m = quad_and_triangle();
    PlyLayout l;
    l.normal_type = "float";
    dir.write("m.ply", ply_file(m, PlyEncoding::kBigEndian, l));
    dir.write("s.json", R"({"materials": {"red": {"albedo": [0.8, 0.1, 0.1]}},
        "meshes": [{"ply": "m.ply", "material": "red", "transform": {"translate": [1, 2, 3], "scale": 2,
                                                                     "rotate": [90, 0, 0, 1]}},
                   {"ply": "m.ply"}]})");
    Scene s = load_scene(dir.file("s.json"));
    ASSERT_EQ(s.tris.size(), 6u);
    ASSERT_EQ(s.materials.size(), 2u);  // red, and the default for the entry without a material
    EXPECT_EQ(s.shading[0].material, 0);
    EXPECT_EQ(s.shading[3].material, 1);
    EXPECT_EQ(s.material_names[1], "default");
    // (x, y, z) -> 2 (-y, x, z) + (1, 2, 3): vertex 4 (0.5, 0.5, 2) is at (0, 3, 7).
    Vec3 top = s.tris[2].v2;
    EXPECT_NEAR(top.x, 0.0f, 1e-6f);
    EXPECT_NEAR(top.y, 3.0f, 1e-6f);
    EXPECT_NEAR(top.z, 7.0f, 1e-6f);
    // The normal (1, 0, 0) of vertex 2 turns to (0, 1, 0); the untransformed copy keeps it.
    EXPECT_NEAR(s.shading[0].n2.x, 0.0f, 1e-6f);
    EXPECT_NEAR(s.shading[0].n2.y, 1.0f, 1e-6f);
    expect_vec3(s.shading[3].n2, Vec3{1, 0, 0}, "untransformed normal");
    expect_vec3(s.tris[5].v2, Vec3{0.5f, 0.5f, 2}, "untransformed vertex");
    EXPECT_EQ(s.inputs.size(), 3u) << "the scene and the PLY, once per entry";

    dir.write("bad.json", R"({"meshes": [{"ply": "missing.ply"}]})");
    EXPECT_NE(load_error(dir.file("bad.json")).find("meshes[0]: " + dir.file("missing.ply") + ": no such file"),
              std::string::npos)
        << load_error(dir.file("bad.json"));
    dir.write("two.json", R"({"meshes": [{"ply": "m.ply", "obj": "m.obj"}]})");
    EXPECT_NE(load_error(dir.file("two.json")).find("needs exactly one of \"obj\", \"ply\""), std::string::npos);
}

TEST(Ply, BareFileGetsASkyAndACamera) {
    TempDir dir;
    PlyMesh m = quad_and_triangle();
    Scene s = load_scene(dir.write("m.PLY", ply_file(m, PlyEncoding::kLittleEndian)));
    EXPECT_EQ(s.tris.size(), 3u);
    EXPECT_EQ(s.environment.type, kEnvSky);
    // Looking at the centre of the bounding box (0..1, 0..1, 0..2).
    expect_vec3(s.camera.look_at, Vec3{0.5f, 0.5f, 1.0f}, "look_at");
    EXPECT_GT(s.camera.eye.z, 2.0f);
}

TEST(Ply, StanfordBunnyAsBinaryPly) {
    // No PLY is among the shared scenes: the bunny's OBJ, written out as a binary PLY, must load to the
    // same 69,451 triangles.
    REQUIRE_SHARED_SCENE("stanford-bunny/stanford-bunny.obj");
    Scene obj;
    load_obj(obj, shared_scene("stanford-bunny/stanford-bunny.obj"), ObjOptions{});
    ASSERT_EQ(obj.tris.size(), 69451u);
    PlyMesh m;
    for (const auto& t : obj.tris) {
        int64_t base = static_cast<int64_t>(m.vertices.size());
        for (Vec3 p : {t.v0, t.v1, t.v2}) m.vertices.push_back({{p.x, p.y, p.z}});
        m.faces.push_back({base, base + 1, base + 2});
    }
    TempDir dir;
    for (PlyEncoding e : {PlyEncoding::kLittleEndian, PlyEncoding::kAscii}) {
        Scene s = load(dir.write("bunny.ply", ply_file(m, e)), 69451);
        ASSERT_EQ(s.tris.size(), obj.tris.size());
        for (size_t i = 0; i < s.tris.size(); ++i) {
            ASSERT_EQ(s.tris[i].v0.x, obj.tris[i].v0.x) << i;
            ASSERT_EQ(s.tris[i].v1.y, obj.tris[i].v1.y) << i;
            ASSERT_EQ(s.tris[i].v2.z, obj.tris[i].v2.z) << i;
        }
    }
}
