// Scenes as exporters write them: texture paths (backslashes, case, foreign absolute paths, spaces),
// missing textures, cut-outs (OBJ map_d, glTF alphaMode) tested in traversal, MTL normal, bump, PBR and
// specular maps, and one warning per statement pkrt does not honour.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "kernels/path_stages.h"
#include "render/error.h"
#include "render/scene/loaders.h"
#include "render/scene/material_maps.h"
#include "render/scene/scene.h"
#include "tests/test_render_util.h"
#include "tests/test_util.h"

using namespace pkrt;
using pkrt_test::TempDir;
namespace fs = std::filesystem;

namespace {

void write_rgba_png(const std::string& path, int w, int h, const std::vector<uint32_t>& texels) {
    ASSERT_TRUE(pkrt_test::write_rgba_png(path, w, h, texels)) << path;
}

using pkrt_test::rgba;

// A unit quad in z = 0 ([0, 1]^2, uv = xy) with material `mtl` of m.mtl, in `dir`.
void write_quad_obj(const TempDir& dir, const std::string& mtl_text, const std::string& obj_name = "q.obj") {
    dir.write("m.mtl", mtl_text);
    dir.write(obj_name,
              "mtllib m.mtl\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\n"
              "usemtl q\nf 1/1 2/2 3/3 4/4\n");
}

Scene load_prepared_obj(const std::string& path, const LoadLimits& limits = {}) {
    Scene s = load_scene(path, limits);
    prepare_scene(s);
    return s;
}

// A ray straight down onto the quad at (x, y).
Ray down_at(float x, float y) { return Ray{{x, y, 1.0f}, {0.0f, 0.0f, -1.0f}}; }

bool hits(const Scene& s, float x, float y) { return InlineTraversal::closest(view_scene(s), down_at(x, y)).prim >= 0; }

bool shadowed(const Scene& s, float x, float y) {
    return InlineTraversal::occluded(view_scene(s), down_at(x, y), 2.0f);
}

bool any_warning(const Scene& s, const std::string& part) {
    for (const auto& w : s.load_stats.warnings)
        if (w.find(part) != std::string::npos) return true;
    return false;
}

std::string warnings(const Scene& s) {
    std::string all;
    for (const auto& w : s.load_stats.warnings) all += w + "\n";
    return all;
}

}  // namespace

TEST(AssetPaths, BackslashesCaseAndSpacesAsExportersWriteThem) {
    TempDir dir;
    fs::create_directories(dir.path() / "Tex" / "sub dir");
    write_rgba_png(dir.file("Tex/sub dir/Leaf Diff.png"), 1, 1, {rgba(255, 0, 0)});
    write_quad_obj(dir, "newmtl q\nKd 1 1 1\nmap_Kd tex\\Sub Dir\\leaf diff.PNG\n");
    Scene s = load_prepared_obj(dir.file("q.obj"));
    ASSERT_EQ(s.textures.size(), 1u);
    EXPECT_EQ(s.textures[0].texels[0], rgba(255, 0, 0));
    EXPECT_TRUE(any_warning(s, "not found as spelled")) << warnings(s);
    EXPECT_EQ(s.load_stats.warnings.size(), 1u) << warnings(s);
}

TEST(AssetPaths, ExactBackslashPathNeedsNoWarning) {
    TempDir dir;
    fs::create_directories(dir.path() / "textures");
    write_rgba_png(dir.file("textures/a.png"), 1, 1, {rgba(0, 255, 0)});
    write_quad_obj(dir, "newmtl q\nmap_Kd textures\\a.png\n");
    Scene s = load_prepared_obj(dir.file("q.obj"));
    ASSERT_EQ(s.textures.size(), 1u);
    EXPECT_TRUE(s.load_stats.warnings.empty()) << warnings(s);
}

TEST(AssetPaths, AnAuthorsAbsolutePathFallsBackToTheFileBeside) {
    TempDir dir;
    write_rgba_png(dir.file("wall.png"), 1, 1, {rgba(0, 0, 255)});
    write_quad_obj(dir, "newmtl q\nmap_Kd C:\\Users\\artist\\Desktop\\maps\\Wall.png\n");
    Scene s = load_prepared_obj(dir.file("q.obj"));
    ASSERT_EQ(s.textures.size(), 1u);
    EXPECT_EQ(s.textures[0].texels[0], rgba(0, 0, 255));
    EXPECT_TRUE(any_warning(s, "beside it")) << warnings(s);
}

