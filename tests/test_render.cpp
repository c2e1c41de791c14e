// Whole renders on the CPU backend against analytic answers and against themselves at higher sample
// counts: the white furnace, the Cornell box's regions, and determinism of the sample streams.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <cmath>
#include <map>
#include <vector>

#include "kernels/path_stages.h"
#include "render/backend.h"
#include "render/image/image.h"
#include "render/scene/scene.h"
#include "render/sequence.h"
#include "tests/test_render_util.h"
#include "tests/test_util.h"

using namespace pkrt;

namespace {

const std::string kScenes = PKRT_SCENES_DIR;

using pkrt_test::load_prepared;
using pkrt_test::settings;

RenderOutput render(const Scene& scene, int w, int h, int spp, int depth, uint32_t seed, unsigned threads = 0) {
    auto backend = make_cpu_backend(threads);
    return render_image(*backend, scene, settings(w, h, spp, depth, seed), nullptr);
}

double channel_mean(const Image& img, int c) {
    double s = 0;
    for (const auto& p : img.pixels) s += p[c];
    return s / img.pixels.size();
}

}  // namespace

// Inside a closed sphere with emission 1 and albedo 0.8 the radiance is 1 + 0.8 + 0.8^2 + ... = 5 in
// every direction. NEE and MIS are on (the sphere's triangles are the lights). Russian roulette makes
// the per-sample standard deviation about 3.4, so with 131072 samples per pixel the standard error is
// about 0.0095 and the 1% band is five standard errors wide. 2x2 pixels of a 90-degree view each
// average over a quarter of the field of view.
TEST(Furnace, EveryPixelIsFiveWithinOnePercent) {
    Scene s = load_prepared(kScenes + "/furnace.json");
    ASSERT_GT(s.light_tris.size(), 1000u) << "every triangle of the furnace emits";
    RenderOutput out = render(s, 2, 2, 131072, 100, 1);
    for (const auto& p : out.image.pixels) {
        for (int c = 0; c < 3; ++c) EXPECT_NEAR(p[c], 5.0f, 0.05f);
    }
    EXPECT_EQ(out.stats.nonfinite_samples, 0u);
    EXPECT_EQ(out.stats.samples, 4u * 131072u);
}

// Truncated furnaces have exact answers without Russian roulette (which starts after depth 3):
// depth 0 sees only emission (1), depth 1 adds direct light (0.8), depth 2 one more bounce (0.64).
// These isolate NEE + MIS: a wrong light pdf or MIS weight shifts the depth-1 value.
TEST(Furnace, TruncatedDepthsMatchTheGeometricSeries) {
    Scene s = load_prepared(kScenes + "/furnace.json");
    const double expected[] = {1.0, 1.8, 2.44, 2.952};
    for (int depth = 0; depth <= 3; ++depth) {
        RenderOutput out = render(s, 8, 8, 512, depth, 3);
        for (int c = 0; c < 3; ++c)
            EXPECT_NEAR(channel_mean(out.image, c), expected[depth], expected[depth] * 0.002) << "max depth " << depth;
    }
}

