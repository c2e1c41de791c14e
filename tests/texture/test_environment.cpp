// Environment maps: the importance sampler against its pdf, the pdf against the sphere, renders against
// the constant environment and the furnace, rotation and orientation, and the .hdr / .exr loaders with
// hostile files.
#include <gtest/gtest.h>
#include <stb_image_write.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "kernels/shading/lights.h"
#include "render/backend.h"
#include "render/error.h"
#include "render/image/image.h"
#include "render/scene/loaders.h"
#include "render/scene/scene.h"
#include "tests/cli/test_cli_util.h"
#include "tests/test_render_util.h"

using namespace pkrt;
using namespace pkrt_test;

namespace {

constexpr double kPiD = 3.14159265358979323846;

// A map held by the test, with an Environment over it (as view_scene would make).
struct TestMap {
    EnvironmentMap map;
    Environment env{};
    TestMap(int w, int h, float rotation_degrees = 0.0f) {
        map.width = w;
        map.height = h;
        map.texels.assign(static_cast<size_t>(w) * h, splat(0.0f));
        env.type = kEnvMap;
        env.intensity = 1.0f;
        env.sin_rotation = static_cast<float>(std::sin(rotation_degrees * kPiD / 180.0));
        env.cos_rotation = static_cast<float>(std::cos(rotation_degrees * kPiD / 180.0));
    }
    Vec3& at(int i, int j) { return map.texels[static_cast<size_t>(j) * map.width + i]; }
    void build() {
        build_environment_distribution(map);
        env.texels = map.texels.data();
        env.width = map.width;
        env.height = map.height;
        env.marginal_cdf = map.marginal_cdf.data();
        env.conditional_cdf = map.conditional_cdf.data();
    }
};

Vec3 direction(double theta, double phi) {
    return {static_cast<float>(std::sin(theta) * std::cos(phi)), static_cast<float>(std::cos(theta)),
            static_cast<float>(std::sin(theta) * std::sin(phi))};
}

// A gradient from dark to bright across the azimuth, brighter towards the top, and a spot 200 times
// brighter: a distribution far from uniform in both directions.
TestMap spot_and_gradient(float rotation_degrees) {
    TestMap t(64, 32, rotation_degrees);
    for (int j = 0; j < 32; ++j)
        for (int i = 0; i < 64; ++i) t.at(i, j) = Vec3{0.05f + i / 64.0f, 0.1f + (32 - j) / 32.0f, 0.3f};
    for (int j = 10; j < 13; ++j)
        for (int i = 40; i < 43; ++i) t.at(i, j) = Vec3{200.0f, 150.0f, 100.0f};
    // Black texels 4-6 of rows 0-2: between their centres the lookup's reconstruction is black, never
    // sampled, pdf 0.
    for (int j = 0; j < 3; ++j)
        for (int i = 4; i < 7; ++i) t.at(i, j) = Vec3{0.0f, 0.0f, 0.0f};
    t.build();
    return t;
}

// Integral of env's pdf over the solid angle of theta in [t0, t1], phi in [p0, p1] (midpoint rule, n x n).
double pdf_integral(const Environment& env, double t0, double t1, double p0, double p1, int n) {
    double s = 0.0, dt = (t1 - t0) / n, dp = (p1 - p0) / n;
    for (int a = 0; a < n; ++a)
        for (int b = 0; b < n; ++b) {
            double th = t0 + (a + 0.5) * dt, ph = p0 + (b + 0.5) * dp;
            s += environment_pdf(env, direction(th, ph)) * std::sin(th) * dt * dp;
        }
    return s;
}

// Exact probability of the solid angle theta in [t0, t1], phi in [p0, p1] under the map's distribution:
// it is a rectangle of the map's (u, v) square (the rotation shifts u), over which the density per unit
// area is bilinear within each of the sampler's cells (their edges at texel centres). Cut at those edges,
// each piece's integral is its midpoint's density times its area, exactly (a quadrature over the whole
// bin would be off by more than the noise of a million samples at the edges of a 200:1 spot).
double bin_probability(const Environment& env, double rotation, double t0, double t1, double p0, double p1) {
    auto cuts = [](double a, double b, int n) {  // a, b and the cell edges (k + 1/2) / n between them
        std::vector<double> x{a};
        for (int k = static_cast<int>(std::floor(a * n - 0.5)); k <= static_cast<int>(std::ceil(b * n)); ++k) {
            double e = (k + 0.5) / n;
            if (e > a && e < b) x.push_back(e);
        }
        x.push_back(b);
        return x;
    };
    auto rect = [&](double ua, double ub, double va, double vb) {
        double sum = 0.0;
        std::vector<double> us = cuts(ua, ub, env.width), vs = cuts(va, vb, env.height);
        for (size_t a = 0; a + 1 < us.size(); ++a)
            for (size_t b = 0; b + 1 < vs.size(); ++b) {
                Vec2 mid{static_cast<float>(0.5 * (us[a] + us[a + 1])), static_cast<float>(0.5 * (vs[b] + vs[b + 1]))};
                sum += environment_map_pdf_uv(env, environment_map_cell(env, mid)) * (us[a + 1] - us[a]) *
                       (vs[b + 1] - vs[b]);
            }
        return sum;
    };
    double v0 = t0 / kPiD, v1 = t1 / kPiD;
    double u0 = 0.5 + (p0 + rotation + kPiD / 2) / (2 * kPiD), len = (p1 - p0) / (2 * kPiD);
    u0 -= std::floor(u0);
    if (u0 + len <= 1.0) return rect(u0, u0 + len, v0, v1);
    return rect(u0, 1.0, v0, v1) + rect(0.0, u0 + len - 1.0, v0, v1);
}

// Upper quantile of chi-square with k degrees of freedom at standard normal score z (Wilson-Hilferty).
double chi2_quantile(double k, double z) {
    double a = 2.0 / (9.0 * k);
    return k * std::pow(1.0 - a + z * std::sqrt(a), 3.0);
}

void write_exr_map(const std::string& path, int w, int h, Vec3 (*f)(int, int)) {
    Image img;
    img.width = w;
    img.height = h;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) img.pixels.push_back(f(x, y));
    write_exr(path, img);
}