TEST(AssetPaths, MissingTexturesFailOrWarnAsAsked) {
    TempDir dir;
    write_quad_obj(dir, "newmtl q\nKd 0.2 0.4 0.6\nmap_Kd gone.png\n");
    try {
        load_prepared_obj(dir.file("q.obj"));
        FAIL() << "a missing texture must fail by default";
    } catch (const Error& e) {
        std::string what = e.what();
        EXPECT_NE(what.find("gone.png: texture file not found"), std::string::npos) << what;
        EXPECT_NE(what.find("--missing-textures warn"), std::string::npos) << what;
    }
    LoadLimits warn;
    warn.missing_textures = MissingTextures::kWarn;
    Scene s = load_prepared_obj(dir.file("q.obj"), warn);
    ASSERT_EQ(s.materials.size(), 1u);
    EXPECT_EQ(s.materials[0].albedo_texture, -1);
    EXPECT_FLOAT_EQ(s.materials[0].albedo.y, 0.4f) << "the constant colour renders";
    EXPECT_TRUE(any_warning(s, "'gone.png' not found")) << warnings(s);
}

TEST(Cutouts, GreyMaskCutsRaysAndShadowsOnTheCpu) {
    TempDir dir;
    // Left column black (cut), right column white (solid), as a grey mask without alpha.
    write_rgba_png(dir.file("mask.png"), 2, 1, {rgba(0, 0, 0), rgba(255, 255, 255)});
    write_quad_obj(dir, "newmtl q\nKd 0.5 0.5 0.5\nmap_d -clamp on mask.png\n");
    Scene s = load_prepared_obj(dir.file("q.obj"));
    ASSERT_TRUE(has_cutout(s, 0));
    EXPECT_TRUE(needs_full_shading(s)) << "cut-outs run the full per-ray code on the GPU";
    for (float y : {0.1f, 0.5f, 0.9f}) {
        EXPECT_FALSE(hits(s, 0.1f, y)) << "masked-out texel at y " << y;
        EXPECT_TRUE(hits(s, 0.9f, y)) << "solid texel at y " << y;
        EXPECT_FALSE(shadowed(s, 0.1f, y));
        EXPECT_TRUE(shadowed(s, 0.9f, y));
    }
    // The same through both BVH layouts.
    Scene wide;
    load_obj(wide, dir.file("q.obj"), ObjOptions{});
    prepare_scene(wide, BvhLayout::kCwbvh);
    EXPECT_FALSE(hits(wide, 0.1f, 0.5f));
    EXPECT_TRUE(hits(wide, 0.9f, 0.5f));
    EXPECT_FALSE(shadowed(wide, 0.1f, 0.5f));
}

TEST(Cutouts, AlphaChannelIsTheCoverageWhenThereIsOne) {
    TempDir dir;
    // Colour says solid everywhere, alpha says cut on the left.
    write_rgba_png(dir.file("leaf.png"), 2, 1, {rgba(255, 255, 255, 0), rgba(255, 255, 255, 255)});
    write_quad_obj(dir, "newmtl q\nmap_Kd leaf.png\nmap_d -clamp on leaf.png\n");
    Scene s = load_prepared_obj(dir.file("q.obj"));
    EXPECT_FALSE(hits(s, 0.1f, 0.5f));
    EXPECT_TRUE(hits(s, 0.9f, 0.5f));
    EXPECT_EQ(s.textures.size(), 1u) << "an image with alpha is its own coverage, not copied";
}