namespace {

// Cornell box regions, keyed by what the pixel centre's camera ray hits (classified from geometry so
// that the test does not depend on triangle order).
enum Region { kLight, kRed, kGreen, kFloor, kCeiling, kBack, kBoxes, kNone, kRegionCount };
const char* kRegionNames[] = {"light", "red wall", "green wall", "floor", "ceiling", "back wall", "boxes", "none"};

std::vector<int> cornell_regions(const Scene& s, int w, int h) {
    SceneView v = view_scene(s);
    CameraView camera = make_camera_view(s.camera, w, h);
    std::vector<int> region(static_cast<size_t>(w) * h, kNone);
    for (int y = 0; y < h; ++y) {
        for (int x = 0; x < w; ++x) {
            Ray r = camera_ray(camera, w, h, x, y, 0.5f, 0.5f, 0.5f, 0.5f);
            Hit hit = intersect_closest(v.bvh, r);
            if (hit.prim < 0) continue;
            const TriVerts& t = s.tris[hit.prim];
            const std::string& mat = s.material_names[s.shading[hit.prim].material];
            int reg;
            if (mat == "light") reg = kLight;
            else if (mat == "red") reg = kRed;
            else if (mat == "green") reg = kGreen;
            else if (t.v0.y == 0 && t.v1.y == 0 && t.v2.y == 0) reg = kFloor;
            else if (t.v0.y == 548.8f && t.v1.y == 548.8f && t.v2.y == 548.8f) reg = kCeiling;
            else if (t.v0.z == 559.2f && t.v1.z == 559.2f && t.v2.z == 559.2f) reg = kBack;
            else reg = kBoxes;
            region[static_cast<size_t>(y) * w + x] = reg;
        }
    }
    // Keep only pixels whose four neighbours are in the same region: edge pixels mix regions.
    std::vector<int> interior(region.size(), kNone);
    for (int y = 1; y + 1 < h; ++y)
        for (int x = 1; x + 1 < w; ++x) {
            int r = region[y * w + x];
            if (region[y * w + x - 1] == r && region[y * w + x + 1] == r && region[(y - 1) * w + x] == r &&
                region[(y + 1) * w + x] == r)
                interior[y * w + x] = r;
        }
    return interior;
}

struct RegionMeans {
    double mean[kRegionCount][3] = {};
    int pixels[kRegionCount] = {};
};

RegionMeans region_means(const Image& img, const std::vector<int>& regions) {
    RegionMeans m;
    for (size_t i = 0; i < regions.size(); ++i) {
        int r = regions[i];
        ++m.pixels[r];
        for (int c = 0; c < 3; ++c) m.mean[r][c] += img.pixels[i][c];
    }
    for (int r = 0; r < kRegionCount; ++r)
        for (int c = 0; c < 3; ++c) m.mean[r][c] /= std::max(1, m.pixels[r]);
    return m;
}

}  // namespace

// Pixels that see the light get exactly its radiance: camera rays count emission with weight 1.
TEST(Cornell, LightPixelsSeeTheLightsRadiance) {
    Scene s = load_prepared(kScenes + "/cornell.json");
    const int w = 128, h = 128;
    std::vector<int> regions = cornell_regions(s, w, h);
    RegionMeans m = region_means(render(s, w, h, 1, 8, 11).image, regions);
    ASSERT_GT(m.pixels[kLight], 10);
    EXPECT_NEAR(m.mean[kLight][0], 17.0, 0.2);
    EXPECT_NEAR(m.mean[kLight][1], 12.0, 0.2);
    EXPECT_NEAR(m.mean[kLight][2], 4.0, 0.1);
}

// Region means converge: 8 independent low-spp renders give each region's mean and its standard
// error; a render with 8x the samples of all of them together must lie within 4 standard errors,
// and the spread must shrink like 1/sqrt(spp) when the sample count is quadrupled.
TEST(Cornell, RegionMeansConvergeWithinStatisticalError) {
    Scene s = load_prepared(kScenes + "/cornell.json");
    const int w = 48, h = 48, runs = 8;
    std::vector<int> regions = cornell_regions(s, w, h);
    auto spread = [&](int spp, uint32_t seed0, double mean[kRegionCount][3], double se[kRegionCount][3]) {
        std::vector<RegionMeans> all;
        for (int i = 0; i < runs; ++i) all.push_back(region_means(render(s, w, h, spp, 8, seed0 + i).image, regions));
        for (int r = 0; r < kRegionCount; ++r)
            for (int c = 0; c < 3; ++c) {
                double sum = 0, sum2 = 0;
                for (const auto& a : all) {
                    sum += a.mean[r][c];
                    sum2 += a.mean[r][c] * a.mean[r][c];
                }
                mean[r][c] = sum / runs;
                double var = std::max(0.0, (sum2 - sum * sum / runs) / (runs - 1));
                se[r][c] = std::sqrt(var / runs);
            }
    };
    double lo_mean[kRegionCount][3], lo_se[kRegionCount][3], hi_mean[kRegionCount][3], hi_se[kRegionCount][3];
    spread(8, 100, lo_mean, lo_se);
    spread(32, 200, hi_mean, hi_se);
    RegionMeans ref = region_means(render(s, w, h, 512, 8, 999).image, regions);
    std::vector<double> ratios;
    for (int r = kRed; r <= kBoxes; ++r) {
        SCOPED_TRACE(kRegionNames[r]);
        ASSERT_GT(ref.pixels[r], 20);
        for (int c = 0; c < 3; ++c) {
            // The reference has 2x the samples of the 32-spp set, so its own error is ~se_hi/sqrt(2).
            double sigma = std::sqrt(lo_se[r][c] * lo_se[r][c] + 0.5 * hi_se[r][c] * hi_se[r][c]);
            EXPECT_LT(std::fabs(lo_mean[r][c] - ref.mean[r][c]), 4.0 * sigma + 1e-6)
                << "channel " << c << ": 8 spp " << lo_mean[r][c] << " vs 512 spp " << ref.mean[r][c];
            EXPECT_LT(std::fabs(hi_mean[r][c] - ref.mean[r][c]), 4.0 * std::sqrt(1.5) * hi_se[r][c] + 1e-6)
                << "channel " << c;
            if (ref.mean[r][c] > 0.01) ratios.push_back(lo_se[r][c] / hi_se[r][c]);
        }
    }
    // 4x the samples should halve the standard error. Single estimates of it are noisy (8 runs, and
    // fireflies), so the median over regions and channels is what is checked.
    std::sort(ratios.begin(), ratios.end());
    ASSERT_GE(ratios.size(), 12u);
    double median = ratios[ratios.size() / 2];
    EXPECT_GT(median, 1.4);
    EXPECT_LT(median, 2.9);
    // Physical sanity: the red wall is red, the green wall green, and everything is lit.
    EXPECT_GT(ref.mean[kRed][0], 3 * ref.mean[kRed][1]);
    EXPECT_GT(ref.mean[kGreen][1], 2 * ref.mean[kGreen][0]);
    for (int r = kRed; r <= kBoxes; ++r)
        EXPECT_GT(ref.mean[r][0] + ref.mean[r][1] + ref.mean[r][2], 0.05) << kRegionNames[r];
}