std::string map_scene(const std::string& file, const std::string& extra = "") {
    return R"({"camera": {"eye": [0, 0, 3], "look_at": [0, 0, 0], "fov": 30},
        "environment": {"type": "map", "file": ")" +
           file + "\"" + extra + R"(},
        "meshes": [{"sphere": {"radius": 1, "subdivisions": 3}}]})";
}

RenderOutput render_cpu(const Scene& s, int w, int h, int spp, int depth, uint32_t seed) {
    auto backend = make_cpu_backend();
    return render_image(*backend, s, settings(w, h, spp, depth, seed), nullptr);
}

}  // namespace

// ---- Sampling ----

TEST(EnvironmentMap, PdfIntegratesToOneOverTheSphere) {
    for (float rot : {0.0f, 37.0f}) {
        TestMap t = spot_and_gradient(rot);
        EXPECT_NEAR(pdf_integral(t.env, 0.0, kPiD, -kPiD, kPiD, 2048), 1.0, 2e-3) << "rotation " << rot;
    }
}

// Sampled directions binned on a (theta, phi) grid that does not line up with the texels (the map is
// rotated 37 degrees), against the bins' probabilities integrated from environment_pdf. A pdf that
// forgot sin(theta), a marginal off by a row or a rotation applied only one way is thousands of sigma off.
TEST(EnvironmentMap, SamplesFollowThePdfChiSquare) {
    TestMap t = spot_and_gradient(37.0f);
    const double rotation = 37.0 * kPiD / 180.0;
    // The test's own (theta, phi) -> u, the one bin_probability relies on, against the renderer's.
    for (double ph : {-3.0, -1.0, 0.5, 2.9}) {
        double u = 0.5 + (ph + rotation + kPiD / 2) / (2 * kPiD);
        EXPECT_NEAR(environment_map_uv(environment_to_map(t.env, direction(1.0, ph))).x, u - std::floor(u), 1e-5);
    }
    const int nt = 24, np = 48, n = 1 << 20;
    std::vector<double> expected(nt * np), observed(nt * np, 0.0);
    double total = 0.0;
    for (int a = 0; a < nt; ++a)
        for (int b = 0; b < np; ++b) {
            double p = bin_probability(t.env, rotation, kPiD * a / nt, kPiD * (a + 1) / nt, -kPiD + 2 * kPiD * b / np,
                                       -kPiD + 2 * kPiD * (b + 1) / np);
            expected[a * np + b] = n * p;
            total += p;
        }
    EXPECT_NEAR(total, 1.0, 1e-5);
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> uni(0.0f, 1.0f);
    int pdf_mismatch = 0, radiance_mismatch = 0, no_sample = 0;
    for (int k = 0; k < n; ++k) {
        float pdf;
        Vec3 le;
        Vec3 d = environment_sample(t.env, uni(rng), uni(rng), &pdf, &le);
        if (!(pdf > 0.0f)) {
            ++no_sample;
            continue;
        }
        EXPECT_NEAR(length(d), 1.0f, 1e-5f);
        // Texel borders may round either way; anywhere else the two must agree.
        float p2 = environment_pdf(t.env, d);
        if (std::fabs(p2 - pdf) > 1e-3f * pdf) ++pdf_mismatch;
        Vec3 l2 = environment_radiance(t.env, d);
        if (length(l2 - le) > 1e-3f * length(le) + 1e-6f) ++radiance_mismatch;
        double th = std::acos(std::clamp(double(d.y), -1.0, 1.0)), ph = std::atan2(double(d.z), double(d.x));
        int a = std::min(nt - 1, static_cast<int>(th / kPiD * nt));
        int b = std::min(np - 1, static_cast<int>((ph + kPiD) / (2 * kPiD) * np));
        observed[a * np + b] += 1.0;
    }
    EXPECT_EQ(no_sample, 0);
    EXPECT_LT(pdf_mismatch, n / 1000) << "sample pdf against environment_pdf";
    EXPECT_LT(radiance_mismatch, n / 1000) << "sample radiance against environment_radiance";
    // Bins expecting fewer than 5 samples are pooled, as the test requires.
    double chi2 = 0.0, pooled_e = 0.0, pooled_o = 0.0;
    int bins = 0;
    for (size_t i = 0; i < expected.size(); ++i) {
        if (expected[i] < 5.0) {
            pooled_e += expected[i];
            pooled_o += observed[i];
            continue;
        }
        chi2 += (observed[i] - expected[i]) * (observed[i] - expected[i]) / expected[i];
        ++bins;
    }
    if (pooled_e > 0.0) {
        chi2 += (pooled_o - pooled_e) * (pooled_o - pooled_e) / std::max(pooled_e, 1.0);
        ++bins;
    }
    ASSERT_GT(bins, 500);
    // Significance 1e-6 (z = 4.75): the numerical bin integrals are exact to far better than the noise.
    EXPECT_LT(chi2, chi2_quantile(bins - 1, 4.75)) << bins << " bins";
}