TEST(Cutouts, OpaqueTrianglesOfACutoutSceneStayOpaque) {
    TempDir dir;
    write_rgba_png(dir.file("mask.png"), 1, 1, {rgba(0, 0, 0)});
    dir.write("m.mtl", "newmtl cut\nmap_d mask.png\nnewmtl solid\nKd 0.5 0.5 0.5\n");
    dir.write("q.obj",
              "mtllib m.mtl\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 2 0 0\nv 3 0 0\nv 3 1 0\nv 2 1 0\n"
              "vt 0 0\nusemtl cut\nf 1/1 2/1 3/1 4/1\nusemtl solid\nf 5/1 6/1 7/1 8/1\n");
    Scene s = load_prepared_obj(dir.file("q.obj"));
    EXPECT_FALSE(hits(s, 0.5f, 0.5f));
    EXPECT_TRUE(hits(s, 2.5f, 0.5f));
}

TEST(Cutouts, BlendedCoverageLetsThatFractionThroughStochastically) {
    TempDir dir;
    write_rgba_png(dir.file("grey.png"), 1, 1, {rgba(77, 77, 77)});  // coverage 77/255 = 0.302
    write_quad_obj(dir, "newmtl q\nmap_d grey.png\n");
    Scene s = load_prepared_obj(dir.file("q.obj"));
    SceneView v = view_scene(s);
    int n = 20000, stopped = 0;
    for (int i = 0; i < n; ++i) {
        float x = (static_cast<float>(i % 200) + 0.5f) / 200.0f, y = (static_cast<float>(i / 200) + 0.5f) / 100.0f;
        Ray r = down_at(x, y);
        bool a = InlineTraversal::closest(v, r).prim >= 0;
        EXPECT_EQ(a, InlineTraversal::occluded(v, r, 2.0f)) << "one decision per triangle and ray";
        stopped += a;
    }
    EXPECT_NEAR(static_cast<double>(stopped) / n, 77.0 / 255.0, 0.015);
}

TEST(Cutouts, GltfAlphaModesBecomeCoverageRules) {
    REQUIRE_SHARED_SCENE("gltf/AlphaBlendModeTest/glTF-Binary/AlphaBlendModeTest.glb");
    Scene s = load_scene(pkrt_test::shared_scene("gltf/AlphaBlendModeTest/glTF-Binary/AlphaBlendModeTest.glb"));
    int mask = 0, blend = 0, opaque = 0;
    for (size_t m = 0; m < s.materials.size(); ++m) {
        const std::string& name = s.material_names[m];
        bool cut = has_cutout(s, static_cast<int32_t>(m));
        if (name.find("Cutoff") != std::string::npos) {
            ++mask;
            EXPECT_TRUE(cut) << name;
            if (cut) {
                EXPECT_GT(s.material_cutouts[m].cutoff, 0.0f) << name;
            }
        } else if (name.find("Blend") != std::string::npos) {
            ++blend;
            EXPECT_TRUE(cut) << name;
            if (cut) {
                EXPECT_EQ(s.material_cutouts[m].cutoff, 0.0f) << name;
            }
        } else if (name.find("Opaque") != std::string::npos) {
            ++opaque;
            EXPECT_FALSE(cut) << name;
        }
    }
    EXPECT_EQ(mask, 3) << "MASK with the default and two explicit cut-offs";
    EXPECT_EQ(blend, 1);
    EXPECT_EQ(opaque, 1);
    for (size_t m = 0; m < s.materials.size(); ++m) {
        if (s.material_names[m] == "MatCutoff25") {
            EXPECT_FLOAT_EQ(s.material_cutouts[m].cutoff, 0.25f);
        }
        if (s.material_names[m] == "MatCutoffDefault") {
            EXPECT_FLOAT_EQ(s.material_cutouts[m].cutoff, 0.5f);
        }
    }
}

TEST(MtlMaps, GreyBumpMapIsAHeightMapTurnedIntoNormals) {
    Scene s;
    TextureImage ramp;
    ramp.path = "ramp";
    ramp.width = 4;
    ramp.height = 1;
    for (int x = 0; x < 4; ++x) ramp.texels.push_back(rgba(51 * x, 51 * x, 51 * x));  // 0, 0.2, 0.4, 0.6
    s.textures.push_back(ramp);
    ASSERT_FALSE(looks_like_normal_map(s.textures[0]));
    int32_t n = normal_map_from_height(s, 0, 2.0f);
    const TextureImage& t = s.textures[static_cast<size_t>(n)];
    // Interior texel 1: dh/du = 0.5 * (0.4 - 0) per texel, times 2 (bm) x 4 texels / 64.
    float du = 0.5f * 0.4f * 2.0f * 4.0f / 64.0f, inv = 1.0f / std::sqrt(du * du + 1.0f);
    uint32_t p = t.texels[1];
    EXPECT_NEAR((p & 0xff) / 255.0f, 0.5f - 0.5f * du * inv, 1.0f / 255.0f) << "tilted against the slope";
    EXPECT_NEAR(((p >> 8) & 0xff) / 255.0f, 0.5f, 1.0f / 255.0f) << "no slope along v";
    EXPECT_NEAR(((p >> 16) & 0xff) / 255.0f, 0.5f + 0.5f * inv, 1.0f / 255.0f);
    EXPECT_EQ(normal_map_from_height(s, 0, 2.0f), n) << "derived once";
}

