// glTF 2.0: the Khronos sample models in ../shared/scenes/gltf (counts from its README), what each one
// exercises (sparse accessors, negative scale, cameras, emissive strength, texture transforms), texture
// sampling (wrap modes, colour spaces, uv transforms) and hostile files generated here.
#include <gtest/gtest.h>
#include <png.h>

#include <cmath>
#include <cstring>

#include "kernels/traversal/bvh_traverse.h"
#include "kernels/shading/camera.h"
#include "render/backend.h"
#include "render/error.h"
#include "render/scene/loaders.h"
#include "render/scene/scene.h"
#include "tests/cli/test_cli_util.h"
#include "tests/test_render_util.h"
#include "tests/test_util.h"

using namespace pkrt;
using namespace pkrt_test;

namespace {

const std::string kGltf = "gltf/";

struct ModelCase {
    const char* file;
    size_t scene_tris;  // README: triangles reached from the default scene
    size_t materials;   // the file's, plus glTF's default material where a primitive has none
    size_t images;
    size_t cameras;  // perspective cameras placed by nodes (Cameras.gltf's second is orthographic)
};

const ModelCase kModels[] = {
    {"DamagedHelmet/glTF/DamagedHelmet.gltf", 15452, 1, 5, 0},
    {"DamagedHelmet/glTF-Binary/DamagedHelmet.glb", 15452, 1, 5, 0},
    {"MetalRoughSpheresNoTextures/glTF/MetalRoughSpheresNoTextures.gltf", 1040409, 99, 0, 0},
    {"TransmissionTest/glTF/TransmissionTest.gltf", 128775, 14, 9, 1},
    {"TransmissionRoughnessTest/glTF/TransmissionRoughnessTest.gltf", 77792, 9, 5, 0},
    {"GlassVaseFlowers/glTF/GlassVaseFlowers.gltf", 14036, 3, 4, 0},
    {"EmissiveStrengthTest/glTF/EmissiveStrengthTest.gltf", 90, 6, 1, 0},
    {"ToyCar/glTF/ToyCar.gltf", 108936, 3, 8, 8},
    {"Cameras/glTF/Cameras.gltf", 2, 1, 0, 1},
    {"Box/glTF/Box.gltf", 12, 1, 0, 0},
    {"Box/glTF-Binary/Box.glb", 12, 1, 0, 0},
    {"BoxTextured/glTF/BoxTextured.gltf", 12, 1, 1, 0},
    {"BoxTextured/glTF-Binary/BoxTextured.glb", 12, 1, 1, 0},
    {"SimpleSparseAccessor/glTF/SimpleSparseAccessor.gltf", 12, 1, 0, 0},
    {"TextureTransformTest/glTF/TextureTransformTest.gltf", 24, 9, 5, 0},
    {"NegativeScaleTest/glTF/NegativeScaleTest.gltf", 7724, 6, 2, 0},
    {"OrientationTest/glTF/OrientationTest.gltf", 524, 7, 0, 0},
    {"NormalTangentMirrorTest/glTF/NormalTangentMirrorTest.gltf", 5240, 1, 3, 0},
};

Scene load_model(const std::string& rel) { return load_scene(shared_scene(kGltf + rel)); }

}  // namespace

class GltfModel : public ::testing::TestWithParam<ModelCase> {};

TEST_P(GltfModel, LoadsWithItsCountsAndRendersFinite) {
    const ModelCase& c = GetParam();
    REQUIRE_SHARED_SCENE(kGltf + c.file);
    Scene s = load_model(c.file);
    size_t dropped = s.load_stats.degenerate_triangles + s.load_stats.nonfinite_triangles;
    EXPECT_EQ(s.tris.size() + dropped, c.scene_tris);
    EXPECT_LE(dropped, c.scene_tris / 100) << "more than 1% of the triangles dropped";
    EXPECT_EQ(s.materials.size(), c.materials);
    EXPECT_EQ(s.textures.size(), c.images);
    EXPECT_EQ(s.cameras.size(), c.cameras);
    for (const auto& v : s.texture_views) EXPECT_LT(static_cast<size_t>(v.image), s.textures.size());
    prepare_scene(s);
    auto backend = make_cpu_backend(2);
    bool big = c.scene_tris > 200000;
    RenderOutput out = render_image(*backend, s, settings(big ? 12 : 24, big ? 12 : 24, 2, 3, 7), nullptr);
    double sum = 0;
    for (const auto& p : out.image.pixels) {
        ASSERT_TRUE(all_finite(p)) << "a non-finite pixel";
        sum += p.x + p.y + p.z;
    }
    EXPECT_GT(sum, 0.0) << "an all-black image";
    EXPECT_EQ(out.stats.nonfinite_samples, 0u);
}