TEST(EnvironmentMap, BlackTexelsAndAllBlackMapsAreNeverSampled) {
    TestMap t = spot_and_gradient(0.0f);
    // Between the centres of the black texels (5, 1) and (6, 2): u = 6 / 64, v = 2 / 32.
    double th = kPiD * 2.0 / 32, ph = 2 * kPiD * (6.0 / 64 - 0.5);
    Vec3 d = {static_cast<float>(std::sin(th) * std::sin(ph)), static_cast<float>(std::cos(th)),
              static_cast<float>(-std::sin(th) * std::cos(ph))};
    EXPECT_EQ(max_component(environment_radiance(t.env, d)), 0.0f);
    EXPECT_EQ(environment_pdf(t.env, d), 0.0f);
    // Where a bright neighbour's light reaches into a black texel, the sampler goes too.
    double th1 = kPiD * 3.2 / 32, ph1 = 2 * kPiD * (6.0 / 64 - 0.5);
    Vec3 d1 = {static_cast<float>(std::sin(th1) * std::sin(ph1)), static_cast<float>(std::cos(th1)),
               static_cast<float>(-std::sin(th1) * std::cos(ph1))};
    EXPECT_GT(luminance(environment_radiance(t.env, d1)), 0.0f);
    EXPECT_GT(environment_pdf(t.env, d1), 0.0f);
    EXPECT_GT(environment_pdf(t.env, normalize(Vec3{0, -1, 0.01f})), 0.0f);
    TestMap black(8, 4);
    black.build();
    EXPECT_FALSE(environment_is_light(black.env));
    EXPECT_TRUE(environment_is_light(t.env));
}