TEST(MtlMaps, NormalAndBumpMapsGiveTangentsAndNormalTextures) {
    TempDir dir;
    write_rgba_png(dir.file("n.png"), 1, 1, {rgba(128, 128, 255)});
    write_rgba_png(dir.file("h.png"), 2, 2, {rgba(0, 0, 0), rgba(90, 90, 90), rgba(20, 20, 20), rgba(200, 200, 200)});
    dir.write("m.mtl", "newmtl q\nnorm n.png\nnewmtl b\nbump -bm 0.5 h.png\n");
    dir.write("q.obj",
              "mtllib m.mtl\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nvn 0 0 1\n"
              "usemtl q\nf 1/1/1 2/2/1 3/3/1\nusemtl b\nf 1/1/1 3/3/1 4/4/1\n");
    Scene s = load_prepared_obj(dir.file("q.obj"));
    ASSERT_EQ(s.materials.size(), 2u);
    for (const auto& m : s.materials) EXPECT_GE(m.normal_texture, 0);
    EXPECT_FLOAT_EQ(s.materials[1].normal_scale, 1.0f) << "-bm scales the heights, not the normals";
    EXPECT_TRUE(needs_full_shading(s));
    ASSERT_EQ(s.tangents.size(), s.tris.size());
    for (const auto& t : s.tangents) {
        // uv = xy: the tangent is +x, the bitangent +y = n x t (w = 1).
        EXPECT_NEAR(t.t0.x, 1.0f, 1e-5f);
        EXPECT_NEAR(t.t1.x, 1.0f, 1e-5f);
        EXPECT_FLOAT_EQ(t.w0, 1.0f);
    }
}

TEST(MtlMaps, PbrSpecularAndEmissionMapsMapOntoTheMaterials) {
    TempDir dir;
    write_rgba_png(dir.file("r.png"), 1, 1, {rgba(128, 128, 128)});
    write_rgba_png(dir.file("c.png"), 1, 1, {rgba(200, 100, 50)});
    dir.write("m.mtl",
              "newmtl pbr\nKd 0.8 0.8 0.8\nPr 0.5\nPm 1\n"
              "newmtl pbrmap\nKd 1 1 1\nmap_Pr r.png\n"
              "newmtl metal\nKd 0 0 0\nKs 0.9 0.9 0.9\nmap_Ks c.png\nNs 100\nmap_Ns r.png\n"
              "newmtl glow\nKd 0 0 0\nmap_Ke c.png\n");
    std::string obj = "mtllib m.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\n";
    for (const char* m : {"pbr", "pbrmap", "metal", "glow"}) obj += std::string("usemtl ") + m + "\nf 1 2 3\n";
    dir.write("m.obj", obj);
    Scene s;
    load_obj(s, dir.file("m.obj"), ObjOptions{});
    ASSERT_EQ(s.materials.size(), 4u);
    EXPECT_EQ(s.materials[0].type, kMetalRough);
    EXPECT_FLOAT_EQ(s.materials[0].alpha, 0.25f);
    EXPECT_FLOAT_EQ(s.materials[0].metallic, 1.0f);
    EXPECT_EQ(s.materials[1].type, kMetalRough);
    ASSERT_GE(s.materials[1].metal_rough_texture, 0);
    const TextureImage& packed =
        s.textures[static_cast<size_t>(s.texture_views[s.materials[1].metal_rough_texture].image)];
    EXPECT_EQ((packed.texels[0] >> 8) & 0xff, 128u) << "G = roughness";
    EXPECT_EQ(s.materials[2].type, kConductor);
    EXPECT_GE(s.materials[2].albedo_texture, 0) << "map_Ks is the metal's F0";
    EXPECT_GE(s.materials[2].metal_rough_texture, 0) << "map_Ns is its roughness";
    EXPECT_GE(s.materials[3].emission_texture, 0);
    EXPECT_FLOAT_EQ(s.materials[3].emission.x, 1.0f) << "map_Ke without Ke is the emission";
    EXPECT_TRUE(s.load_stats.warnings.empty()) << warnings(s);
}