// The same (pixel, sample, seed) gives the same path whatever the thread count or pass split.
TEST(Determinism, ThreadCountAndPassSplitDoNotChangeTheImage) {
    Scene s = load_prepared(kScenes + "/spheres.json");
    Image a = render(s, 32, 18, 4, 6, 5, 1).image;
    Image b = render(s, 32, 18, 4, 6, 5, 2).image;
    // A frame small enough to be split along its samples too: still independent of the thread count.
    Image t1 = render(s, 8, 8, 64, 6, 5, 1).image;
    Image t3 = render(s, 8, 8, 64, 6, 5, 3).image;
    for (size_t i = 0; i < t1.pixels.size(); ++i) ASSERT_EQ(t1.pixels[i].y, t3.pixels[i].y);
    ASSERT_EQ(a.pixels.size(), b.pixels.size());
    for (size_t i = 0; i < a.pixels.size(); ++i) {
        EXPECT_EQ(a.pixels[i].x, b.pixels[i].x);
        EXPECT_EQ(a.pixels[i].z, b.pixels[i].z);
    }
    // 4 passes of 1 sample against 1 pass of 4: same samples, sums in another order.
    auto backend = make_cpu_backend();
    backend->set_scene(s);
    backend->reset(32, 18);
    RenderSettings rs = settings(32, 18, 1, 6, 5);
    RenderStats st;
    for (uint32_t k = 0; k < 4; ++k) backend->accumulate(rs, k, 1, st);
    Image c = backend->resolve();
    for (size_t i = 0; i < a.pixels.size(); ++i) EXPECT_NEAR(a.pixels[i].y, c.pixels[i].y, 1e-5f * (1 + a.pixels[i].y));
    // A different seed changes it.
    Image d = render(s, 32, 18, 4, 6, 6).image;
    int differ = 0;
    for (size_t i = 0; i < a.pixels.size(); ++i) differ += a.pixels[i].y != d.pixels[i].y;
    EXPECT_GT(differ, static_cast<int>(a.pixels.size()) / 2);
}

TEST(Render, ShippedScenesProduceNoNonFiniteSamples) {
    for (const char* name : {"cornell.json", "spheres.json", "furnace.json", "metal_rough.json"}) {
        Scene s = load_prepared(kScenes + "/" + name);
        RenderOutput out = render(s, 24, 16, 4, 16, 2);
        EXPECT_EQ(out.stats.nonfinite_samples, 0u) << name;
        EXPECT_EQ(out.stats.samples, 24u * 16u * 4u) << name;
        EXPECT_GT(channel_mean(out.image, 1), 0.0) << name;
    }
}