// ---- Orientation and rotation ----

TEST(EnvironmentMap, TheMiddleOfTheImageIsMinusZAndRotationTurnsItAboutPlusY) {
    // A spot at the middle of the image (u = 1/2, on the horizon) and one at u = 3/4.
    TestMap t(64, 32);
    t.at(31, 15) = t.at(32, 15) = t.at(31, 16) = t.at(32, 16) = Vec3{10, 0, 0};
    t.at(47, 15) = t.at(48, 15) = t.at(47, 16) = t.at(48, 16) = Vec3{0, 10, 0};
    t.build();
    EXPECT_GT(environment_radiance(t.env, Vec3{0, 0, -1}).x, 9.0f) << "the image's middle is -Z";
    EXPECT_GT(environment_radiance(t.env, Vec3{1, 0, 0}).y, 9.0f) << "u = 3/4 is +X (unmirrored from inside)";
    EXPECT_EQ(environment_radiance(t.env, Vec3{-1, 0, 0}).y, 0.0f);

    TestMap r(64, 32, 90.0f);
    r.map = t.map;
    r.build();
    // Right-handed about +Y: -Z turns to -X, +X to -Z.
    EXPECT_GT(environment_radiance(r.env, Vec3{-1, 0, 0}).x, 9.0f);
    EXPECT_EQ(environment_radiance(r.env, Vec3{0, 0, -1}).x, 0.0f);
    EXPECT_GT(environment_radiance(r.env, Vec3{0, 0, -1}).y, 9.0f);
    // The sampler follows: every sample of the rotated map lands near -X or -Z, in proportion to the two
    // spots' luminance (0.2126 : 0.7152, so 22.9% near -X; +-5 sigma of 10000 draws is +-210), within the
    // lookup's reconstruction of a spot: 1.5 texels (8.4 degrees) from its centre along each axis.
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> uni(0.0f, 1.0f);
    int near_minus_x = 0;
    for (int k = 0; k < 10000; ++k) {
        float pdf;
        Vec3 le;
        Vec3 d = environment_sample(r.env, uni(rng), uni(rng), &pdf, &le);
        if (le.x > 0.0f) near_minus_x += dot(d, Vec3{-1, 0, 0}) > 0.978f ? 1 : 0;
        else EXPECT_GT(dot(d, Vec3{0, 0, -1}), 0.978f);
    }
    EXPECT_GT(near_minus_x, 2080);
    EXPECT_LT(near_minus_x, 2500);
}

TEST(EnvironmentMap, JsonRotationAndIntensityReachTheEnvironment) {
    TempDir dir;
    write_exr_map(dir.file("m.exr"), 8, 4, [](int, int) { return Vec3{1, 2, 3}; });
    dir.write("s.json", map_scene("m.exr", R"(, "rotation": 90, "intensity": 2)"));
    Scene s = load_prepared(dir.file("s.json"));
    EXPECT_EQ(s.environment.type, kEnvMap);
    EXPECT_NEAR(s.environment.sin_rotation, 1.0f, 1e-6f);
    EXPECT_NEAR(s.environment.cos_rotation, 0.0f, 1e-6f);
    Vec3 le = environment_radiance(view_scene(s).env, Vec3{0.3f, 0.8f, -0.52f});
    EXPECT_NEAR(le.x, 2.0f, 1e-5f);
    EXPECT_NEAR(le.z, 6.0f, 1e-5f);
    EXPECT_EQ(s.env_select, 1.0f) << "the map is the only light";
    ASSERT_EQ(s.inputs.size(), 2u) << "the map is a scene input";
    EXPECT_EQ(s.inputs[1].path, dir.file("m.exr"));
}

// ---- Renders ----

