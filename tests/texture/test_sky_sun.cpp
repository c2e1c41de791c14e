// The sky with a sun (render/texture/sky_sun.h): the disc delivers the irradiance the scene asks for at
// any elevation, next-event estimation finds it, the baked sky is the analytic one, and the keys are
// checked like the others.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "render/backend.h"
#include "render/scene/loaders.h"
#include "render/scene/scene.h"
#include "render/texture/sky_sun.h"
#include "tests/cli/test_cli_util.h"
#include "tests/test_render_util.h"

using namespace pkrt;
using namespace pkrt_test;

namespace {

constexpr double kPiD = 3.14159265358979323846;

RenderOutput render_cpu(const Scene& s, int w, int h, int spp, int depth, uint32_t seed) {
    auto backend = make_cpu_backend();
    return render_image(*backend, s, settings(w, h, spp, depth, seed), nullptr);
}

// A grey floor (albedo 0.5) seen from above, filling the view, under `environment`.
std::string floor_scene(const std::string& environment) {
    return R"({"camera": {"eye": [0, 5, 0], "look_at": [0, 0, 0], "up": [0, 0, -1], "fov": 20},
        "environment": )" +
           environment + R"(,
        "materials": {"grey": {"albedo": 0.5}},
        "meshes": [{"quad": [[-50, 0, -50], [-50, 0, 50], [50, 0, 50], [50, 0, -50]], "material": "grey"}]})";
}

double relative_spread(const Image& img) {
    double m = mean(img), v = 0.0;
    for (const auto& p : img.pixels) {
        double d = (p[0] + p[1] + p[2]) / 3.0 - m;
        v += d * d;
    }
    return std::sqrt(v / img.pixels.size()) / m;
}

}  // namespace

TEST(SkySun, MapResolvesTheDiscWithAboutThreeTexels) {
    EXPECT_EQ(sun_sky_map_width(0.53f), 2048);
    EXPECT_EQ(sun_sky_map_width(5.0f), 512);
    EXPECT_EQ(sun_sky_map_width(0.1f), 8192);
    for (float a : {0.1f, 0.53f, 2.0f, 30.0f}) {
        const int w = sun_sky_map_width(a);
        EXPECT_LE(360.0 / w * 3.0, std::max(a, 360.0f / 8192 * 3.0f) * 2.0) << a;
    }
}

// A black sky and a sun of irradiance E: a Lambertian floor of albedo 0.5 reflects 0.5 E cos(z) / pi,
// z the sun's angle from the zenith, under a disc of any size.
TEST(SkySun, TheDiscDeliversItsIrradianceAtAnyElevation) {
    TempDir dir;
    struct Case {
        double zenith_degrees;
        float angle;
    };
    for (Case c : {Case{0, 0.53f}, Case{60, 0.53f}, Case{35, 4.0f}}) {
        const double z = c.zenith_degrees * kPiD / 180.0;
        char e[320];
        std::snprintf(e, sizeof e,
                      R"({"type": "sky", "zenith": 0, "horizon": 0, "ground": 0, "intensity": 2,
                          "sun": {"direction": [%.9f, %.9f, 0], "angle": %g, "irradiance": [1.5, 1, 0.5]}})",
                      std::sin(z), std::cos(z), static_cast<double>(c.angle));
        dir.write("s.json", floor_scene(e));
        Scene s = load_prepared(dir.file("s.json"));
        ASSERT_EQ(s.environment.type, kEnvMap);
        RenderOutput out = render_cpu(s, 8, 8, 256, 1, 3);
        const double expect[3] = {0.5 * 2 * 1.5 * std::cos(z) / kPiD, 0.5 * 2 * 1.0 * std::cos(z) / kPiD,
                                  0.5 * 2 * 0.5 * std::cos(z) / kPiD};
        for (int ch = 0; ch < 3; ++ch) {
            double m = 0.0;
            for (const auto& p : out.image.pixels) m += p[ch];
            m /= out.image.pixels.size();
            EXPECT_NEAR(m, expect[ch], 0.01 * expect[ch])
                << "sun " << c.zenith_degrees << " deg from the zenith, " << c.angle << " deg across, channel " << ch;
        }
        EXPECT_EQ(out.stats.nonfinite_samples, 0u);
    }
}