INSTANTIATE_TEST_SUITE_P(Khronos, GltfModel, ::testing::ValuesIn(kModels), [](const auto& info) {
    std::string name = info.param.file;
    std::string out;
    for (char ch : name.substr(name.rfind('/') + 1)) out += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
    return out;
});

// Five cubes emitting (0.1, 0.5, 0.9) at strengths 1, 2, 4, 8, 16: the radiance measured by a camera
// looking straight at each one (emitters only) follows the strengths.
TEST(Gltf, EmissiveStrengthRadianceRatios) {
    const char* rel = "EmissiveStrengthTest/glTF/EmissiveStrengthTest.gltf";
    REQUIRE_SHARED_SCENE(kGltf + rel);
    Scene s = load_model(rel);
    prepare_scene(s);
    auto backend = make_cpu_backend(2);
    std::map<std::string, double> measured;
    for (size_t mi = 0; mi < s.materials.size(); ++mi) {
        if (!is_emissive(s.materials[mi])) continue;
        size_t tri = 0;
        while (tri < s.shading.size() && s.shading[tri].material != static_cast<int32_t>(mi)) ++tri;
        ASSERT_LT(tri, s.shading.size());
        const TriVerts& t = s.tris[tri];
        Vec3 centre = (t.v0 + t.v1 + t.v2) * (1.0f / 3.0f);
        Vec3 n = normalize(cross(t.v1 - t.v0, t.v2 - t.v0));
        CameraSpec cam;
        cam.eye = centre + n * 0.05f;
        cam.look_at = centre;
        cam.up = std::fabs(n.y) > 0.9f ? Vec3{1, 0, 0} : Vec3{0, 1, 0};
        cam.vfov_degrees = 1.0f;
        RenderOutput out = render_view(*backend, s, cam, settings(4, 4, 4, 0, 7), nullptr);
        double g = 0;
        for (const auto& p : out.image.pixels) g += p.y;
        measured[s.material_names[mi]] = g / out.image.pixels.size();
    }
    ASSERT_EQ(measured.size(), 5u);
    double one = measured["Emit1"];
    EXPECT_NEAR(one, 0.5, 0.005) << "emissiveFactor's green";
    for (int k : {2, 4, 8, 16}) EXPECT_NEAR(measured["Emit" + std::to_string(k)] / one, k, 0.01 * k) << "Emit" << k;
}

// The file's perspective camera sits at (0.5, 0.5, 3) looking down -z at the quad: its centre ray hits.
TEST(Gltf, CameraFromTheFileFramesTheGeometry) {
    const char* rel = "Cameras/glTF/Cameras.gltf";
    REQUIRE_SHARED_SCENE(kGltf + rel);
    Scene s = load_model(rel);
    ASSERT_EQ(s.cameras.size(), 1u);
    EXPECT_NEAR(s.camera.eye.x, 0.5f, 1e-4f);
    EXPECT_NEAR(s.camera.eye.y, 0.5f, 1e-4f);
    EXPECT_NEAR(s.camera.eye.z, 3.0f, 1e-4f);
    EXPECT_NEAR(s.camera.vfov_degrees, 0.7f * 180.0f / kPi, 1e-3f);
    EXPECT_LT(s.camera.look_at.z, s.camera.eye.z);
    EXPECT_EQ(s.load_stats.warnings.size(), 1u) << "one warning: the orthographic camera";
    prepare_scene(s);
    SceneView v = view_scene(s);
    CameraView cv = make_camera_view(s.camera, 64, 64);
    Hit h = intersect_closest(v.bvh, camera_ray(cv, 64, 64, 32, 32, 0.0f, 0.0f, 0.5f, 0.5f));
    EXPECT_GE(h.prim, 0) << "the centre pixel misses the geometry";
    Hit corner = intersect_closest(v.bvh, camera_ray(cv, 64, 64, 0, 0, 0.5f, 0.5f, 0.5f, 0.5f));
    EXPECT_LT(corner.prim, 0) << "the corner should see past the unit quad";
}

TEST(Gltf, CamerasByIndexAndName) {
    const char* rel = "ToyCar/glTF/ToyCar.gltf";
    REQUIRE_SHARED_SCENE(kGltf + rel);
    Scene s = load_model(rel);
    ASSERT_EQ(s.cameras.size(), 8u);
    EXPECT_EQ(s.cameras[0].name, "Camera001");
    select_camera(s, "Camera002");
    EXPECT_NEAR(s.camera.eye.x, -0.0433f, 2e-4f);
    EXPECT_NEAR(s.camera.eye.y, 0.0236f, 2e-4f);
    EXPECT_NEAR(s.camera.eye.z, 0.0761f, 2e-4f);
    Vec3 dir = normalize(s.camera.look_at - s.camera.eye);
    Vec3 want = normalize(Vec3{0.0053f, -0.0008f, -0.0048f} - Vec3{-0.0433f, 0.0236f, 0.0761f});
    EXPECT_GT(dot(dir, want), 0.999f);
    select_camera(s, "2");
    EXPECT_EQ(s.camera.eye.x, s.cameras[2].spec.eye.x);
    try {
        select_camera(s, "Camera009");
        FAIL() << "an unknown camera was accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("0 'Camera001'"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("7 'Camera008'"), std::string::npos) << e.what();
    }
    EXPECT_THROW(select_camera(s, "8"), Error);
}