// A sphere and a floor under a constant map, against the same scene under the constant environment of
// that colour. The two use different light sampling (the map's importance sampling against uniform
// directions), so they agree only if both are unbiased. The threshold is calibrated on the renderer's
// own noise: the difference of the two must be no larger than that of two seeds of the constant one.
TEST(EnvironmentMap, ConstantMapRendersLikeTheConstantEnvironment) {
    TempDir dir;
    write_exr_map(dir.file("c.exr"), 32, 16, [](int, int) { return Vec3{0.5f, 0.7f, 1.0f}; });
    const std::string meshes = R"("camera": {"eye": [0, 1.5, 4], "look_at": [0, 0.5, 0], "fov": 45},
        "materials": {"clay": {"albedo": [0.8, 0.6, 0.4]}, "gold": {"type": "conductor", "albedo": [1, 0.8, 0.4], "roughness": 0.4}},
        "meshes": [{"sphere": {"center": [0, 1, 0], "radius": 1, "subdivisions": 3}, "material": "gold"},
                   {"quad": [[-3, 0, -3], [-3, 0, 3], [3, 0, 3], [3, 0, -3]], "material": "clay"}]})";
    dir.write("map.json", R"({"environment": {"type": "map", "file": "c.exr"}, )" + meshes);
    dir.write("const.json", R"({"environment": {"type": "constant", "color": [0.5, 0.7, 1.0]}, )" + meshes);
    Scene map = load_prepared(dir.file("map.json"));
    Scene con = load_prepared(dir.file("const.json"));
    RenderOutput a = render_cpu(map, 16, 16, 256, 6, 1);
    RenderOutput b = render_cpu(con, 16, 16, 256, 6, 2);
    RenderOutput c = render_cpu(con, 16, 16, 256, 6, 3);
    double noise = rms_difference(b.image, c.image);
    EXPECT_GT(noise, 0.0);
    EXPECT_LT(rms_difference(a.image, b.image), 1.5 * noise);
    EXPECT_NEAR(mean(a.image), mean(b.image), 0.01 * mean(b.image));
    EXPECT_EQ(a.stats.nonfinite_samples, 0u);
}

// The white furnace with the light outside: a diffuse sphere of albedo 0.8 filling the view, under a map
// of constant 1. Convex, so every pixel is exactly 0.8 once direct light is on, and stays 0.8 at any
// depth; NEE from the map and BSDF hits of the map must share it exactly through MIS.
TEST(EnvironmentMap, FurnaceLitByAMapOfOneIsExact) {
    TempDir dir;
    write_exr_map(dir.file("one.exr"), 64, 32, [](int, int) { return Vec3{1, 1, 1}; });
    dir.write("f.json", R"({"camera": {"eye": [0, 0, 3], "look_at": [0, 0, 0], "fov": 10},
        "environment": {"type": "map", "file": "one.exr"},
        "materials": {"white": {"albedo": 0.8}},
        "meshes": [{"sphere": {"radius": 1, "subdivisions": 5}, "material": "white"}]})");
    Scene s = load_prepared(dir.file("f.json"));
    for (int depth : {1, 8}) {
        RenderOutput out = render_cpu(s, 8, 8, 2048, depth, 5);
        for (int c = 0; c < 3; ++c) {
            double m = 0;
            for (const auto& p : out.image.pixels) m += p[c];
            EXPECT_NEAR(m / out.image.pixels.size(), 0.8, 0.8 * 0.003) << "depth " << depth;
        }
        EXPECT_EQ(out.stats.nonfinite_samples, 0u);
    }
    // Depth 0 sees the map only where the camera ray misses: nowhere here, so black.
    EXPECT_EQ(mean(render_cpu(s, 4, 4, 4, 0, 1).image), 0.0);
}

// Albedo 1 under a uniform map: every object is invisible, interreflections included (two spheres).
TEST(EnvironmentMap, WhiteObjectsVanishUnderAUniformMap) {
    TempDir dir;
    write_exr_map(dir.file("one.exr"), 16, 8, [](int, int) { return Vec3{1, 1, 1}; });
    dir.write("w.json", R"({"camera": {"eye": [0, 0, 5], "look_at": [0, 0, 0], "fov": 40},
        "environment": {"type": "map", "file": "one.exr", "rotation": 20},
        "materials": {"white": {"albedo": 1}},
        "meshes": [{"sphere": {"center": [-0.9, 0, 0], "radius": 1}, "material": "white"},
                   {"sphere": {"center": [1.1, 0, 0], "radius": 1}, "material": "white"}]})");
    Scene s = load_prepared(dir.file("w.json"));
    RenderOutput out = render_cpu(s, 8, 8, 1024, 64, 9);
    for (const auto& p : out.image.pixels)
        for (int c = 0; c < 3; ++c) EXPECT_NEAR(p[c], 1.0f, 0.03f);
    EXPECT_NEAR(mean(out.image), 1.0, 0.004);
}

