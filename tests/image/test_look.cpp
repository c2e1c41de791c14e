// How radiance becomes a picture (render/image/look.h): the tone curves' shapes, automatic exposure's
// analytic answer, the flags' and scene keys' parsing, and pkrt render's PNGs through them.
#include <gtest/gtest.h>
#include <stb_image.h>

#include <cmath>
#include <string>

#include "render/error.h"
#include "render/image/image.h"
#include "render/image/look.h"
#include "tests/test_util.h"

using namespace pkrt;
using namespace pkrt_test;

namespace {

float grey(ToneCurve c, float v) { return tone_curve(splat(v), c).x; }

Image constant_image(int w, int h, Vec3 v) {
    Image im;
    im.width = w;
    im.height = h;
    im.pixels.assign(static_cast<size_t>(w) * h, v);
    return im;
}

}  // namespace

TEST(Look, ClampIsTheIdentityOnTheUnitIntervalAndClipsAbove) {
    for (float v : {0.0f, 0.01f, 0.5f, 1.0f}) EXPECT_EQ(grey(ToneCurve::kClamp, v), v);
    EXPECT_EQ(grey(ToneCurve::kClamp, 7.0f), 1.0f);
    EXPECT_EQ(grey(ToneCurve::kClamp, -1.0f), 0.0f);
}

// The filmic curves: black stays black, they rise monotonically, keep greys grey, roll highlights off
// towards white instead of clipping at 1, and differ from each other.
TEST(Look, FilmicCurvesAreMonotonicNeutralAndRollOff) {
    for (ToneCurve c : {ToneCurve::kAces, ToneCurve::kAgx}) {
        SCOPED_TRACE(tone_curve_name(c));
        EXPECT_LT(grey(c, 0.0f), 0.005f);
        float last = -1.0f;
        for (float v = 1e-3f; v < 1e3f; v *= 1.25f) {
            Vec3 t = tone_curve(splat(v), c);
            EXPECT_GE(t.x, last) << v;
            EXPECT_NEAR(t.x, t.y, 2e-3f) << v;
            EXPECT_NEAR(t.x, t.z, 2e-3f) << v;
            last = t.x;
        }
        EXPECT_LT(grey(c, 1.0f), 0.95f) << "a filmic curve compresses 1 below white";
        EXPECT_GT(grey(c, 1000.0f), 0.9f);
        EXPECT_LE(grey(c, 1000.0f), 1.0f);
    }
    EXPECT_GT(std::fabs(grey(ToneCurve::kAces, 0.18f) - grey(ToneCurve::kAgx, 0.18f)), 0.01f);
}

// Reinhard's key: the log-average luminance goes to 0.18. For a constant image of luminance L that is
// log2(0.18 / (L + 1e-4)) stops. The average is over 8x8 blocks' mean luminances: two blocks of 0.5 and
// 8 give their geometric mean, while two pixels of 0.5 and 8 in one block give their arithmetic mean.
TEST(Look, AutoExposureMapsTheLogAverageToMidGrey) {
    EXPECT_NEAR(auto_exposure_stops(constant_image(8, 4, splat(5.0f))), std::log2(0.18 / 5.0001), 1e-5);
    Image two = constant_image(16, 8, splat(0.5f));
    for (int y = 0; y < 8; ++y)
        for (int x = 8; x < 16; ++x) two.at(x, y) = splat(8.0f);
    EXPECT_NEAR(auto_exposure_stops(two), std::log2(0.18 / std::sqrt(0.5001 * 8.0001)), 1e-5);
    Image one = constant_image(2, 1, splat(0.5f));
    one.pixels[1] = splat(8.0f);
    EXPECT_NEAR(auto_exposure_stops(one), std::log2(0.18 / 4.2501), 1e-5);
    // A partial block at the edge is its own pixels' mean.
    Image edge = constant_image(9, 1, splat(1.0f));
    edge.pixels[8] = splat(0.25f);
    EXPECT_NEAR(auto_exposure_stops(edge), std::log2(0.18 / std::sqrt(1.0001 * 0.2501)), 1e-5);
    // Luminance is Rec. 709's: pure green weighs 0.7152.
    EXPECT_NEAR(auto_exposure_stops(constant_image(1, 1, {0.0f, 1.0f, 0.0f})), std::log2(0.18 / 0.7153), 1e-5);
    // Black counts at the floor, not as minus infinity; an empty image needs no exposure.
    EXPECT_NEAR(auto_exposure_stops(constant_image(1, 1, splat(0.0f))), std::log2(0.18 / 1e-4), 1e-5);
    EXPECT_EQ(auto_exposure_stops(0.0, 0.0), 0.0f);
}