// Next-event estimation aims at the disc: under a sun alone one sample a pixel lights the floor all but
// evenly (BSDF sampling would hit a 0.53-degree sun once in about 15,000 samples, and leave the rest
// black).
TEST(SkySun, NextEventEstimationFindsTheSun) {
    TempDir dir;
    dir.write("s.json", floor_scene(R"({"type": "sky", "zenith": 0, "horizon": 0, "ground": 0,
        "sun": {"direction": [0.3, 1, 0.2], "irradiance": 20}})"));
    Scene s = load_prepared(dir.file("s.json"));
    RenderOutput out = render_cpu(s, 16, 16, 1, 1, 7);
    const double expect = 0.5 * 20 / std::sqrt(1.13) / kPiD;  // cos z = 1 / |(0.3, 1, 0.2)|
    EXPECT_NEAR(mean(out.image), expect, 0.02 * expect);
    EXPECT_LT(relative_spread(out.image), 0.02);
}

// Without a sun's irradiance the baked map is the analytic sky: the same floor, lit through bounces, in
// the mean (the map holds the sky at texel centres, bilinearly between them).
TEST(SkySun, ABlackSunLeavesTheAnalyticSky) {
    TempDir dir;
    const std::string sky = R"("type": "sky", "zenith": [0.2, 0.4, 1], "horizon": [1, 0.9, 0.8], "ground": 0.2)";
    dir.write("a.json", floor_scene("{" + sky + "}"));
    dir.write("b.json", floor_scene("{" + sky + R"(, "sun": {"direction": [0, 1, 0], "irradiance": 0}})"));
    Scene a = load_prepared(dir.file("a.json")), b = load_prepared(dir.file("b.json"));
    EXPECT_EQ(a.environment.type, kEnvSky);
    EXPECT_EQ(b.environment.type, kEnvMap);
    const double ma = mean(render_cpu(a, 8, 8, 1024, 2, 1).image), mb = mean(render_cpu(b, 8, 8, 1024, 2, 2).image);
    EXPECT_NEAR(mb, ma, 0.01 * ma);
}

TEST(SkySun, JsonKeysAreCheckedLikeTheOthers) {
    TempDir dir;
    auto error_of = [&](const std::string& env) {
        dir.write("s.json", floor_scene(env));
        return load_error(dir.file("s.json"));
    };
    const std::string ok = R"("direction": [0, 1, 0], "irradiance": 1)";
    EXPECT_EQ(error_of(R"({"type": "sky", "sun": {)" + ok + "}}"), "");
    EXPECT_NE(error_of(R"({"type": "constant", "sun": {)" + ok + "}}").find("environment.sun: only a \"sky\""),
              std::string::npos);
    EXPECT_NE(error_of(R"({"type": "sky", "sun": 3})").find("environment.sun: must be an object"), std::string::npos);
    EXPECT_NE(error_of(R"({"type": "sky", "sun": {"irradiance": 1}})").find("needs a \"direction\""),
              std::string::npos);
    EXPECT_NE(error_of(R"({"type": "sky", "sun": {"direction": [0, 0, 0], "irradiance": 1}})")
                  .find("environment.sun.direction: must not be zero"),
              std::string::npos);
    EXPECT_NE(error_of(R"({"type": "sky", "sun": {"direction": [0, 1, 0]}})").find("needs an \"irradiance\""),
              std::string::npos);
    EXPECT_NE(error_of(R"({"type": "sky", "sun": {)" + ok + R"(, "angle": 0.01}})").find("environment.sun.angle"),
              std::string::npos);
    EXPECT_NE(error_of(R"({"type": "sky", "sun": {"direction": [0, 1, 0], "irradiance": -1}})")
                  .find("environment.sun.irradiance: must not be negative"),
              std::string::npos);
    EXPECT_NE(error_of(R"({"type": "sky", "sun": {)" + ok + R"(, "size": 1}})").find("unknown key 'size'"),
              std::string::npos);
    EXPECT_NE(error_of(R"({"type": "sky", "sun": {"direction": [0, 1, "x"], "irradiance": 1}})")
                  .find("environment.sun.direction[2]"),
              std::string::npos);
    // The texel budget counts the sky's map.
    dir.write("s.json", floor_scene(R"({"type": "sky", "sun": {)" + ok + "}}"));
    LoadLimits small;
    small.max_texels = 1000;
    EXPECT_NE(load_error(dir.file("s.json"), small).find("environment.sun"), std::string::npos);
}