// ---- Files ----

TEST(EnvironmentMap, HdrAndExrRoundTrip) {
    TempDir dir;
    const int w = 40, h = 20;  // 40 >= 8: stb writes run-length scanlines
    std::vector<float> rgb(static_cast<size_t>(w) * h * 3);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            for (int c = 0; c < 3; ++c)
                rgb[(static_cast<size_t>(y) * w + x) * 3 + c] = 0.01f + x * 0.5f + y * 3.0f + c * 100.0f * (x == 7);
    ASSERT_TRUE(stbi_write_hdr(dir.file("m.hdr").c_str(), w, h, 3, rgb.data()));
    ASSERT_TRUE(stbi_write_hdr(dir.file("flat.hdr").c_str(), 5, 3, 3, rgb.data()));  // narrow: written flat
    for (const char* f : {"m.hdr", "flat.hdr"}) {
        Scene s;
        set_environment_map(s, dir.file(f), 1.0f, 0.0f);
        int fw = std::string(f) == "m.hdr" ? w : 5, fh = std::string(f) == "m.hdr" ? h : 3;
        ASSERT_EQ(s.env_map.width, fw);
        ASSERT_EQ(s.env_map.height, fh);
        for (int y = 0; y < fh; ++y)
            for (int x = 0; x < fw; ++x) {
                const float* want = &rgb[(static_cast<size_t>(y) * fw + x) * 3];
                // RGBE: 8 bits of mantissa under an exponent shared by the three channels (the largest's).
                float step = std::max({want[0], want[1], want[2]}) / 128.0f;
                for (int c = 0; c < 3; ++c)
                    EXPECT_NEAR(s.env_map.texels[static_cast<size_t>(y) * fw + x][c], want[c], step);
            }
    }
    write_exr_map(dir.file("m.exr"), 7, 5, [](int x, int y) { return Vec3{x * 0.25f, y * 1e3f, 1e-4f}; });
    Scene s;
    set_environment_map(s, dir.file("m.exr"), 1.0f, 0.0f);
    ASSERT_EQ(s.env_map.width, 7);
    ASSERT_EQ(s.env_map.height, 5);
    for (int y = 0; y < 5; ++y)
        for (int x = 0; x < 7; ++x) {
            Vec3 t = s.env_map.texels[y * 7 + x];
            EXPECT_EQ(t.x, x * 0.25f);
            EXPECT_EQ(t.y, y * 1e3f);
            EXPECT_EQ(t.z, 1e-4f);
        }
    EXPECT_EQ(s.load_stats.invalid_environment_texels, 0u);
}

TEST(EnvironmentMap, NanInfiniteAndNegativeTexelsBecomeBlackAndAreCounted) {
    TempDir dir;
    write_exr_map(dir.file("bad.exr"), 4, 2, [](int x, int y) {
        if (x == 0 && y == 0) return Vec3{NAN, 1, 1};
        if (x == 1 && y == 0) return Vec3{1, INFINITY, 1};
        if (x == 2 && y == 1) return Vec3{-0.5f, -1, 1};
        return Vec3{1, 1, 1};
    });
    Scene s;
    set_environment_map(s, dir.file("bad.exr"), 1.0f, 0.0f);
    EXPECT_EQ(s.load_stats.invalid_environment_texels, 3u);
    for (const Vec3& t : s.env_map.texels) EXPECT_TRUE(all_finite(t) && t.x >= 0 && t.y >= 0 && t.z >= 0);
    EXPECT_EQ(s.env_map.texels[0].x, 0.0f);
    EXPECT_EQ(s.env_map.texels[0].y, 1.0f);
    EXPECT_EQ(s.env_map.texels[6].y, 0.0f);
    // The CLI says so in one warning line.
    dir.write("s.json", map_scene("bad.exr"));
    RunResult r = run_pkrt("render s.json --res 4x4 --spp 1 -q -o out.png", dir.path().string());
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("warning: bad.exr: set 3 texels with a NaN, infinite or negative component to 0"),
              std::string::npos)
        << r.err;
}