TEST(Gltf, TransmissionTestCameraAndDielectrics) {
    const char* rel = "TransmissionTest/glTF/TransmissionTest.gltf";
    REQUIRE_SHARED_SCENE(kGltf + rel);
    Scene s = load_model(rel);
    ASSERT_EQ(s.cameras.size(), 1u);
    EXPECT_EQ(s.cameras[0].name, "render_camera");
    EXPECT_NEAR(s.camera.vfov_degrees, 34.5f, 0.1f);
    Vec3 dir = normalize(s.camera.look_at - s.camera.eye);
    EXPECT_GT(dot(dir, normalize(Vec3{-0.0385f, -0.1404f, -0.9893f})), 0.9999f);
    int glass = 0;
    for (const auto& m : s.materials) glass += m.type == kDielectric;
    EXPECT_GT(glass, 0);
}

// A mirroring node flips the winding: the front face (by winding) agrees with the vertex normals.
TEST(Gltf, NegativeScaleKeepsFrontFacesOutward) {
    const char* rel = "NegativeScaleTest/glTF/NegativeScaleTest.gltf";
    REQUIRE_SHARED_SCENE(kGltf + rel);
    Scene s = load_model(rel);
    size_t agree = 0, with_normals = 0;
    for (size_t i = 0; i < s.tris.size(); ++i) {
        const TriShading& sh = s.shading[i];
        Vec3 n = sh.n0 + sh.n1 + sh.n2;
        if (is_black(n)) continue;
        ++with_normals;
        const TriVerts& t = s.tris[i];
        agree += dot(cross(t.v1 - t.v0, t.v2 - t.v0), n) > 0.0f;
    }
    ASSERT_GT(with_normals, 7000u);
    EXPECT_GE(agree, with_normals * 99 / 100);
}

TEST(Gltf, SparseAccessorValuesApplied) {
    const char* rel = "SimpleSparseAccessor/glTF/SimpleSparseAccessor.gltf";
    REQUIRE_SHARED_SCENE(kGltf + rel);
    Scene s = load_model(rel);
    auto has = [&](Vec3 p) {
        for (const auto& t : s.tris)
            for (Vec3 v : {t.v0, t.v1, t.v2})
                if (length(v - p) < 1e-6f) return true;
        return false;
    };
    // Base vertices 8, 10 and 12 at (1, 1), (3, 1), (5, 1) are replaced by peaks.
    EXPECT_TRUE(has({1, 2, 0}));
    EXPECT_TRUE(has({3, 3, 0}));
    EXPECT_TRUE(has({5, 4, 0}));
    EXPECT_FALSE(has({1, 1, 0}));
    EXPECT_FALSE(has({3, 1, 0}));
    EXPECT_FALSE(has({5, 1, 0}));
    EXPECT_TRUE(has({2, 1, 0})) << "vertices the sparse part does not name keep their base values";
}

TEST(Gltf, TangentsOnlyWithNormalMaps) {
    REQUIRE_SHARED_SCENE(kGltf + "Box/glTF/Box.gltf");
    Scene box = load_model("Box/glTF/Box.gltf");
    prepare_scene(box);
    EXPECT_TRUE(box.tangents.empty());
    EXPECT_EQ(view_scene(box).tangents, nullptr);
    for (const char* rel :
         {"NormalTangentMirrorTest/glTF/NormalTangentMirrorTest.gltf", "DamagedHelmet/glTF/DamagedHelmet.gltf"}) {
        SCOPED_TRACE(rel);
        REQUIRE_SHARED_SCENE(kGltf + rel);
        Scene s = load_model(rel);
        prepare_scene(s);
        ASSERT_EQ(s.tangents.size(), s.tris.size());
        size_t unit = 0, mirrored = 0;
        for (const auto& t : s.tangents) {
            unit += std::fabs(length(t.t0) - 1.0f) < 1e-3f;
            mirrored += t.w0 < 0.0f;
        }
        EXPECT_GE(unit, s.tris.size() * 95 / 100) << "tangents from the file (Mirror test) or generated (Helmet)";
        if (std::string(rel).find("Mirror") != std::string::npos) {
            EXPECT_GT(mirrored, 0u) << "mirrored UVs: w = -1";
        }
    }
}