// A thin lens wider than the spheres, focused in front of them: every pixel still finite, no sample
// dropped, and the picture blurred. Measured at depth 0 (the sky where camera rays escape, black where
// they hit), where the only edges are silhouettes and the horizon and the only noise is their coverage:
// a step of height h spread over k pixels has squared differences summing to h^2 / k, so blur shrinks
// the summed squared neighbour differences, which a pinhole keeps at h^2 per edge crossing.
TEST(Render, LargeApertureRendersFiniteAndBlurred) {
    Scene s = load_prepared(kScenes + "/spheres.json");
    RenderOutput pin = render(s, 48, 27, 64, 0, 2);
    s.camera.aperture_radius = 1.5f;
    s.camera.focus_distance = 2.0f;
    RenderOutput lens = render(s, 48, 27, 64, 0, 2);
    RenderOutput lit = render(s, 48, 27, 16, 6, 2);
    for (const RenderOutput* out : {&lens, &lit}) {
        EXPECT_EQ(out->stats.nonfinite_samples, 0u);
        EXPECT_GT(channel_mean(out->image, 1), 0.0);
        for (const auto& p : out->image.pixels)
            for (int c = 0; c < 3; ++c) ASSERT_TRUE(std::isfinite(p[c]));
    }
    auto sharpness = [](const Image& img) {
        double g = 0;
        for (int y = 0; y + 1 < img.height; ++y)
            for (int x = 0; x + 1 < img.width; ++x) {
                double p = img.at(x, y).y, r = img.at(x + 1, y).y, d = img.at(x, y + 1).y;
                g += (p - r) * (p - r) + (p - d) * (p - d);
            }
        return g;
    };
    EXPECT_LT(sharpness(lens.image), 0.5 * sharpness(pin.image));
}

// A light whose emission is NaN: every contribution it would make is dropped before the framebuffer
// and counted, and the image stays finite (the rest of the box still gets light from nowhere else, so
// it is black). Material edits after loading bypass the loaders' checks on purpose.
TEST(Render, NonFiniteContributionsAreDroppedAndCounted) {
    Scene s = load_prepared(kScenes + "/cornell.json");
    for (size_t i = 0; i < s.material_names.size(); ++i)
        if (s.material_names[i] == "light") s.materials[i].emission = splat(std::nanf(""));
    RenderOutput out = render(s, 32, 32, 4, 4, 1);
    EXPECT_GT(out.stats.nonfinite_samples, 32u * 32u) << "camera rays that see the light, and every light sample";
    for (const auto& p : out.image.pixels)
        for (int c = 0; c < 3; ++c) ASSERT_TRUE(std::isfinite(p[c]));
}

// A sequence's frames are single renders of its cameras with seeds seed + i: the same images exactly.
TEST(Sequence, FramesEqualSingleRendersOfTheirCameras) {
    Scene s = load_prepared(kScenes + "/cornell.json");
    CameraPath path = parse_camera_path("orbit:40", s.camera);
    RenderSettings rs;
    rs.width = 24;
    rs.height = 24;
    rs.spp = 4;
    rs.max_depth = 4;
    rs.seed = 7;
    auto backend = make_cpu_backend(2);
    std::vector<Image> frames;
    RenderStats total =
        render_sequence(*backend, s, rs, path, 3, nullptr, [&](const SequenceFrame& f, const RenderOutput& out) {
            EXPECT_EQ(f.index, static_cast<int>(frames.size()));
            frames.push_back(out.image);
        });
    ASSERT_EQ(frames.size(), 3u);
    // Frames handed over as accumulations (the CLI divides them on its writer threads): the same images.
    std::vector<Image> divided;
    render_sequence(
        *backend, s, rs, path, 3, nullptr,
        [&](const SequenceFrame&, RenderOutput& out) {
            EXPECT_TRUE(out.image.pixels.empty());
            divided.push_back(resolve_accumulation(out.accumulation));
        },
        nullptr, false);
    ASSERT_EQ(divided.size(), 3u);
    for (int i = 0; i < 3; ++i) EXPECT_EQ(pkrt_test::rms_difference(divided[i], frames[i]), 0.0) << "frame " << i;
    EXPECT_EQ(total.samples, 3u * 24u * 24u * 4u);
    for (int i = 0; i < 3; ++i) {
        RenderSettings single = rs;
        single.seed = 7 + i;
        auto one = make_cpu_backend(1);
        RenderOutput ref = render_view(*one, s, camera_at(path, i, 3), single, nullptr);
        ASSERT_EQ(ref.image.pixels.size(), frames[i].pixels.size());
        for (size_t p = 0; p < ref.image.pixels.size(); ++p)
            for (int c = 0; c < 3; ++c) ASSERT_EQ(ref.image.pixels[p][c], frames[i].pixels[p][c]) << "frame " << i;
    }
    EXPECT_GT(pkrt_test::rms_difference(frames[0], frames[2]), 1e-3) << "the camera moved";
}

