// The denoiser's temporal step (kernels/denoise_temporal.h, render/denoise/temporal.h): a surface point
// projects back to the pixel sample that saw it, a view blends each pixel with the history of the same
// surface weighted by samples (the history's capped), a moved camera finds what it saw before, and a
// different surface, the sky, or a new content take nothing from the history, and a history far from
// what the new view shows around the pixel is clipped; the history turns over as a refresh asks.
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/shading/rng.h"
#include "render/denoise/temporal.h"
#include "render/scene/scene.h"

using namespace pkrt;

namespace {

constexpr int kW = 48, kH = 32;

CameraSpec facing_plane(float x) {
    CameraSpec c;
    c.eye = {x, 0.0f, 5.0f};
    c.look_at = {x, 0.0f, 0.0f};
    c.vfov_degrees = 40.0f;
    return c;
}

// The radiance of the plane z = 0 at its point p: linear in p, so a bilinear history of it is exact.
Vec3 plane_radiance(Vec3 p) { return Vec3{0.5f + 0.1f * p.x, 0.4f + 0.05f * p.y, 0.3f + 0.02f * (p.x - p.y)}; }

struct View {
    CameraView camera;
    Image color;
    FeatureImages features;
};

// What a camera facing the plane (depth 5 everywhere) sees through each pixel's centre, albedo 0.5.
View plane_view(const CameraSpec& spec) {
    View v;
    v.camera = make_camera_view(spec, kW, kH);
    size_t n = static_cast<size_t>(kW) * kH;
    v.color = Image{kW, kH, std::vector<Vec3>(n)};
    v.features.albedo = Image{kW, kH, std::vector<Vec3>(n, splat(0.5f))};
    v.features.normal = Image{kW, kH, std::vector<Vec3>(n, Vec3{0.0f, 0.0f, 1.0f})};
    v.features.depth = Image{kW, kH, std::vector<Vec3>(n, splat(5.0f))};
    for (int y = 0; y < kH; ++y)
        for (int x = 0; x < kW; ++x) v.color.at(x, y) = plane_radiance(unproject_pixel(v.camera, kW, kH, x, y, 5.0f));
    return v;
}

std::vector<float> samples(float s) { return std::vector<float>(static_cast<size_t>(kW) * kH, s); }

void expect_near(Vec3 a, Vec3 b, float tol, const char* what, int x, int y) {
    EXPECT_NEAR(a.x, b.x, tol) << what << " at " << x << "," << y;
    EXPECT_NEAR(a.y, b.y, tol) << what << " at " << x << "," << y;
    EXPECT_NEAR(a.z, b.z, tol) << what << " at " << x << "," << y;
}

}  // namespace

TEST(Temporal, ASurfacePointProjectsBackToThePixelSampleThatSawIt) {
    CameraSpec spec;
    spec.eye = {1.0f, 2.0f, 3.0f};
    spec.look_at = {-2.0f, 0.5f, -4.0f};
    spec.vfov_degrees = 50.0f;
    CameraView c = make_camera_view(spec, 64, 48);
    Rng rng = make_rng(5, 0, 0);
    for (int i = 0; i < 1000; ++i) {
        int px = static_cast<int>(rng.next_u32() % 64), py = static_cast<int>(rng.next_u32() % 48);
        float jx = rng.next_float(), jy = rng.next_float(), t = 0.5f + 20.0f * rng.next_float();
        Ray r = camera_ray(c, 64, 48, px, py, jx, jy, 0.5f, 0.5f);
        float x, y, z;
        ASSERT_TRUE(project_point(c, 64, 48, r.o + r.d * t, x, y, z));
        EXPECT_NEAR(x, static_cast<float>(px) + jx - 0.5f, 2e-3f);
        EXPECT_NEAR(y, static_cast<float>(py) + jy - 0.5f, 2e-3f);
        EXPECT_NEAR(z, t * dot(r.d, c.forward), 1e-4f * t);
    }
    float x, y, z;
    EXPECT_FALSE(project_point(c, 64, 48, c.eye - c.forward, x, y, z));  // behind the camera
}