TEST(Gltf, JsonSceneEntryWithTransform) {
    REQUIRE_SHARED_SCENE(kGltf + "Box/glTF/Box.gltf");
    TempDir dir;
    std::string scene = dir.write("s.json", R"({"meshes": [{"gltf": ")" + shared_scene(kGltf + "Box/glTF/Box.gltf") +
                                                R"(", "transform": {"translate": [10, 0, 0]}}]})");
    Scene s = load_scene(scene);
    ASSERT_EQ(s.tris.size(), 12u);
    Vec3 lo = splat(1e30f), hi = splat(-1e30f);
    for (const auto& t : s.tris)
        for (Vec3 v : {t.v0, t.v1, t.v2}) {
            lo = vmin(lo, v);
            hi = vmax(hi, v);
        }
    EXPECT_NEAR(lo.x, 9.5f, 1e-5f);
    EXPECT_NEAR(hi.x, 10.5f, 1e-5f);
    ASSERT_EQ(s.inputs.size(), 3u) << "scene, .gltf and its .bin: every file read is an input";
    EXPECT_NE(s.inputs[2].path.find("Box0.bin"), std::string::npos) << s.inputs[2].path;
    std::string e = load_error(dir.write("t.json", R"({"meshes": [{"gltf": "missing.glb"}]})"));
    EXPECT_NE(e.find("meshes[0]: "), std::string::npos) << e;
    EXPECT_NE(e.find("missing.glb: no such file"), std::string::npos) << e;
}

// ---- texture sampling ----

namespace {
// 4x1 texels, red channel 0, 80, 160, 240 left to right.
struct Strip {
    uint32_t texels[4] = {0xff000000u, 0xff000050u, 0xff0000a0u, 0xff0000f0u};
    TextureView view(int32_t wrap, int32_t srgb = 0) {
        TextureView v = default_texture_view(0);
        v.texels = texels;
        v.width = 4;
        v.height = 1;
        v.wrap_u = v.wrap_v = wrap;
        v.srgb = srgb;
        return v;
    }
};
float red_at(const TextureView& v, float u) { return texture_sample(v, u, 0.5f).x * 255.0f; }
}  // namespace

TEST(TextureSampling, WrapModes) {
    Strip s;
    TextureView rep = s.view(kWrapRepeat), clamp = s.view(kWrapClamp), mirror = s.view(kWrapMirror);
    // Texel centres at u = 1/8, 3/8, 5/8, 7/8.
    EXPECT_NEAR(red_at(rep, 0.375f), 80.0f, 1e-3f);
    EXPECT_NEAR(red_at(rep, 1.375f), 80.0f, 1e-3f);
    EXPECT_NEAR(red_at(rep, -0.625f), 80.0f, 1e-3f);
    EXPECT_NEAR(red_at(rep, 0.0f), 120.0f, 1e-3f) << "repeat blends the last and the first texel at the edge";
    EXPECT_NEAR(red_at(clamp, 0.0f), 0.0f, 1e-3f);
    EXPECT_NEAR(red_at(clamp, 1.7f), 240.0f, 1e-3f);
    EXPECT_NEAR(red_at(clamp, -3.0f), 0.0f, 1e-3f);
    EXPECT_NEAR(red_at(mirror, 1.125f), 240.0f, 1e-3f) << "just past 1 mirrors back to the last texel";
    EXPECT_NEAR(red_at(mirror, 1.375f), 160.0f, 1e-3f);
    EXPECT_NEAR(red_at(mirror, -0.375f), 80.0f, 1e-3f);
    EXPECT_NEAR(red_at(mirror, 2.375f), 80.0f, 1e-3f);
    for (TextureView v : {rep, clamp, mirror}) {  // huge coordinates stay within the image
        float r = red_at(v, 3e9f);
        EXPECT_TRUE(r >= 0.0f && r <= 240.001f) << r;
    }
}

TEST(TextureSampling, ColourSpaces) {
    Strip s;
    TextureView lin = s.view(kWrapClamp, 0), srgb = s.view(kWrapClamp, 1);
    EXPECT_NEAR(texture_sample(lin, 0.625f, 0.5f).x, 160.0f / 255.0f, 1e-5f);
    EXPECT_NEAR(texture_sample(srgb, 0.625f, 0.5f).x, srgb_to_linear(160.0f / 255.0f), 1e-5f);
    EXPECT_LT(texture_sample(srgb, 0.625f, 0.5f).x, texture_sample(lin, 0.625f, 0.5f).x);
}

TEST(TextureSampling, UvTransform) {
    Strip s;
    TextureView v = s.view(kWrapClamp);
    v.uv[2] = 0.25f;  // u' = u + 1/4
    EXPECT_NEAR(red_at(v, 0.125f), 80.0f, 1e-3f);
    v.uv[0] = 0.5f;  // u' = u / 2 + 1/4
    EXPECT_NEAR(red_at(v, 0.75f), 160.0f, 1e-3f);
    v.uv[0] = 0.0f;  // u' = v (a rotation's off-diagonal term)
    v.uv[1] = 1.0f;
    v.uv[2] = 0.0f;
    EXPECT_NEAR(texture_sample(v, 0.9f, 0.375f).x * 255.0f, 80.0f, 1e-3f);
}