// The layouts find the same closest hit for every ray (tests/bvh/test_bvh.cpp), so a render with cwbvh is
// the bvh2 render sample for sample: same seed, same random numbers, same hits. Light tables do not
// depend on the triangle order (render/scene/scene.cpp), so light sampling agrees too. Two things may still
// tell them apart, both at the precision limit of the triangle test rather than in the traversal:
// - ties: a ray through an edge shared by two triangles hits both at the same t, and the layouts test
//   them in different orders, so each keeps a different one;
// - false self-hits: a bounce or shadow ray leaving a surface whose coordinate is near 0 is offset by
//   only 2^-16 (kernels/ray.h: offset_ray_origin), less than the triangle test's rounding for vertices
//   of a few hundred units, so the surface it leaves can report a hit at a tiny positive t. Brute force
//   reports it too; whether a layout does depends on whether its box test culls that triangle first.
//   bvh2's boxes are a few ulps wide and cull it, cwbvh's 8-bit boxes are up to 1/255 of a node wide
//   and do not. In the Cornell box (a wall at x = 0, 548 units tall) 0.12% of first-bounce shadow rays
//   are affected, all from that wall: 64 of 9216 pixels (0.7%) differ at depth 8; none in Dabrovic Sponza.
// So at most 1% of 1-spp pixels may differ in the Cornell box and 0.1% in Sponza, and the means agree
// to 1%.
TEST(Layouts, CwbvhRendersTheBvh2ImageSampleForSample) {
    struct Case {
        std::string path;
        int w, h, depth;
        double max_differing;
    };
    std::vector<Case> cases = {{kScenes + "/cornell.json", 96, 96, 8, 0.01}};
    // scenes/bench/dabrovic-sponza.json names the OBJ beside the checkout, whatever PKRT_SCENES says.
    std::string obj = kScenes + "/../../shared/scenes/dabrovic-sponza/sponza.obj";
    if (std::filesystem::exists(obj)) cases.push_back({kScenes + "/bench/dabrovic-sponza.json", 160, 90, 4, 0.001});
    else if (pkrt_test::under_ci()) ADD_FAILURE() << obj << " is missing";
    else std::fprintf(stderr, "Dabrovic Sponza case skipped: %s is missing\n", obj.c_str());
    for (const Case& c : cases) {
        SCOPED_TRACE(c.path);
        Scene a = load_scene(c.path), b = load_scene(c.path);
        prepare_scene(a, BvhLayout::kBvh2);
        prepare_scene(b, BvhLayout::kCwbvh);
        Image ia = render(a, c.w, c.h, 1, c.depth, 11).image;
        Image ib = render(b, c.w, c.h, 1, c.depth, 11).image;
        ASSERT_EQ(ia.pixels.size(), ib.pixels.size());
        size_t differ = 0;
        for (size_t i = 0; i < ia.pixels.size(); ++i)
            differ += ia.pixels[i].x != ib.pixels[i].x || ia.pixels[i].y != ib.pixels[i].y ||
                      ia.pixels[i].z != ib.pixels[i].z;
        EXPECT_LE(static_cast<double>(differ), c.max_differing * ia.pixels.size())
            << differ << " of " << ia.pixels.size() << " pixels differ between bvh2 and cwbvh";
        EXPECT_NEAR(pkrt_test::mean(ia), pkrt_test::mean(ib), 0.01 * pkrt_test::mean(ia));
    }
}