TEST(Look, ExposureAndCurveParse) {
    Look look;
    parse_exposure("auto", &look);
    EXPECT_TRUE(look.auto_exposure);
    parse_exposure("-2.5", &look);
    EXPECT_FALSE(look.auto_exposure);
    EXPECT_EQ(look.exposure_stops, -2.5f);
    for (const char* bad : {"", "1.5x", "nan", "65", "Auto"})
        EXPECT_NE(error_of([&] { parse_exposure(bad, &look); }).find("--exposure: '"), std::string::npos) << bad;
    EXPECT_EQ(parse_tone_curve("agx"), ToneCurve::kAgx);
    EXPECT_EQ(parse_tone_curve("aces"), ToneCurve::kAces);
    EXPECT_EQ(parse_tone_curve("clamp"), ToneCurve::kClamp);
    EXPECT_FALSE(parse_tone_curve("ACES"));
}

// End to end: --exposure auto scales the PNG by 0.18 over the log-average luminance (of 8x8 blocks) of the very
// image the EXR beside it holds (the white furnace at 16 spp: 5.0 on average, noisy); the scene's
// render.tone_map and render.exposure are the PNG's unless a flag overrides them; bad values are one
// error line.
TEST(Look, PkrtRenderWritesThePngThroughTheLook) {
    TempDir dir;
    const std::string cwd = dir.path().string();
    const std::string furnace = shell_quote(std::string(PKRT_SCENES_DIR) + "/furnace.json");
    RunResult r = run_pkrt(
        "render " + furnace + " --backend cpu --res 16x16 --spp 16 --exposure auto -q -o f.png --hdr f.exr", cwd);
    ASSERT_EQ(r.code, 0) << r.err;
    Image exr = read_exr(dir.file("f.exr"));
    double sum_log = 0;
    for (int by = 0; by < 16; by += 8)
        for (int bx = 0; bx < 16; bx += 8) {
            double y = 0;
            for (int j = by; j < by + 8; ++j)
                for (int i = bx; i < bx + 8; ++i) {
                    const Vec3& p = exr.at(i, j);
                    y += 0.2126 * p.x + 0.7152 * p.y + 0.0722 * p.z;
                }
            sum_log += std::log(y / 64 + 1e-4);
        }
    const double scale = 0.18 / std::exp(sum_log / 4);
    EXPECT_NEAR(scale, 0.18 / 5.0, 0.1 * 0.18 / 5.0) << "the furnace is 5 on average";
    int w = 0, h = 0, n = 0;
    unsigned char* px = stbi_load(dir.file("f.png").c_str(), &w, &h, &n, 3);
    ASSERT_NE(px, nullptr);
    ASSERT_EQ(static_cast<size_t>(w) * h, exr.pixels.size());
    for (size_t i = 0; i < exr.pixels.size(); ++i)
        for (int k = 0; k < 3; ++k)
            EXPECT_NEAR(px[3 * i + k], linear_to_srgb8(static_cast<float>(exr.pixels[i][k] * scale)), 1) << i;
    stbi_image_free(px);

    const std::string cornell = std::string(PKRT_SCENES_DIR) + "/spheres.json";  // shapes only: it can move
    std::string text = read_text(cornell);
    size_t at = text.find("\"render\": {");
    ASSERT_NE(at, std::string::npos);
    std::string looked = text;
    looked.insert(at + 11, "\"tone_map\": \"agx\", \"exposure\": 1, ");
    dir.write("in_agx.json", looked);
    const std::string small = " --backend cpu --res 24x24 --spp 2 -q";
    ASSERT_EQ(run_pkrt("render in_agx.json" + small + " -o scene.png", cwd).code, 0);
    ASSERT_EQ(
        run_pkrt("render " + shell_quote(cornell) + small + " --tone-map agx --exposure 1 -o flags.png", cwd).code, 0);
    ASSERT_EQ(run_pkrt("render in_agx.json" + small + " --tone-map clamp --exposure 0 -o over.png", cwd).code, 0);
    ASSERT_EQ(run_pkrt("render " + shell_quote(cornell) + small + " -o plain.png", cwd).code, 0);
    EXPECT_EQ(read_text(dir.file("scene.png")), read_text(dir.file("flags.png")));
    EXPECT_EQ(read_text(dir.file("over.png")), read_text(dir.file("plain.png")));
    EXPECT_NE(read_text(dir.file("scene.png")), read_text(dir.file("plain.png")));

    for (const auto& [bad, needle] :
         {std::pair<std::string, std::string>{"\"tone_map\": \"filmic\", ",
                                              "render.tone_map: must be clamp, aces or agx"},
          {"\"exposure\": \"bright\", ", "render.exposure: must be a number of stops or \"auto\""},
          {"\"exposure\": 100, ", "render.exposure: must be between -64 and 64 stops"}}) {
        std::string t = text;
        t.insert(at + 11, bad);
        dir.write("in_bad.json", t);
        RunResult b = run_pkrt("render in_bad.json" + small + " -o bad.png", cwd);
        EXPECT_EQ(b.code, 1);
        EXPECT_NE(b.err.find(needle), std::string::npos) << b.err;
    }
}
