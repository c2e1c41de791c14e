// Feature buffers (kernels/features.h) on the CPU backend: analytic albedo, normal and depth of surfaces
// seen directly and in a mirror, zeros where samples escape, an image unchanged by keeping them, and the
// EXR layers that --aov writes (render/image/aov.h).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "render/backend.h"
#include "render/checkpoint.h"
#include "render/error.h"
#include "render/image/aov.h"
#include "tests/test_render_util.h"
#include "tests/test_util.h"

using namespace pkrt;
using pkrt_test::load_prepared;
using pkrt_test::settings;
using pkrt_test::TempDir;

namespace {

// A camera at the origin looking down -z (fov 60) at a diffuse quad 3 away spanning x, y in [-1, 1];
// around it a constant sky. In a 32x32 image, pixel columns and rows 7..24 see the quad in full, and
// 0..5 and 26..31 never do.
const char* kQuadScene = R"({
  "camera": {"eye": [0, 0, 0], "look_at": [0, 0, -1], "up": [0, 1, 0], "fov": 60},
  "environment": {"type": "constant", "color": [0.5, 0.5, 0.5]},
  "materials": {"paint": {"type": "diffuse", "albedo": [0.2, 0.4, 0.6]}},
  "meshes": [{"quad": [[-1, -1, -3], [1, -1, -3], [1, 1, -3], [-1, 1, -3]], "material": "paint"}]
})";

// The same camera (fov 20) at a smooth gold mirror 3 away; behind the camera a diffuse wall at z = 2,
// which the centre pixels see in the mirror.
const char* kMirrorScene = R"({
  "camera": {"eye": [0, 0, 0], "look_at": [0, 0, -1], "up": [0, 1, 0], "fov": 20},
  "environment": {"type": "constant", "color": [0.5, 0.5, 0.5]},
  "materials": {"mirror": {"type": "conductor", "albedo": [0.9, 0.8, 0.5], "roughness": 0},
                "wall": {"type": "diffuse", "albedo": [0.3, 0.6, 0.9]}},
  "meshes": [{"quad": [[-3, -3, -3], [3, -3, -3], [3, 3, -3], [-3, 3, -3]], "material": "mirror"},
             {"quad": [[-9, -9, 2], [-9, 9, 2], [9, 9, 2], [9, -9, 2]], "material": "wall"}]
})";

RenderOutput render_features(const Scene& s, int w, int h, int spp, int depth) {
    auto backend = make_cpu_backend();
    RenderSettings rs = settings(w, h, spp, depth, 3);
    rs.features = true;
    return render_image(*backend, s, rs, nullptr);
}

void expect_vec_near(Vec3 got, Vec3 want, float tol, const std::string& what) {
    EXPECT_NEAR(got.x, want.x, tol) << what;
    EXPECT_NEAR(got.y, want.y, tol) << what;
    EXPECT_NEAR(got.z, want.z, tol) << what;
}

}  // namespace

TEST(Features, ASurfaceSeenDirectlyGivesItsAlbedoNormalAndDepth) {
    TempDir dir;
    Scene s = load_prepared(dir.write("quad.json", kQuadScene));
    RenderOutput out = render_features(s, 32, 32, 4, 4);
    const FeatureImages& f = out.features;
    ASSERT_EQ(f.albedo.width, 32);
    for (int y = 7; y <= 24; ++y)
        for (int x = 7; x <= 24; ++x) {
            std::string at = "pixel " + std::to_string(x) + "," + std::to_string(y);
            expect_vec_near(f.albedo.at(x, y), {0.2f, 0.4f, 0.6f}, 1e-5f, at);
            expect_vec_near(f.normal.at(x, y), {0.0f, 0.0f, 1.0f}, 1e-5f, at);
            EXPECT_NEAR(f.depth.at(x, y).x, 3.0f, 1e-4f) << at;  // a plane square to the view axis: z = 3
        }
    // Where every sample escapes: zeros, like the features of nothing.
    for (int y : {0, 5, 26, 31})
        for (int x : {0, 3, 28, 31}) {
            std::string at = "pixel " + std::to_string(x) + "," + std::to_string(y);
            expect_vec_near(f.albedo.at(x, y), splat(0.0f), 0.0f, at);
            expect_vec_near(f.normal.at(x, y), splat(0.0f), 0.0f, at);
            EXPECT_EQ(f.depth.at(x, y).x, 0.0f) << at;
        }
    // An edge pixel (column 6: the quad covers part of it) lies between: its albedo is the quad's
    // times the share of samples that hit it.
    float share = f.albedo.at(6, 16).y / 0.4f;
    EXPECT_NEAR(f.albedo.at(6, 16).x / 0.2f, share, 1e-4f);
    EXPECT_NEAR(f.depth.at(6, 16).x / 3.0f, share, 1e-3f);
}