// A preview (RenderSettings::preview) is the image at 1/block of the resolution, each of its pixels
// shown as a block: pixel for pixel the render of the smaller image, in every reading of it.
TEST(Render, PreviewsShowTheSmallerImageAsBlocks) {
    Scene s = load_prepared(kScenes + "/cornell.json");
    auto small = make_cpu_backend(2);
    RenderOutput ref = render_image(*small, s, settings(17, 12, 1, 4, 5), nullptr);  // ceil(66 / 4) x ceil(47 / 4)
    auto backend = make_cpu_backend(2);
    backend->set_scene(s);
    backend->reset(66, 47);
    RenderSettings rs = settings(66, 47, 1, 4, 5);
    rs.preview = 4;
    RenderStats st;
    backend->accumulate(rs, 0, 1, st);
    EXPECT_EQ(st.samples, 17u * 12u);
    Image img = backend->resolve();
    std::vector<float> rgba(4 * 66 * 47);
    backend->copy_accumulation(rgba.data());
    std::vector<uint32_t> counts = backend->sample_counts();
    ASSERT_EQ(img.width, 66);
    for (int y = 0; y < 47; ++y) {
        for (int x = 0; x < 66; ++x) {
            size_t i = static_cast<size_t>(y) * 66 + x;
            const Vec3& want = ref.image.at(x / 4, y / 4);
            for (int c = 0; c < 3; ++c) ASSERT_EQ(img.pixels[i][c], want[c]) << x << "," << y;
            ASSERT_EQ(counts[i], 1u);
            ASSERT_EQ(rgba[4 * i + 3], 1.0f);
            ASSERT_EQ(rgba[4 * i], want.x);
        }
    }
    // The next image, full again.
    backend->reset(66, 47);
    backend->accumulate(settings(66, 47, 1, 4, 5), 0, 1, st);
    EXPECT_EQ(backend->sample_counts(), std::vector<uint32_t>(66 * 47, 1u));
    EXPECT_GT(pkrt_test::rms_difference(backend->resolve(), img), 1e-3);
}

// An accumulation divides the same whether its sums and counts come interleaved (the GPU's packed
// snapshot) or apart (the framebuffer); a pixel without samples is black.
TEST(Image, AccumulationsResolveTheSameInterleavedOrApart) {
    Accumulation apart{2, 1, {}, {3.0f, 6.0f, 9.0f, 1.0f, 2.0f, 4.0f}, {3u, 0u}, {}};
    Accumulation packed{2, 1, {3.0f, 6.0f, 9.0f, 3.0f, 1.0f, 2.0f, 4.0f, 0.0f}, {}, {}, {}};
    for (const Accumulation& a : {apart, packed}) {
        Image img = resolve_accumulation(a);
        ASSERT_EQ(img.pixels.size(), 2u);
        EXPECT_FLOAT_EQ(img.pixels[0].x, 1.0f);
        EXPECT_FLOAT_EQ(img.pixels[0].y, 2.0f);
        EXPECT_FLOAT_EQ(img.pixels[0].z, 3.0f);
        EXPECT_EQ(img.pixels[1].x + img.pixels[1].y + img.pixels[1].z, 0.0f);
    }
    EXPECT_THROW(resolve_accumulation(Accumulation{2, 2, {}, {1.0f}, {1u}, {}}), std::exception);
}

// The PNG writer's 8-bit codes are the sRGB curve's, rounded half up: against the curve in double on
// every 61st float of [0, 1], and on both sides of every code's step (found here by bisection).
TEST(Image, SrgbCodesFollowTheCurve) {
    auto direct = [](float v) { return static_cast<int>(std::floor(linear_to_srgb(v) * 255.0 + 0.5)); };
    auto as_float = [](uint32_t b) {
        float f;
        std::memcpy(&f, &b, 4);
        return f;
    };
    const uint32_t one = 0x3f800000u;
    for (uint32_t b = 1; b < one; b += 61) ASSERT_EQ(linear_to_srgb8(as_float(b)), direct(as_float(b))) << as_float(b);
    for (int k = 1; k < 256; ++k) {
        uint32_t lo = 0, hi = one;  // direct(lo) < k <= direct(hi)
        while (hi - lo > 1) {
            uint32_t mid = lo + (hi - lo) / 2;
            (direct(as_float(mid)) >= k ? hi : lo) = mid;
        }
        EXPECT_EQ(linear_to_srgb8(as_float(hi)), k) << "the least value of code " << k;
        EXPECT_EQ(linear_to_srgb8(as_float(lo)), k - 1) << "just below code " << k;
    }
    EXPECT_EQ(linear_to_srgb8(0.5f), 188);
    EXPECT_EQ(linear_to_srgb8(0.0f), 0);
    EXPECT_EQ(linear_to_srgb8(-1.0f), 0);
    EXPECT_EQ(linear_to_srgb8(std::nanf("")), 0);
    EXPECT_EQ(linear_to_srgb8(1.0f), 255);
    EXPECT_EQ(linear_to_srgb8(INFINITY), 255);
}