TEST(MtlMaps, EveryIgnoredStatementIsOneWarningPerKindPerFile) {
    TempDir dir;
    write_rgba_png(dir.file("t.png"), 1, 1, {rgba(128, 128, 128)});
    dir.write("m.mtl",
              "newmtl a\nKd 0.5 0.5 0.5\nKa 0.2 0.2 0.2\nmap_refl t.png\nmap_Kd -mm 0 1.5 t.png\n"
              "newmtl b\nKd 0.5 0.5 0.5\nmap_refl t.png\nPs 0.3\n");
    std::string obj = "mtllib m.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl a\nf 1 2 3\nusemtl b\nf 1 2 3\n";
    dir.write("m.obj", obj);
    Scene s;
    load_obj(s, dir.file("m.obj"), ObjOptions{});
    std::string all = warnings(s);
    EXPECT_NE(all.find("m.mtl: 'map_refl' ignored (2 materials)"), std::string::npos) << all;
    EXPECT_NE(all.find("m.mtl: 'Ps' ignored (1 material)"), std::string::npos) << all;
    EXPECT_NE(all.find("m.mtl: 'Ka' (ambient; lights are Ke) ignored (1 material)"), std::string::npos) << all;
    EXPECT_NE(all.find("m.mtl: map_Kd -mm ignored (1 material)"), std::string::npos) << all;
    EXPECT_EQ(s.load_stats.warnings.size(), 4u) << all;
}

TEST(MtlMaps, DabrovicSponzaBumpMapsBecomeNormalMaps) {
    REQUIRE_SHARED_SCENE("dabrovic-sponza/sponza.obj");
    Scene s;
    load_obj(s, pkrt_test::shared_scene("dabrovic-sponza/sponza.obj"), ObjOptions{});
    int bumped = 0;
    for (const auto& m : s.materials) bumped += m.normal_texture >= 0;
    EXPECT_GE(bumped, 17) << "17 materials have a bump map (height maps)";
    EXPECT_EQ(s.tangents.size(), s.tris.size());
}

TEST(Cutouts, TheExporterSceneRendersItsCheckeredLeafOnTheCpu) {
    TempDir dir;
    std::string path = pkrt_test::write_cutout_scene(dir.path().string());
    Scene s = load_scene(path);
    prepare_scene(s);
    for (const auto& w : s.load_stats.warnings) EXPECT_NE(w.find("not found as spelled"), std::string::npos) << w;
    int cut = 0, mapped = 0;
    for (size_t m = 0; m < s.materials.size(); ++m) {
        cut += has_cutout(s, static_cast<int32_t>(m));
        mapped += s.materials[m].normal_texture >= 0;
    }
    EXPECT_EQ(cut, 1);
    EXPECT_EQ(mapped, 2);
    int float_emission = 0, tga = 0;
    for (const auto& m : s.materials) {
        if (m.emission_texture >= 0)
            float_emission +=
                s.textures[static_cast<size_t>(s.texture_views[m.emission_texture].image)].format == kTextureRgba32f;
        if (m.albedo_texture >= 0)
            tga += s.textures[static_cast<size_t>(s.texture_views[m.albedo_texture].image)].path.find(".tga") !=
                   std::string::npos;
    }
    EXPECT_EQ(float_emission, 1) << "the light's map_Ke is a float EXR";
    EXPECT_EQ(tga, 1) << "the leaf's colour is a TGA";
    // Looking straight at the leaf (z = 0, x in [-1, 1], y in [0.2, 1.8], uv 2 x 2 over the 8 x 8 checker,
    // so 16 x 16 cells over it) through the centres of one row's cells: leaf and wall alternate.
    SceneView v = view_scene(s);
    int leaf = 0, through = 0;
    float y = 0.2f + 1.6f * 5.5f / 16.0f;
    for (int k = 0; k < 16; ++k) {
        float x = -1.0f + (k + 0.5f) / 8.0f;
        Hit h = InlineTraversal::closest(v, Ray{{x, y, 3.0f}, {0.0f, 0.0f, -1.0f}});
        ASSERT_GE(h.prim, 0);
        bool on_leaf = std::fabs(h.t - 3.0f) < 1e-3f;
        EXPECT_EQ(on_leaf, ((k + 7 - 5) & 1) == 1) << "cell " << k;  // row 5 from the bottom is image row 2
        (on_leaf ? leaf : through) += 1;
    }
    EXPECT_EQ(leaf, 8);
    EXPECT_EQ(through, 8);
}