// ---- generated files: KHR_texture_transform and samplers as loaded, and hostile input ----

namespace {

std::string base64(const std::string& in) {
    static const char* k = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    size_t i = 0;
    for (; i + 2 < in.size(); i += 3) {
        uint32_t v = uint32_t(uint8_t(in[i])) << 16 | uint32_t(uint8_t(in[i + 1])) << 8 | uint8_t(in[i + 2]);
        for (int k2 = 3; k2 >= 0; --k2) out += k[(v >> (6 * k2)) & 63];
    }
    if (i + 1 == in.size()) {
        uint32_t v = uint32_t(uint8_t(in[i])) << 16;
        out += k[(v >> 18) & 63];
        out += k[(v >> 12) & 63];
        out += "==";
    } else if (i + 2 == in.size()) {
        uint32_t v = uint32_t(uint8_t(in[i])) << 16 | uint32_t(uint8_t(in[i + 1])) << 8;
        out += k[(v >> 18) & 63];
        out += k[(v >> 12) & 63];
        out += k[(v >> 6) & 63];
        out += '=';
    }
    return out;
}

std::string png_2x2() {
    png_image img;
    std::memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    img.width = 2;
    img.height = 2;
    img.format = PNG_FORMAT_RGB;
    unsigned char px[12] = {255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255};
    png_alloc_size_t size = 0;
    png_image_write_to_memory(&img, nullptr, &size, 0, px, 0, nullptr);
    std::string out(size, '\0');
    png_image_write_to_memory(&img, out.data(), &size, 0, px, 0, nullptr);
    return out;
}

// One triangle: positions (3 x vec3) then uvs (3 x vec2), 60 bytes.
std::string triangle_bin() {
    float d[15] = {0, 0, 0, 1, 0, 0, 0, 1, 0, /* uv */ 0, 0, 1, 0, 0, 1};
    return std::string(reinterpret_cast<const char*>(d), sizeof d);
}

struct GltfParts {
    std::string buffer_uri = "data:application/octet-stream;base64," + base64(triangle_bin());
    std::string buffer_length = "60";
    std::string position_accessor = R"({"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3"})";
    std::string image_uri = "data:image/png;base64," + base64(png_2x2());
    std::string texture_info = R"({"index": 0})";
    std::string sampler = R"({"wrapS": 33071, "wrapT": 33648})";
    std::string extra_nodes;  // appended to the node list
};

std::string gltf_text(const GltfParts& p) {
    return R"({"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}],
  "nodes": [{"mesh": 0})" +
           p.extra_nodes + R"(],
  "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "TEXCOORD_0": 1}, "material": 0}]}],
  "materials": [{"pbrMetallicRoughness": {"baseColorTexture": )" +
           p.texture_info + R"(}}],
  "textures": [{"source": 0, "sampler": 0}], "samplers": [)" +
           p.sampler + R"(],
  "images": [{"uri": ")" +
           p.image_uri + R"("}],
  "buffers": [{"byteLength": )" +
           p.buffer_length + R"(, "uri": ")" + p.buffer_uri + R"("}],
  "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": 36}, {"buffer": 0, "byteOffset": 36, "byteLength": 24}],
  "accessors": [)" +
           p.position_accessor + R"(, {"bufferView": 1, "componentType": 5126, "count": 3, "type": "VEC2"}]})";
}

// A .glb holding `json` and `bin`, padded as the format asks.
std::string glb(std::string json, std::string bin) {
    while (json.size() % 4) json += ' ';
    while (bin.size() % 4) bin += '\0';
    auto u32 = [](uint32_t v) { return std::string(reinterpret_cast<const char*>(&v), 4); };
    std::string out = "glTF" + u32(2) + u32(static_cast<uint32_t>(12 + 8 + json.size() + 8 + bin.size()));
    out += u32(static_cast<uint32_t>(json.size())) + "JSON" + json;
    out += u32(static_cast<uint32_t>(bin.size())) + std::string("BIN\0", 4) + bin;
    return out;
}

}  // namespace