// The new view's pixels are noisy about the history's (a checkerboard of +-30%), so the history lies
// inside each pixel's clip box and only the blend's weights decide.
TEST(Temporal, TheSameViewBlendsEachPixelWithItsHistoryBySamplesCapped) {
    View v = plane_view(facing_plane(0.0f));
    Image other = v.color;
    for (int y = 0; y < kH; ++y)
        for (int x = 0; x < kW; ++x) other.at(x, y) = other.at(x, y) * ((x + y) % 2 ? 1.3f : 0.7f);
    for (float history_samples : {4.0f, 100.0f}) {
        TemporalHistory h;
        h.blend(v.color, samples(history_samples), v.features, v.camera);
        h.next_view();
        Image out = h.blend(other, samples(1.0f), v.features, v.camera);
        EXPECT_EQ(h.reused(), static_cast<size_t>(kW) * kH);
        float n = std::min(history_samples, TemporalParams{}.max_history);
        for (int y = 0; y < kH; ++y)
            for (int x = 0; x < kW; ++x)
                expect_near(out.at(x, y), (other.at(x, y) + v.color.at(x, y) * n) * (1.0f / (1.0f + n)), 1e-5f, "blend",
                            x, y);
    }
}

// A history far outside what the new view's neighbourhood shows (a firefly, or light that changed) is
// clipped into that neighbourhood's box: the mean +- clip_sigma deviations, here of a checkerboard of
// +-10% about the plane's radiance.
TEST(Temporal, AHistoryOutsideTheNewViewsNeighbourhoodIsClipped) {
    View v = plane_view(facing_plane(0.0f));
    Image now = v.color, firefly = v.color;
    for (int y = 0; y < kH; ++y)
        for (int x = 0; x < kW; ++x) now.at(x, y) = now.at(x, y) * ((x + y) % 2 ? 1.1f : 0.9f);
    firefly.at(20, 10) = firefly.at(20, 10) * 50.0f;
    for (bool clip : {true, false}) {
        TemporalParams p;
        p.clip = clip;
        TemporalHistory h(p);
        h.blend(firefly, samples(8.0f), v.features, v.camera);
        h.next_view();
        Image out = h.blend(now, samples(1.0f), v.features, v.camera);
        // Unclipped, 8 of the 9 samples are the firefly's; clipped, the history is at most the 3x3
        // checkerboard's mean plus two deviations: about 1.2 times the radiance there.
        float ratio = out.at(20, 10).x / v.color.at(20, 10).x;
        if (clip) EXPECT_LT(ratio, 1.25f);
        else EXPECT_GT(ratio, 40.0f);
        // Away from the firefly the history lies inside the box and blends as it is.
        expect_near(out.at(5, 5), (now.at(5, 5) + v.color.at(5, 5) * 8.0f) * (1.0f / 9.0f), 1e-5f, "blend", 5, 5);
    }
}

TEST(Temporal, AMovedCameraFindsTheSurfaceItSaw) {
    View a = plane_view(facing_plane(0.0f)), b = plane_view(facing_plane(0.3f));  // about 4 pixels aside
    TemporalHistory h;
    h.blend(a.color, samples(8.0f), a.features, a.camera);
    h.next_view();
    Image nothing = b.color;
    for (Vec3& p : nothing.pixels) p = splat(0.0f);
    // No samples of the new view yet: what it shows is the history, carried to where the plane now is.
    Image out = h.blend(nothing, samples(0.0f), b.features, b.camera);
    size_t inside = 0;
    for (int y = 0; y < kH; ++y)
        for (int x = 0; x < kW; ++x) {
            float px, py, z;
            ASSERT_TRUE(project_point(a.camera, kW, kH, unproject_pixel(b.camera, kW, kH, x, y, 5.0f), px, py, z));
            if (px < 0.0f || px > kW - 1.0f) continue;  // at the edge the old view saw it in part, or not
            ++inside;
            expect_near(out.at(x, y), b.color.at(x, y), 1e-4f, "reprojected history", x, y);
        }
    EXPECT_GT(inside, static_cast<size_t>(kW - 6) * kH);
    EXPECT_GE(h.reused(), inside);
    EXPECT_LT(h.reused(), static_cast<size_t>(kW) * kH);  // the strip the old view never saw
}