namespace {

// A Radiance header and then `data`.
std::string hdr_file(const std::string& resolution, const std::string& data) {
    return "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n" + resolution + "\n" + data;
}

// A run-length row of width w: each component in runs of at most 127 of one value.
std::string rle_row(int w) {
    std::string r = {2, 2, static_cast<char>(w >> 8), static_cast<char>(w & 0xFF)};
    for (int k = 0; k < 4; ++k)
        for (int left = w; left > 0; left -= 127) {
            r += static_cast<char>(128 + std::min(left, 127));
            r += static_cast<char>(k == 3 ? 128 : 100);
        }
    return r;
}

}  // namespace

TEST(EnvironmentMap, HostileFilesFailWithOneLineNamingTheFile) {
    TempDir dir;
    const int w = 16;
    std::string good = hdr_file("-Y 2 +X 16", rle_row(w) + rle_row(w));
    dir.write("in_good.hdr", good);
    {
        Scene s;
        set_environment_map(s, dir.file("in_good.hdr"), 1.0f, 0.0f);
        EXPECT_NEAR(s.env_map.texels[5].x, 100.0f / 256.0f, 1e-6f) << "the hand-made file is valid";
    }
    // The pattern of CVE-2021-42715: a dump of zero values, on which stb_image's decoder loops forever.
    std::string zero_dump = hdr_file("-Y 2 +X 16", rle_row(w) + std::string({2, 2, 0, 16, 0}));
    struct Case {
        std::string name, bytes, needle;
    };
    std::vector<Case> cases = {
        {"in_trunc.hdr", good.substr(0, good.size() - 5), "truncated HDR pixel data"},
        {"in_head.hdr", good.substr(0, 20), "truncated HDR header"},
        {"in_zero.hdr", zero_dump, "empty run"},
        {"in_huge.hdr", hdr_file("-Y 100000 +X 100000", rle_row(w)), "larger than 32768 on a side"},
        {"in_budget.hdr", hdr_file("-Y 30000 +X 30000", rle_row(w)), "raise it with --max-texels"},
        {"in_claim.hdr", hdr_file("-Y 4000 +X 8000", rle_row(8000) + rle_row(8000)),
         "truncated HDR pixel data (ends in row 2 of 4000)"},
        {"in_neg.hdr", hdr_file("-Y -5 +X 16", rle_row(w)), "unsupported HDR resolution line"},
        {"in_flip.hdr", hdr_file("+Y 2 +X 16", rle_row(w)), "unsupported HDR resolution line"},
        {"in_format.hdr", "#?RADIANCE\nFORMAT=32-bit_rle_xyze\n\n-Y 1 +X 1\nabcd", "unsupported HDR pixel format"},
        {"in_mixed.hdr", hdr_file("-Y 2 +X 16", rle_row(w) + std::string(64, '\x40')), "not run-length encoded"},
        {"in_run.hdr", hdr_file("-Y 1 +X 16", std::string({2, 2, 0, 16, char(128 + 17), 1}) + std::string(64, 1)),
         "run past its end"},
        {"in_text.hdr", "hello", "unsupported environment map format"},
        {"in_trunc.exr", "", "cannot read EXR"},
    };
    write_exr_map(dir.file("in_ok.exr"), 16, 8, [](int, int) { return Vec3{1, 1, 1}; });
    std::string exr = read_text(dir.file("in_ok.exr"));
    cases.back().bytes = exr.substr(0, exr.size() - 40);
    cases.push_back({"in_exrhead.exr", exr.substr(0, 30), "cannot read EXR"});
    for (const auto& c : cases) {
        dir.write(c.name, c.bytes);
        dir.write("in_" + c.name + ".json", map_scene(c.name));
        SCOPED_TRACE(c.name);
        std::string err = load_error(dir.file("in_" + c.name + ".json"));
        EXPECT_NE(err.find(dir.file(c.name)), std::string::npos) << err;
        EXPECT_NE(err.find(c.needle), std::string::npos) << err;
        EXPECT_EQ(err.find('\n'), std::string::npos) << err;
    }
    // Through the command line: one line, exit 1, nothing written; a missing map says so.
    expect_clean_failure(dir, "render in_in_trunc.hdr.json -o out.png", 1, "in_trunc.hdr: truncated HDR pixel data");
    expect_clean_failure(dir, "render in_in_zero.hdr.json -o out.png", 1, "in_zero.hdr: HDR row 1 has an empty run");
    dir.write("in_missing.json", map_scene("nowhere.hdr"));
    expect_clean_failure(dir, "render in_missing.json -o out.png", 1, "nowhere.hdr: environment map not found");
    dir.write("in_sky.json", R"({"environment": {"type": "sky"}, "meshes": [{"sphere": {}}]})");
    expect_clean_failure(dir, "render in_sky.json --env in_nothing.exr -o out.png", 1,
                         "in_nothing.exr: environment map not found");
    // The budget counts a map's texels at their weight, and the flag raises it.
    dir.write("in_ok.json", map_scene("in_ok.exr"));
    expect_clean_failure(dir, "render in_ok.json --max-texels 100 -o out.png", 1,
                         "in_ok.exr (an environment texel counts as 7): the scene would have 896 texels");
    RunResult ok =
        run_pkrt("render in_ok.json --max-texels 896 --res 4x4 --spp 1 -q -o b.out.png", dir.path().string());
    EXPECT_EQ(ok.code, 0) << ok.err;
}

