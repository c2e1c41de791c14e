// Scene loading: the JSON format, OBJ/MTL material rules, textures, transforms, light tables and the
// automatic camera of a bare OBJ.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "render/error.h"
#include "render/scene/loaders.h"
#include "render/scene/scene.h"
#include "tests/test_render_util.h"
#include "tests/test_util.h"

using namespace pkrt;
using pkrt_test::load_error;
using pkrt_test::TempDir;

namespace {
const std::string kScenes = PKRT_SCENES_DIR;

}  // namespace

TEST(Scene, CornellBoxFromMeasurements) {
    Scene s = load_scene(kScenes + "/cornell.json");
    prepare_scene(s);
    EXPECT_EQ(s.tris.size(), 32u);
    EXPECT_FLOAT_EQ(s.camera.vfov_degrees, 39.3f);
    ASSERT_EQ(s.light_tris.size(), 2u);  // one quad
    EXPECT_FLOAT_EQ(s.light_cdf.back(), 1.0f);
    float pmf = std::accumulate(s.tri_light_pmf.begin(), s.tri_light_pmf.end(), 0.0f);
    EXPECT_NEAR(pmf, 1.0f, 1e-6f);
    EXPECT_EQ(s.env_select, 0.0f) << "no environment light in the closed box";
    // The light faces down into the box.
    const TriVerts& t = s.tris[s.light_tris[0]];
    Vec3 n = cross(t.v1 - t.v0, t.v2 - t.v0);
    EXPECT_LT(n.y, 0.0f);
    const Material& m = s.materials[s.shading[s.light_tris[0]].material];
    EXPECT_FLOAT_EQ(m.emission.x, 17.0f);
}

TEST(Scene, SpheresSceneMaterialsAndSky) {
    Scene s = load_scene(kScenes + "/spheres.json");
    prepare_scene(s);
    EXPECT_EQ(s.environment.type, kEnvSky);
    EXPECT_EQ(s.env_select, 1.0f);
    int types[3] = {0, 0, 0};
    for (const auto& m : s.materials) ++types[m.type];
    EXPECT_GE(types[kDiffuse], 2);
    EXPECT_EQ(types[kConductor], 1);
    EXPECT_EQ(types[kDielectric], 1);
    EXPECT_EQ(s.defaults.width, 640);
}

TEST(Scene, MtlRulesMapToMaterialModels) {
    TempDir dir;
    dir.write("m.mtl",
              "newmtl matte\nKd 0.5 0.4 0.3\nKs 0.1 0.1 0.1\n"
              "newmtl metal\nKd 0.1 0.1 0.1\nKs 0.9 0.8 0.7\nNs 200\n"
              "newmtl glass\nKd 0 0 0\nNi 1.33\nd 0.5\n"
              "newmtl glass7\nNi 1.7\nillum 7\n"
              "newmtl lamp\nKd 0 0 0\nKe 5 4 3\n");
    std::string obj = "mtllib m.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\n";
    for (const char* m : {"matte", "metal", "glass", "glass7", "lamp"})
        obj += std::string("usemtl ") + m + "\nf 1 2 3\n";
    dir.write("m.obj", obj);
    Scene s;
    ASSERT_EQ(load_obj(s, dir.file("m.obj"), ObjOptions{}), 5u);
    ASSERT_EQ(s.materials.size(), 5u);
    auto by_name = [&](const std::string& n) {
        for (size_t i = 0; i < s.materials.size(); ++i)
            if (s.material_names[i] == n) return s.materials[i];
        ADD_FAILURE() << "no material " << n;
        return Material{};
    };
    EXPECT_EQ(by_name("matte").type, kDiffuse);
    EXPECT_FLOAT_EQ(by_name("matte").albedo.y, 0.4f);
    EXPECT_EQ(by_name("metal").type, kConductor);
    EXPECT_NEAR(by_name("metal").alpha, std::sqrt(2.0f / 202.0f), 1e-6f);
    EXPECT_EQ(by_name("glass").type, kDielectric);
    EXPECT_FLOAT_EQ(by_name("glass").ior, 1.33f);
    EXPECT_EQ(by_name("glass7").type, kDielectric);
    EXPECT_FLOAT_EQ(by_name("glass7").ior, 1.7f);
    EXPECT_FLOAT_EQ(by_name("lamp").emission.y, 4.0f);
}