TEST(Cutouts, JsonMaterialsTakeAnAlphaTextureAndCutoff) {
    TempDir dir;
    write_rgba_png(dir.file("mask.png"), 2, 1, {rgba(100, 100, 100), rgba(160, 160, 160)});  // 0.39 and 0.63
    dir.write("s.json", R"({"materials": {"m": {"albedo": 0.5, "alpha": "mask.png", "alpha_cutoff": 0.5}},
        "meshes": [{"quad": [[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]], "material": "m"}]})");
    Scene s = load_scene(dir.file("s.json"));
    prepare_scene(s);
    ASSERT_TRUE(has_cutout(s, 0));
    EXPECT_FLOAT_EQ(s.material_cutouts[0].cutoff, 0.5f);
    // The quad's uvs: the JSON quad maps its corners to (0, 0), (1, 0), (1, 1), (0, 1).
    EXPECT_FALSE(hits(s, 0.05f, 0.5f));
    EXPECT_TRUE(hits(s, 0.95f, 0.5f));
    dir.write("bad.json",
              R"({"materials": {"m": {"alpha_cutoff": 0.5}}, "meshes": [{"sphere": {}, "material": "m"}]})");
    EXPECT_NE(pkrt_test::load_error(dir.file("bad.json")).find("needs an \"alpha\" texture"), std::string::npos);
    dir.write(
        "bad2.json",
        R"({"materials": {"m": {"alpha": "mask.png", "alpha_cutoff": 2}}, "meshes": [{"sphere": {}, "material": "m"}]})");
    EXPECT_NE(pkrt_test::load_error(dir.file("bad2.json")).find("must be in (0, 1]"), std::string::npos);
}

TEST(AssetPaths, JsonTexturesFollowTheSamePolicy) {
    TempDir dir;
    dir.write("s.json", R"({"materials": {"m": {"albedo": 0.3, "texture": "gone.png"}},
        "meshes": [{"quad": [[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]], "material": "m"}]})");
    EXPECT_NE(pkrt_test::load_error(dir.file("s.json")).find("gone.png: texture file not found"), std::string::npos);
    LoadLimits warn;
    warn.missing_textures = MissingTextures::kWarn;
    Scene s = load_scene(dir.file("s.json"), warn);
    EXPECT_EQ(s.materials[0].albedo_texture, -1);
    EXPECT_TRUE(any_warning(s, "'gone.png' not found")) << warnings(s);
}

TEST(MtlMaps, PbrValuesOutOfRangeNameTheFileAndLine) {
    TempDir dir;
    dir.write("m.mtl", "newmtl a\nKd 0.5 0.5 0.5\nPr 1.5\n");
    dir.write("m.obj", "mtllib m.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl a\nf 1 2 3\n");
    std::string e = pkrt_test::load_error(dir.file("m.obj"));
    EXPECT_NE(e.find("m.mtl:3: Pr 1.5: must be between 0 and 1"), std::string::npos) << e;
    dir.write("m.mtl", "newmtl a\nPm -0.1\n");
    e = pkrt_test::load_error(dir.file("m.obj"));
    EXPECT_NE(e.find("m.mtl:2: Pm -0.1: must be between 0 and 1"), std::string::npos) << e;
}