TEST(GltfGenerated, ValidFileLoadsWithSamplerAndTransform) {
    TempDir dir;
    GltfParts p;
    p.texture_info =
        R"({"index": 0, "extensions": {"KHR_texture_transform": {"offset": [0.5, 0], "scale": [0.5, 0.5], "rotation": 0.3}}})";
    Scene s = load_scene(dir.write("in.gltf", gltf_text(p)));
    ASSERT_EQ(s.tris.size(), 1u);
    ASSERT_EQ(s.texture_views.size(), 1u);
    const TextureView& v = s.texture_views[0];
    EXPECT_EQ(v.wrap_u, kWrapClamp);
    EXPECT_EQ(v.wrap_v, kWrapMirror);
    EXPECT_EQ(v.srgb, 1);
    // glTF uv (0, 0) is the image's top left; pkrt's uv for it is (0, 1). The transform sends glTF
    // (0, 0) to the offset (0.5, 0), which is pkrt (0.5, 1); glTF (1, 0) to offset + R S (1, 0) =
    // (0.5 + 0.5 cos r, -0.5 sin r) (counter-clockwise with v down), pkrt (.., 1 + 0.5 sin r).
    Vec2 a = texture_uv(v, 0.0f, 1.0f);
    EXPECT_NEAR(a.x, 0.5f, 1e-6f);
    EXPECT_NEAR(a.y, 1.0f, 1e-6f);
    Vec2 b = texture_uv(v, 1.0f, 1.0f);
    EXPECT_NEAR(b.x, 0.5f + 0.5f * std::cos(0.3f), 1e-6f);
    EXPECT_NEAR(b.y, 1.0f + 0.5f * std::sin(0.3f), 1e-6f);
    // The vertex uvs are flipped to v up: glTF (0, 1) at vertex 2 is pkrt (0, 0).
    EXPECT_NEAR(s.shading[0].uv2.y, 0.0f, 1e-6f);
    EXPECT_NEAR(s.shading[0].uv0.y, 1.0f, 1e-6f);
}

TEST(GltfGenerated, ValidGlbLoads) {
    TempDir dir;
    GltfParts p;
    std::string text = gltf_text(p);
    // The same, with the buffer in the BIN chunk.
    std::string uri_part = R"(, "uri": ")" + p.buffer_uri + "\"";
    text.replace(text.find(uri_part), uri_part.size(), "");
    Scene s = load_scene(dir.write("in.glb", glb(text, triangle_bin())));
    EXPECT_EQ(s.tris.size(), 1u);
}