TEST(Scene, ObjWithoutMtlGetsDefaultGrey) {
    TempDir dir;
    dir.write("plain.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
    Scene s;
    load_obj(s, dir.file("plain.obj"), ObjOptions{});
    ASSERT_EQ(s.materials.size(), 1u);
    EXPECT_EQ(s.materials[0].type, kDiffuse);
    EXPECT_FLOAT_EQ(s.materials[0].albedo.x, 0.5f);
}

TEST(Scene, DabrovicSponzaTexturesLoadAsSrgb) {
    REQUIRE_SHARED_SCENE("dabrovic-sponza/sponza.obj");
    Scene s;
    load_obj(s, pkrt_test::shared_scene("dabrovic-sponza/sponza.obj"), ObjOptions{});
    EXPECT_GE(s.textures.size(), 10u);
    int textured = 0;
    for (const auto& m : s.materials) textured += m.albedo_texture >= 0;
    EXPECT_GE(textured, 10);
    for (const auto& t : s.textures) {
        EXPECT_GT(t.width, 0);
        EXPECT_EQ(t.texels.size(), static_cast<size_t>(t.width) * t.height);
    }
    // sRGB decoding: mid-grey 128 is 0.2158 linear, white is 1.
    EXPECT_NEAR(srgb_to_linear(128.0f / 255.0f), 0.2158f, 1e-3f);
    EXPECT_FLOAT_EQ(srgb_to_linear(1.0f), 1.0f);
}

TEST(Scene, BareObjFramesTheWholeModel) {
    REQUIRE_SHARED_SCENE("stanford-bunny/stanford-bunny.obj");
    Scene s = load_scene(pkrt_test::shared_scene("stanford-bunny/stanford-bunny.obj"));
    prepare_scene(s);
    EXPECT_EQ(s.environment.type, kEnvSky);
    // Every vertex projects inside the image.
    CameraView c = make_camera_view(s.camera, 100, 100);
    for (const auto& t : s.tris) {
        for (Vec3 p : {t.v0, t.v1, t.v2}) {
            Vec3 d = p - c.eye;
            float z = dot(d, c.forward);
            ASSERT_GT(z, 0.0f);
            EXPECT_LE(std::fabs(dot(d, c.right) / z), c.tan_half_fov_y * c.aspect);
            EXPECT_LE(std::fabs(dot(d, c.up) / z), c.tan_half_fov_y);
        }
    }
}

TEST(Scene, TransformsApplyToPositionsAndNormals) {
    TempDir dir;
    dir.write("t.json", R"({
      "materials": {"m": {"albedo": [0.5, 0.5, 0.5]}},
      "meshes": [{"sphere": {"radius": 1, "subdivisions": 1},
                  "transform": {"scale": [2, 1, 1], "rotate": [90, 0, 0, 1], "translate": [10, 0, 0]},
                  "material": "m"}]})");
    Scene s = load_scene(dir.file("t.json"));
    Vec3 lo = splat(1e9f), hi = splat(-1e9f);
    for (const auto& t : s.tris) {
        lo = vmin(lo, vmin(t.v0, vmin(t.v1, t.v2)));
        hi = vmax(hi, vmax(t.v0, vmax(t.v1, t.v2)));
    }
    // x scaled by 2 then rotated onto y, then moved by 10 along x.
    EXPECT_NEAR(hi.y - lo.y, 4.0f, 1e-4f);
    EXPECT_NEAR(hi.x - lo.x, 2.0f, 1e-4f);
    EXPECT_NEAR(0.5f * (hi.x + lo.x), 10.0f, 1e-4f);
    for (const auto& sh : s.shading) EXPECT_NEAR(length(sh.n0), 1.0f, 1e-5f);
}