TEST(Features, AMirrorShowsTheSurfaceItReflects) {
    TempDir dir;
    Scene s = load_prepared(dir.write("mirror.json", kMirrorScene));
    RenderOutput out = render_features(s, 16, 16, 2, 4);
    const FeatureImages& f = out.features;
    // The wall's albedo through the gold's Fresnel reflectance (Schlick, near normal incidence: its
    // albedo within 1%), the wall's normal faced towards the ray from the mirror, and the mirror's depth.
    for (int y = 6; y <= 9; ++y)
        for (int x = 6; x <= 9; ++x) {
            std::string at = "pixel " + std::to_string(x) + "," + std::to_string(y);
            expect_vec_near(f.albedo.at(x, y), {0.3f * 0.9f, 0.6f * 0.8f, 0.9f * 0.5f}, 0.01f, at);
            expect_vec_near(f.normal.at(x, y), {0.0f, 0.0f, -1.0f}, 1e-5f, at);
            EXPECT_NEAR(f.depth.at(x, y).x, 3.0f, 1e-4f) << at;
        }
    // With no bounce to reach the wall (max depth 0) the mirror's pixels have a depth and nothing else.
    RenderOutput direct = render_features(s, 16, 16, 2, 0);
    expect_vec_near(direct.features.albedo.at(8, 8), splat(0.0f), 0.0f, "depth 0");
    EXPECT_NEAR(direct.features.depth.at(8, 8).x, 3.0f, 1e-4f);
}

TEST(Features, KeepingThemLeavesTheImageAsItWas) {
    Scene s = load_prepared(std::string(PKRT_SCENES_DIR) + "/spheres.json");
    auto backend = make_cpu_backend();
    RenderSettings rs = settings(24, 16, 4, 6, 9);
    Image plain = render_image(*backend, s, rs, nullptr).image;
    rs.features = true;
    RenderOutput with = render_image(*backend, s, rs, nullptr);
    ASSERT_EQ(plain.pixels.size(), with.image.pixels.size());
    for (size_t i = 0; i < plain.pixels.size(); ++i) {
        EXPECT_EQ(plain.pixels[i].x, with.image.pixels[i].x);
        EXPECT_EQ(plain.pixels[i].y, with.image.pixels[i].y);
        EXPECT_EQ(plain.pixels[i].z, with.image.pixels[i].z);
    }
    // A mean of unit normals: no longer than 1, and close to 1 where the pixel's samples saw one smooth
    // surface (most pixels).
    int unit = 0;
    for (const Vec3& n : with.features.normal.pixels) {
        float len = length(n);
        EXPECT_LE(len, 1.0f + 1e-5f);
        unit += len > 0.99f;
    }
    EXPECT_GT(unit, static_cast<int>(with.features.normal.pixels.size()) / 2);
    // And off again: the next render keeps none.
    rs.features = false;
    EXPECT_TRUE(render_image(*backend, s, rs, nullptr).features.empty());
    EXPECT_TRUE(backend->accumulation().features.empty());
}

TEST(Features, AdaptiveRoundsKeepThemToo) {
    TempDir dir;
    Scene s = load_prepared(dir.write("quad.json", kQuadScene));
    auto backend = make_cpu_backend();
    RenderSettings rs = settings(32, 32, 64, 4, 3);
    rs.features = true;
    rs.adaptive = pkrt_test::adaptive_settings(0.05f, 4, 64);
    RenderOutput out = render_image(*backend, s, rs, nullptr);
    expect_vec_near(out.features.albedo.at(16, 16), {0.2f, 0.4f, 0.6f}, 1e-5f, "centre");
    EXPECT_NEAR(out.features.depth.at(16, 16).x, 3.0f, 1e-4f);
}

TEST(Aov, ListsParseAndBadOnesNameTheFlag) {
    EXPECT_EQ(parse_aov_list("albedo,normal,depth"), (std::vector<Aov>{Aov::kAlbedo, Aov::kNormal, Aov::kDepth}));
    EXPECT_EQ(parse_aov_list("depth"), (std::vector<Aov>{Aov::kDepth}));
    for (const char* bad : {"", "albedo,", ",depth", "albedo,albedo", "colour", "Albedo"}) {
        try {
            parse_aov_list(bad);
            ADD_FAILURE() << "accepted '" << bad << "'";
        } catch (const Error& e) {
            EXPECT_EQ(std::string(e.what()).rfind(std::string("--aov ") + bad + ":", 0), 0u) << e.what();
        }
    }
}