namespace {
struct Hostile {
    const char* name;
    std::string file;  // name in the temp dir
    std::string bytes;
    const char* needle;
};

std::vector<Hostile> hostile_files() {
    std::vector<Hostile> h;
    GltfParts ok;
    std::string valid_glb = [&] {
        std::string text = gltf_text(ok);
        std::string uri_part = R"(, "uri": ")" + ok.buffer_uri + "\"";
        text.replace(text.find(uri_part), uri_part.size(), "");
        return glb(text, triangle_bin());
    }();
    h.push_back({"truncated_glb", "in.glb", valid_glb.substr(0, valid_glb.size() - 10), "truncated .glb"});
    h.push_back({"glb_header_only", "in.glb", valid_glb.substr(0, 14), "truncated .glb"});
    GltfParts p = ok;
    p.position_accessor = R"({"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3"})";
    h.push_back({"accessor_past_view", "in.gltf", gltf_text(p), "run past the end of buffer view 0"});
    p = ok;
    p.position_accessor = R"({"bufferView": 0, "byteOffset": 30, "componentType": 5126, "count": 1, "type": "VEC3"})";
    h.push_back({"accessor_offset_past_view", "in.gltf", gltf_text(p), "run past the end of buffer view 0"});
    p = ok;
    p.position_accessor = R"({"bufferView": 0, "componentType": 5124, "count": 3, "type": "VEC3"})";
    h.push_back({"bad_component_type", "in.gltf", gltf_text(p), "invalid componentType 5124"});
    p = ok;
    p.buffer_uri = "../in.bin";
    h.push_back({"uri_dotdot", "in.gltf", gltf_text(p), "escapes the model's directory"});
    p = ok;
    p.buffer_uri = "/etc/passwd";
    h.push_back({"uri_absolute", "in.gltf", gltf_text(p), "is an absolute path"});
    p = ok;
    p.buffer_uri = "sub/%2e%2e/%2e%2e/in.bin";
    h.push_back({"uri_percent_dotdot", "in.gltf", gltf_text(p), "escapes the model's directory"});
    p = ok;
    p.buffer_uri = "data:application/octet-stream;base64,AAA*AAAA";
    h.push_back({"bad_data_uri", "in.gltf", gltf_text(p), "not valid base64"});
    p = ok;
    p.image_uri = "data:image/webp;base64,AAAA";
    h.push_back({"unsupported_data_uri", "in.gltf", gltf_text(p), "unsupported data: URI"});
    p = ok;
    p.buffer_uri = "data:application/octet-stream;base64," + base64(triangle_bin().substr(0, 40));
    h.push_back({"data_uri_short", "in.gltf", gltf_text(p), "cannot read glTF"});
    p = ok;
    p.image_uri = "data:image/png;base64," + base64(png_2x2().substr(0, 30));
    h.push_back({"undecodable_image", "in.gltf", gltf_text(p), "image 0"});
    p = ok;
    p.image_uri = "data:image/png;base64," + base64("not an image at all");
    h.push_back({"not_an_image", "in.gltf", gltf_text(p), "unsupported texture format"});
    p = ok;
    p.image_uri = "in-missing.png";
    h.push_back({"missing_image", "in.gltf", gltf_text(p), "no such file"});
    p = ok;
    p.position_accessor = R"({"componentType": 5126, "count": 4000000000, "type": "VEC3"})";
    h.push_back({"absurd_count", "in.gltf", gltf_text(p), "count 4000000000"});
    p = ok;
    p.buffer_length = "99999999999999";
    h.push_back({"absurd_buffer", "in.gltf", gltf_text(p), "is absurd"});
    p = ok;
    p.extra_nodes = R"(, {"children": [1]})";
    std::string cyc = gltf_text(p);
    cyc.replace(cyc.find(R"("nodes": [0])"), 12, R"("nodes": [1])");
    h.push_back({"node_cycle", "in.gltf", cyc, "cycle"});
    h.push_back({"not_json", "in.gltf", "{\"asset\": ", "invalid JSON"});
    // The message names the array at fault, not the last element checked before it.
    std::string views_not_array = gltf_text(ok);
    views_not_array.replace(views_not_array.find(R"("bufferViews": [)"), 16, R"("bufferViews": 7, "unused": [)");
    h.push_back({"views_not_array", "in.gltf", views_not_array, ": bufferViews: must be an array"});
    // Wrongly typed or sized properties, which tinygltf drops for their defaults without a word (issue 33).
    auto edited = [&](const std::string& from, const std::string& to) {
        std::string text = gltf_text(ok);
        size_t at = text.find(from);
        EXPECT_NE(at, std::string::npos) << from;
        return text.replace(at, from.size(), to);
    };
    const std::string tex = R"("baseColorTexture": {"index": 0})";
    const struct {
        const char *name, *from, *to, *needle;
    } typed[] = {
        {"base_colour_of_3", tex.c_str(), R"("baseColorFactor": [1, 0, 0])",
         "materials[0].pbrMetallicRoughness.baseColorFactor: must be an array of 4 numbers"},
        {"metallic_string", tex.c_str(), R"("metallicFactor": "abc")",
         "materials[0].pbrMetallicRoughness.metallicFactor: must be a number"},
        {"roughness_null", tex.c_str(), R"("roughnessFactor": null)",
         "materials[0].pbrMetallicRoughness.roughnessFactor: must be a number"},
        {"translation_strings", R"({"mesh": 0})", R"({"mesh": 0, "translation": ["a", "b", "c"]})",
         "nodes[0].translation: must be an array of 3 numbers"},
        {"rotation_of_3", R"({"mesh": 0})", R"({"mesh": 0, "rotation": [0, 0, 1]})",
         "nodes[0].rotation: must be an array of 4 numbers"},
        {"children_string", R"({"mesh": 0})", R"({"mesh": 0, "children": "1"})",
         "nodes[0].children: must be an array of non-negative integers"},
        {"mesh_string", R"({"mesh": 0})", R"({"mesh": "0"})", "nodes[0].mesh: must be a non-negative integer"},
        {"indices_string", R"("material": 0})", R"("material": 0, "indices": "1"})",
         "meshes[0].primitives[0].indices: must be a non-negative integer"},
        {"material_negative", R"("material": 0})", R"("material": -1})",
         "meshes[0].primitives[0].material: must be a non-negative integer"},
        {"attribute_string", R"("POSITION": 0)", R"("POSITION": "0")",
         "meshes[0].primitives[0].attributes.POSITION: must be a non-negative integer"},
        {"scene_string", R"("scene": 0)", R"("scene": "0")", ": scene: must be a non-negative integer"},
        {"component_type_string", R"("componentType": 5126, "count": 3, "type": "VEC2")",
         R"("componentType": "5126", "count": 3, "type": "VEC2")",
         "accessors[1].componentType: must be a non-negative"},
        {"texture_source_float", R"("source": 0)", R"("source": 0.5)", "textures[0].source: must be a non-negative"},
        {"tex_coord_string", tex.c_str(), R"("baseColorTexture": {"index": 0, "texCoord": "1"})",
         "baseColorTexture.texCoord: must be a non-negative integer"},
        {"texture_without_index", tex.c_str(), R"("baseColorTexture": {"texCoord": 0})",
         "baseColorTexture.index: is required"},
        {"double_sided_string", R"("materials": [{)", R"("materials": [{"doubleSided": "yes", )",
         "materials[0].doubleSided: must be true or false"},
    };
    for (const auto& t : typed) h.push_back({t.name, "in.gltf", edited(t.from, t.to), t.needle});
    // Nesting that overflowed tinygltf's recursive conversion of JSON to its values (a crash), in extras
    // of a .gltf and extensions of a .glb alike.
    std::string deep = std::string(20000, '[') + std::string(20000, ']');
    h.push_back({"deep_extras", "in.gltf", edited(R"({"mesh": 0})", R"({"mesh": 0, "extras": )" + deep + "}"),
                 "invalid JSON: nested deeper than 128 levels"});
    std::string deep_glb = [&] {
        std::string text = edited(R"({"mesh": 0})", R"({"mesh": 0, "extensions": {"X": )" + deep + "}}");
        std::string uri_part = R"(, "uri": ")" + ok.buffer_uri + "\"";
        text.replace(text.find(uri_part), uri_part.size(), "");
        return glb(text, triangle_bin());
    }();
    h.push_back({"deep_glb_extensions", "in.glb", deep_glb, "invalid JSON: nested deeper than 128 levels"});
    h.push_back({"duplicate_key", "in.gltf", edited(R"("scene": 0)", R"("scene": 0, "scene": 1)"),
                 "invalid JSON: key 'scene' appears twice in one object"});
    return h;
}
}  // namespace