TEST(Scene, JsonErrorsNameFileAndKey) {
    TempDir dir;
    struct Case {
        const char* json;
        const char* message;
    };
    const Case cases[] = {
        {R"({"meshes": []})", "meshes: must be a non-empty array"},
        {R"({"camera": {"eye": [0, 0]}, "meshes": [{"sphere": {}}]})", "camera.eye: must be an array of 3 numbers"},
        {R"({"camera": {"eye": [0, 0, 0], "look_at": [0, 0, 0]}, "meshes": [{"sphere": {}}]})",
         "eye and look_at must differ"},
        {R"({"camera": {"fov": 200}, "meshes": [{"sphere": {}}]})", "camera.fov: must be between 0 and 180"},
        {R"({"render": {"resolution": [0, 10]}, "meshes": [{"sphere": {}}]})",
         "render.resolution[0]: must be between 1"},
        {R"({"render": {"spp": 1.5}, "meshes": [{"sphere": {}}]})", "render.spp: must be an integer"},
        {R"({"environment": {"type": "hdri"}, "meshes": [{"sphere": {}}]})", "environment.type"},
        {R"({"materials": {"x": {"type": "plastic"}}, "meshes": [{"sphere": {}}]})", "materials.x.type"},
        {R"({"materials": {"x": {"albedo": [2, 0, 0]}}, "meshes": [{"sphere": {}}]})", "energy"},
        {R"({"materials": {"x": {"albedo": [-1, 0, 0]}}, "meshes": [{"sphere": {}}]})", "must not be negative"},
        {R"({"meshes": [{"sphere": {}, "quad": []}]})", "exactly one of"},
        {R"({"meshes": [{"quad": [[0,0,0],[1,0,0],[2,0,0],[3,0,0]]}]})", "no valid triangles"},
        {R"({"meshes": [{"sphere": {"radius": -1}}]})", "radius: must be positive"},
        {R"({"meshes": [{"sphere": {}, "transform": {"scale": 0}}]})", "scale: must not be zero"},
        {"[1, 2", "invalid JSON"},
        {R"({"camera": {"aperture": -1}, "meshes": [{"sphere": {}}]})",
         "camera.aperture: the lens radius must be between 0"},
        {R"({"camera": {"aperture": "wide"}, "meshes": [{"sphere": {}}]})", "camera.aperture: must be a number"},
        {R"({"camera": {"focus_distance": 0}, "meshes": [{"sphere": {}}]})",
         "camera.focus_distance: must be greater than 0"},
        {R"({"camera": {"focus_distance": -3}, "meshes": [{"sphere": {}}]})",
         "camera.focus_distance: must be greater than 0"},
        {R"({"materials": {"x": {"type": "metal_rough", "metallic": 1.5}}, "meshes": [{"sphere": {}}]})",
         "materials.x.metallic: must be between 0 and 1"},
        {R"({"materials": {"x": {"type": "metal_rough", "metallic": -0.1}}, "meshes": [{"sphere": {}}]})",
         "materials.x.metallic: must be between 0 and 1"},
        {R"({"materials": {"x": {"type": "metal_rough", "base_color": [1.2, 0, 0]}}, "meshes": [{"sphere": {}}]})",
         "materials.x.base_color: must be between 0 and 1"},
        {R"({"materials": {"x": {"type": "metal_rough", "albedo": 0.5, "base_color": 0.5}}, "meshes": [{"sphere": {}}]})",
         "not both"},
        {R"({"materials": {"x": {"type": "diffuse", "metallic": 0.5}}, "meshes": [{"sphere": {}}]})",
         "materials.x.metallic: only a \"metal_rough\" material has it"},
        {R"({"materials": {"x": {"type": "metal_rough", "roughness": 2}}, "meshes": [{"sphere": {}}]})",
         "materials.x.roughness: must be between 0 and 1"},
    };
    int i = 0;
    for (const auto& c : cases) {
        std::string path = dir.write("case" + std::to_string(i++) + ".json", c.json);
        std::string err = load_error(path);
        EXPECT_NE(err.find(c.message), std::string::npos) << c.json << "\n  gave: " << err;
        EXPECT_NE(err.find(path), std::string::npos) << "the message names the file: " << err;
        EXPECT_EQ(err.find('\n'), std::string::npos) << "one line: " << err;
    }
}