TEST(Aov, ExrLayersRoundTripUnderBlendersNames) {
    TempDir dir;
    Scene s = load_prepared(dir.write("quad.json", kQuadScene));
    RenderOutput out = render_features(s, 32, 32, 2, 4);
    std::string path = dir.file("out.exr");
    std::vector<Aov> all = {Aov::kAlbedo, Aov::kNormal, Aov::kDepth};
    std::string bytes = encode_exr_with_aovs(out.image, {{"pkrt:test", "1"}}, out.features, all);
    std::ofstream(path, std::ios::binary) << bytes;
    FeatureImages back = read_aov_layers(path, 32, 32, all);
    for (size_t i = 0; i < back.albedo.pixels.size(); ++i) {
        EXPECT_EQ(back.albedo.pixels[i].y, out.features.albedo.pixels[i].y);
        EXPECT_EQ(back.normal.pixels[i].z, out.features.normal.pixels[i].z);
        EXPECT_EQ(back.depth.pixels[i].x, out.features.depth.pixels[i].x);
    }
    for (const char* name : {"Denoising Albedo.R", "Denoising Albedo.B", "Denoising Normal.X", "Denoising Normal.Z",
                             "Depth.Z", "pkrt:test"})
        EXPECT_NE(bytes.find(name), std::string::npos) << name;
    // The radiance is the file's R, G, B as before.
    Image rgb = read_exr(path);
    EXPECT_EQ(rgb.pixels[16 * 32 + 16].x, out.image.pixels[16 * 32 + 16].x);
    // A file with only some layers: the others are named as missing.
    std::string some = dir.file("some.exr");
    std::ofstream(some, std::ios::binary) << encode_exr_with_aovs(out.image, {}, out.features, {Aov::kDepth});
    try {
        read_aov_layers(some, 32, 32, all);
        ADD_FAILURE() << "read a layer the file lacks";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("has no Denoising Albedo.R channel (rendered without --aov albedo)"),
                  std::string::npos)
            << e.what();
    }
}

// The line offset table after an EXR's header: one offset per block of 16 rows (ZIP, OpenEXR's default),
// each where its block starts (its row number), in order. OpenEXR writes the table as its file closes;
// bytes taken before that had a table of zeros, which OpenEXR's reader rebuilds quietly but other readers
// (the training tools' tools/denoiser/exr.py among them) cannot.
void expect_line_offsets(const std::string& b, int height) {
    size_t at = 8;
    for (;;) {  // attributes: name, type, size, value; an empty name ends the header
        const size_t name_end = b.find('\0', at);
        ASSERT_NE(name_end, std::string::npos);
        if (name_end == at) break;
        const size_t type_end = b.find('\0', name_end + 1);
        ASSERT_NE(type_end, std::string::npos);
        uint32_t size = 0;
        std::memcpy(&size, b.data() + type_end + 1, 4);
        at = type_end + 5 + size;
    }
    ++at;
    const int blocks = (height + 15) / 16;
    uint64_t previous = at + 8 * size_t(blocks) - 1;
    for (int k = 0; k < blocks; ++k) {
        uint64_t offset = 0;
        std::memcpy(&offset, b.data() + at + 8 * k, 8);
        ASSERT_GT(offset, previous) << "block " << k;
        ASSERT_LT(offset + 8, b.size()) << "block " << k;
        int32_t row = -1;
        std::memcpy(&row, b.data() + offset, 4);
        EXPECT_EQ(row, 16 * k) << "block " << k;
        previous = offset;
    }
}

TEST(Aov, ExrFilesCarryTheirLineOffsets) {
    TempDir dir;
    Scene s = load_prepared(dir.write("quad.json", kQuadScene));
    RenderOutput out = render_features(s, 24, 40, 2, 4);
    expect_line_offsets(encode_exr(out.image), 40);
    expect_line_offsets(encode_exr_with_aovs(out.image, {{"pkrt:spp", "4"}}, out.features, kAllAovs, &out.image), 40);
}

TEST(Aov, PreviewsExpandTheirFeatures) {
    TempDir dir;
    Scene s = load_prepared(dir.write("quad.json", kQuadScene));
    auto backend = make_cpu_backend();
    RenderSettings rs = settings(32, 32, 1, 2, 3);
    rs.features = true;
    rs.preview = 4;
    RenderOutput out = render_image(*backend, s, rs, nullptr);
    // Each 4x4 block is one rendered pixel.
    for (int y = 0; y < 32; ++y)
        for (int x = 0; x < 32; ++x)
            EXPECT_EQ(out.features.depth.at(x, y).x, out.features.depth.at(x / 4 * 4, y / 4 * 4).x);
    EXPECT_NEAR(out.features.depth.at(16, 16).x, 3.0f, 1e-4f);
}