namespace {

// A CPU Step (kernels/path_stages.h) that logs its calls and sums like the CPU backend's.
struct LoggingStep {
    const SceneView& view;
    const FrameRecord& frame;
    std::string log;
    struct Sum {
        Vec3 l = splat(0.0f);
        std::string* log;
        void add(uint32_t, Vec3 v) { l += v; }
        void finish(uint32_t) { *log += 'F'; }
    } sink;
    Hit closest(const Ray& ray) {
        log += 'c';
        return InlineTraversal::closest(view, ray);
    }
    void extended(bool, const PathState&) { log += 'e'; }
    void shade(PathState& path, const Hit& hit, ShadeResult& r) {
        log += 's';
        shade_path(view, frame, path, hit, r);
    }
    void dropped(bool) { log += 'd'; }
    void shadow(bool want, const ShadowRay& s, int) {
        log += want ? 'S' : '-';
        if (want) resolve_shadow<InlineTraversal>(sink, view, s);
    }
    void finish(bool ended, const PathState& path) {
        log += 'f';
        if (ended) sink.finish(path.pixel);
    }
};

}  // namespace

// One step of a path runs its sub-steps in one order, a lane without a path neither traces nor shades
// (but joins the warp-collective calls), and the radiance is the former CPU loop's, bit for bit.
TEST(PathStep, AdvancePathRunsTheSubStepsInOrderAndMatchesTheInlineLoop) {
    Scene s = load_prepared(kScenes + "/cornell.json");
    SceneView view = view_scene(s);
    const int w = 16, h = 16;
    FrameRecord f = make_frame_record(s.camera, w, h, settings(w, h, 4, 8, 7), 0, 4, 0);

    PathState idle_path = generate_path(f, PathIndex{0, 0});
    LoggingStep idle{view, f, {}, {}};
    idle.sink.log = &idle.log;
    EXPECT_FALSE(advance_path(idle, idle_path, false));
    EXPECT_EQ(idle.log, "ed-f") << "an inactive lane: no trace, no shading, no shadow, no finished sample";

    int shadows = 0, steps = 0;
    for (uint32_t pixel = 0; pixel < static_cast<uint32_t>(w * h); pixel += 7) {
        for (uint32_t sample = 0; sample < 4; ++sample) {
            // The CPU loop as it was written before advance_path.
            PathState a = generate_path(f, PathIndex{pixel, sample});
            Vec3 expected = splat(0.0f);
            for (;;) {
                Hit hit = InlineTraversal::closest(view, Ray{a.origin, a.dir});
                ShadeResult r{};
                shade_path(view, f, a, hit, r);
                expected += r.radiance;
                if (r.has_shadow && !InlineTraversal::occluded(view, Ray{r.shadow.origin, r.shadow.dir}, r.shadow.tmax))
                    expected += r.shadow.contribution;
                if (!r.continues) break;
            }
            PathState b = generate_path(f, PathIndex{pixel, sample});
            LoggingStep step{view, f, {}, {}};
            step.sink.log = &step.log;
            while (advance_path(step, b, true)) {}
            EXPECT_EQ(std::memcmp(&expected, &step.sink.l, sizeof(Vec3)), 0)
                << "pixel " << pixel << " sample " << sample;
            // Every step: trace, count, shade, drop count, shadow; the path's last also finishes its sample.
            for (size_t i = 0; i < step.log.size();) {
                ASSERT_EQ(step.log.substr(i, 4), "cesd") << step.log;
                ASSERT_TRUE(step.log[i + 4] == 'S' || step.log[i + 4] == '-') << step.log;
                shadows += step.log[i + 4] == 'S';
                ++steps;
                ASSERT_EQ(step.log[i + 5], 'f') << step.log;
                bool last = i + 6 < step.log.size() && step.log[i + 6] == 'F';
                i += last ? 7 : 6;
                if (last) {
                    EXPECT_EQ(i, step.log.size()) << "only the last step finishes the sample: " << step.log;
                }
            }
            EXPECT_EQ(step.log.back(), 'F');
        }
    }
    EXPECT_GT(shadows, 0);
    EXPECT_GT(steps, shadows / 2);
}