TEST(GltfHostile, OneClearErrorFromTheLoader) {
    for (const auto& c : hostile_files()) {
        SCOPED_TRACE(c.name);
        TempDir dir;
        std::string path = dir.write(c.file, c.bytes);
        std::string e = load_error(path);
        EXPECT_NE(e.find(path), std::string::npos) << "names the file: " << e;
        EXPECT_NE(e.find(c.needle), std::string::npos) << e;
        EXPECT_EQ(e.find('\n'), std::string::npos) << "one line: " << e;
    }
}

TEST(GltfHostile, CliFailsCleanlyWithoutOutput) {
    for (const auto& c : hostile_files()) {
        SCOPED_TRACE(c.name);
        TempDir dir;
        dir.write(c.file, c.bytes);
        expect_clean_failure(dir, "render " + c.file + " --spp 1 --res 8x8 --backend cpu -o out.png", 1, c.needle);
    }
}

TEST(GltfCli, CameraFlag) {
    REQUIRE_SHARED_SCENE(kGltf + "ToyCar/glTF/ToyCar.gltf");
    TempDir dir;
    std::string model = shell_quote(shared_scene(kGltf + "ToyCar/glTF/ToyCar.gltf"));
    expect_clean_failure(dir, "render " + model + " --camera nope --spp 1 --res 8x8 --backend cpu -o out.png", 1,
                         "has no such camera (it has 0 'Camera001'");
    RunResult r =
        run_pkrt("render " + model + " --camera Camera003 --spp 1 --res 8x8 --max-depth 1 --backend cpu -q -o b.png",
                 dir.path().string());
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(fs::exists(dir.file("b.png")));
    EXPECT_NE(r.err.find("warning: "), std::string::npos) << "the unsupported extensions are named";
    EXPECT_NE(r.err.find("KHR_materials_clearcoat, KHR_materials_sheen"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("occlusionTexture ignored"), std::string::npos) << r.err;
    EXPECT_EQ(count_lines(r.err), 2) << r.err;
}

TEST(Gltf, WhatIsNotRenderedIsOneWarningEach) {
    REQUIRE_SHARED_SCENE("gltf/DamagedHelmet/glTF-Binary/DamagedHelmet.glb");
    Scene s = load_scene(pkrt_test::shared_scene("gltf/DamagedHelmet/glTF-Binary/DamagedHelmet.glb"));
    int occlusion = 0;
    for (const auto& w : s.load_stats.warnings)
        occlusion += w.find("occlusionTexture ignored (1 material") != std::string::npos;
    EXPECT_EQ(occlusion, 1);
}

// A glTF image named .tga loads as it does from an MTL (issue 50, class 6): TGA has no signature, and its
// name in the glTF (the URI) is what says TGA; before, the message-decorated name hid the extension and
// the file was "unsupported texture format".
TEST(GltfGenerated, TgaImageByItsUri) {
    TempDir dir;
    std::string tga(18, '\0');
    tga[2] = 2;   // uncompressed true colour
    tga[12] = 2;  // width 2
    tga[14] = 2;  // height 2
    tga[16] = 24;
    tga[17] = 0x20;                                                     // top-left origin
    for (int i = 0; i < 4; ++i) tga += std::string("\x00\x00\xff", 3);  // BGR: red
    dir.write("img.tga", tga);
    GltfParts p;
    p.image_uri = "img.tga";
    Scene s = load_scene(dir.write("in.gltf", gltf_text(p)));
    ASSERT_EQ(s.textures.size(), 1u);
    EXPECT_EQ(s.textures[0].width, 2);
    EXPECT_EQ(s.textures[0].texels[0] & 0xFFFFFFu, 0x0000FFu);  // R in the low byte
}