TEST(EnvironmentMap, JsonKeysAreCheckedLikeTheOthers) {
    TempDir dir;
    write_exr_map(dir.file("m.exr"), 4, 2, [](int, int) { return Vec3{1e19f, 1, 1}; });
    auto scene_with = [&](const std::string& env) {
        dir.write("s.json", R"({"environment": )" + env + R"(, "meshes": [{"sphere": {}}]})");
        return load_error(dir.file("s.json"));
    };
    EXPECT_NE(scene_with(R"({"type": "map"})").find("needs a \"file\""), std::string::npos);
    EXPECT_NE(scene_with(R"({"type": "sky", "rotation": 10})").find("environment.rotation: only a \"map\""),
              std::string::npos);
    EXPECT_NE(scene_with(R"({"type": "map", "file": "m.exr", "color": 1})").find("environment.color"),
              std::string::npos);
    EXPECT_NE(scene_with(R"({"type": "map", "file": "m.exr", "rotation": "x"})")
                  .find("environment.rotation: must be a number"),
              std::string::npos);
    EXPECT_NE(scene_with(R"({"type": "map", "file": "m.exr", "intensity": 100})").find("more than 1e20"),
              std::string::npos);
    EXPECT_EQ(scene_with(R"({"type": "map", "file": "m.exr", "intensity": 10})"), "");
}

TEST(EnvironmentMap, CommandLineEnvReplacesTheScenesEnvironment) {
    TempDir dir;
    write_exr_map(dir.file("in_red.exr"), 8, 4, [](int, int) { return Vec3{2, 0, 0}; });
    dir.write("in_s.json", R"({"camera": {"eye": [0, 0, 3], "look_at": [0, 0, -10]},
        "environment": {"type": "constant", "color": [0, 0, 1]}, "meshes": [{"sphere": {"center": [0, 0, 10]}}]})");
    RunResult r = run_pkrt("render in_s.json --env in_red.exr --res 4x4 --spp 2 -q -o b.out.png --hdr b.out.pfm",
                           dir.path().string());
    ASSERT_EQ(r.code, 0) << r.err;
    Image img = read_pfm(dir.file("b.out.pfm"));
    for (const auto& p : img.pixels) {
        EXPECT_NEAR(p.x, 2.0f, 1e-4f);
        EXPECT_EQ(p.z, 0.0f);
    }
    // The map is an input: an output may not overwrite it.
    expect_clean_failure(dir, "render in_s.json --env in_red.exr --res 4x4 --spp 1 -o out.png --hdr in_red.exr", 1,
                         "in_red.exr");
}