TEST(Scene, MetalRoughMaterialsAndLensFromJson) {
    TempDir dir;
    dir.write("m.json", R"({
      "camera": {"eye": [0, 0, 5], "look_at": [0, 0, 0], "aperture": 0.125, "focus_distance": 3.5},
      "materials": {
        "plastic": {"type": "metal_rough", "base_color": [0.8, 0.1, 0.1], "metallic": 0, "roughness": 0.5},
        "metal": {"type": "metal_rough", "albedo": [1, 0.78, 0.34], "metallic": 0.75, "roughness": 0},
        "defaults": {"type": "metal_rough"}
      },
      "meshes": [{"sphere": {}, "material": "plastic"}, {"sphere": {}, "material": "metal"},
                 {"sphere": {}, "material": "defaults"}]})");
    Scene s = load_scene(dir.file("m.json"));
    EXPECT_EQ(s.camera.aperture_radius, 0.125f);
    EXPECT_EQ(s.camera.focus_distance, 3.5f);
    ASSERT_EQ(s.materials.size(), 3u);
    auto named = [&](const std::string& name) -> const Material& {
        for (size_t i = 0; i < s.material_names.size(); ++i)
            if (s.material_names[i] == name) return s.materials[i];
        throw Error("no material " + name);
    };
    const Material &plastic = named("plastic"), &metal = named("metal"), &defaults = named("defaults");
    EXPECT_EQ(plastic.type, kMetalRough);
    EXPECT_EQ(plastic.albedo.x, 0.8f);
    EXPECT_EQ(plastic.metallic, 0.0f);
    EXPECT_FLOAT_EQ(plastic.alpha, 0.25f);  // perceptual roughness squared
    EXPECT_EQ(metal.type, kMetalRough);
    EXPECT_EQ(metal.albedo.z, 0.34f);
    EXPECT_EQ(metal.metallic, 0.75f);
    EXPECT_EQ(metal.alpha, 0.0f);
    // glTF's pbrMetallicRoughness defaults: base colour 1, metallic 1, roughness 1.
    EXPECT_EQ(defaults.albedo.y, 1.0f);
    EXPECT_EQ(defaults.metallic, 1.0f);
    EXPECT_EQ(defaults.alpha, 1.0f);
    // A scene without lens keys is a pinhole focused at look_at.
    dir.write("p.json", R"({"camera": {"eye": [0, 0, 5], "look_at": [0, 0, 1]}, "meshes": [{"sphere": {}}]})");
    Scene p = load_scene(dir.file("p.json"));
    EXPECT_EQ(p.camera.aperture_radius, 0.0f);
    EXPECT_EQ(make_camera_view(p.camera, 8, 8).focus_distance, 4.0f);
}

TEST(Scene, DegenerateAndNonFiniteTrianglesAreCounted) {
    TempDir dir;
    dir.write("d.obj",
              "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 2 0 0\nv inf 0 0\nv 1e39 0 0\n"
              "f 1 2 3\nf 1 2 4\nf 1 2 5\nf 1 3 6\nf 1 1 1\n");
    Scene s;
    EXPECT_EQ(load_obj(s, dir.file("d.obj"), ObjOptions{}), 1u);
    EXPECT_EQ(s.load_stats.degenerate_triangles, 2u);
    EXPECT_EQ(s.load_stats.nonfinite_triangles, 2u);
    dir.write("g.obj", "v 0 0 zero\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
    Scene g;
    try {
        load_obj(g, dir.file("g.obj"), ObjOptions{});
        ADD_FAILURE() << "a non-numeric coordinate must be an error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("g.obj:1: vertex coordinate 'zero' is not a number"), std::string::npos)
            << e.what();
    }
}