TEST(Temporal, ADifferentSurfaceOrTheSkyTakesNothing) {
    View v = plane_view(facing_plane(0.0f));
    Image other = v.color;
    for (Vec3& p : other.pixels) p = p * 3.0f;
    auto blended_with = [&](const FeatureImages& now) {
        TemporalHistory h;
        h.blend(v.color, samples(8.0f), v.features, v.camera);
        h.next_view();
        Image out = h.blend(other, samples(1.0f), now, v.camera);
        EXPECT_EQ(h.reused(), 0u);
        for (size_t i = 0; i < out.pixels.size(); ++i)
            expect_near(out.pixels[i], other.pixels[i], 1e-5f, "pixel", i, 0);
    };
    FeatureImages nearer = v.features;  // an object in front of the plane
    for (Vec3& d : nearer.depth.pixels) d = splat(4.0f);
    blended_with(nearer);
    FeatureImages turned = v.features;  // a surface at right angles to it
    for (Vec3& n : turned.normal.pixels) n = Vec3{1.0f, 0.0f, 0.0f};
    blended_with(turned);
    FeatureImages sky = v.features;  // every sample escaped
    for (Vec3& n : sky.normal.pixels) n = splat(0.0f);
    for (Vec3& d : sky.depth.pixels) d = splat(0.0f);
    blended_with(sky);
}

TEST(Temporal, ClearedTheHistoryIsGone) {
    View v = plane_view(facing_plane(0.0f));
    TemporalHistory h;
    h.blend(v.color, samples(8.0f), v.features, v.camera);
    h.next_view();
    h.clear();
    Image out = h.blend(v.color, samples(1.0f), v.features, v.camera);
    EXPECT_EQ(h.reused(), 0u);
    // Blending again within one view replaces that view's blend: the history stays the previous view's.
    h.next_view();
    h.blend(v.color, samples(1.0f), v.features, v.camera);
    h.blend(v.color, samples(2.0f), v.features, v.camera);
    EXPECT_EQ(h.reused(), static_cast<size_t>(kW) * kH);
    for (size_t i = 0; i < out.pixels.size(); ++i) expect_near(out.pixels[i], v.color.pixels[i], 1e-5f, "pixel", i, 0);
}

// ViewHistory's turnover, which the host's history and the device's share: a new view takes the current
// one as its history (its very buffers: the two slots trade places), a view never blended leaves the
// history as it was, a view without temporal reuse is not kept, and a restart drops everything.
TEST(Temporal, TheHistoryTurnsOverAsARefreshAsks) {
    struct Buffers {
        int tag = 0;
    };
    ViewHistory<Buffers> h;
    auto history_tag = [&] {
        int tag = -1;
        TemporalFrame f = h.history([&](const Buffers& b) {
            tag = b.tag;
            return TemporalFrame{CameraView{}, 0, 0, nullptr, nullptr, nullptr, nullptr};
        });
        return f.width > 0 ? tag : -1;  // -1: no history
    };
    const CameraView a = make_camera_view(facing_plane(0.0f), kW, kH);
    h.turn_over(false, true, true);
    EXPECT_EQ(history_tag(), -1) << "no view before the first";
    Buffers* first = &h.current(a, kW, kH).buffers;
    first->tag = 1;
    h.turn_over(false, true, false);  // more samples of the same view
    EXPECT_EQ(history_tag(), -1);
    EXPECT_EQ(&h.current(a, kW, kH).buffers, first) << "the same view rewrites its own buffers";
    h.turn_over(false, true, true);
    EXPECT_EQ(history_tag(), 1) << "the camera moved: the first view is the history";
    Buffers* second = &h.current(a, kW, kH).buffers;
    EXPECT_NE(second, first);
    second->tag = 2;
    h.turn_over(false, true, true);
    EXPECT_EQ(history_tag(), 2);
    EXPECT_EQ(&h.current_buffers(), first) << "the slots trade places";
    h.turn_over(false, true, true);  // a new view before the last one was blended: the history stays
    EXPECT_EQ(history_tag(), 2);
    h.current(a, kW, kH, false).buffers.tag = 3;  // filtered without temporal reuse: not kept
    h.turn_over(false, true, true);
    EXPECT_EQ(history_tag(), 2);
    h.current(a, kW, kH).buffers.tag = 4;
    h.turn_over(false, false, true);
    EXPECT_EQ(history_tag(), -1) << "temporal reuse off: nothing carries over";
    h.current(a, kW, kH).buffers.tag = 5;
    h.turn_over(true, true, true);
    EXPECT_EQ(history_tag(), -1) << "a restart: nothing carries over";
}
