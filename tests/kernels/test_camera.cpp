// The thin-lens camera against geometry: with no aperture it is the pinhole exactly, and with one every
// ray of a pixel sample passes through the same point of the plane of focus, whatever the lens sample.
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/shading/camera.h"
#include "kernels/path.h"
#include "kernels/shading/rng.h"
#include "render/scene/scene.h"

using namespace pkrt;

namespace {

CameraSpec spec(float aperture, float focus) {
    CameraSpec c;
    c.eye = {1.0f, 2.0f, 3.0f};
    c.look_at = {-2.0f, 0.5f, -4.0f};
    c.up = {0.0f, 1.0f, 0.0f};
    c.vfov_degrees = 50.0f;
    c.aperture_radius = aperture;
    c.focus_distance = focus;
    return c;
}

// The pinhole ray as it was before the lens existed: the unit direction through the pixel sample.
Ray pinhole(const CameraView& c, int w, int h, int px, int py, float jx, float jy) {
    float sx = (2.0f * (static_cast<float>(px) + jx) / static_cast<float>(w) - 1.0f) * c.tan_half_fov_y * c.aspect;
    float sy = (1.0f - 2.0f * (static_cast<float>(py) + jy) / static_cast<float>(h)) * c.tan_half_fov_y;
    return Ray{c.eye, normalize(c.forward + c.right * sx + c.up * sy)};
}

}  // namespace

TEST(Camera, NoApertureIsThePinholeBitForBit) {
    CameraView c = make_camera_view(spec(0.0f, 0.0f), 64, 48);
    EXPECT_EQ(c.lens_radius, 0.0f);
    Rng rng = make_rng(3, 0, 0);
    for (int i = 0; i < 2000; ++i) {
        int px = static_cast<int>(rng.next_u32() % 64), py = static_cast<int>(rng.next_u32() % 48);
        float jx = rng.next_float(), jy = rng.next_float(), l0 = rng.next_float(), l1 = rng.next_float();
        Ray a = camera_ray(c, 64, 48, px, py, jx, jy, l0, l1), b = pinhole(c, 64, 48, px, py, jx, jy);
        ASSERT_EQ(a.o.x, b.o.x);
        ASSERT_EQ(a.o.y, b.o.y);
        ASSERT_EQ(a.o.z, b.o.z);
        ASSERT_EQ(a.d.x, b.d.x);
        ASSERT_EQ(a.d.y, b.d.y);
        ASSERT_EQ(a.d.z, b.d.z);
    }
}

// Focus distance 0 in the spec means the look-at point's distance.
TEST(Camera, FocusDefaultsToTheLookAtDistance) {
    CameraSpec s = spec(0.1f, 0.0f);
    CameraView c = make_camera_view(s, 10, 10);
    EXPECT_NEAR(c.focus_distance, length(s.look_at - s.eye), 1e-5f);
    EXPECT_EQ(c.lens_radius, 0.1f);
    EXPECT_EQ(make_camera_view(spec(0.1f, 2.5f), 10, 10).focus_distance, 2.5f);
}

// For one pixel sample, the rays from every point of the lens meet where the pinhole ray crosses the
// plane dot(p - eye, forward) = focus_distance: that plane is imaged sharply. The lens points lie on the
// disk of the aperture radius, in the plane through the eye perpendicular to forward.
TEST(Camera, LensRaysOfOnePixelSampleConvergeOnThePlaneOfFocus) {
    const float radius = 0.25f, focus = 7.0f;
    CameraView c = make_camera_view(spec(radius, focus), 64, 48);
    Rng rng = make_rng(4, 0, 0);
    for (int i = 0; i < 200; ++i) {
        int px = static_cast<int>(rng.next_u32() % 64), py = static_cast<int>(rng.next_u32() % 48);
        float jx = rng.next_float(), jy = rng.next_float();
        Ray p = pinhole(c, 64, 48, px, py, jx, jy);
        Vec3 target = p.o + p.d * (focus / dot(p.d, c.forward));
        double spread = 0.0;
        for (int k = 0; k < 64; ++k) {
            Ray r = camera_ray(c, 64, 48, px, py, jx, jy, rng.next_float(), rng.next_float());
            Vec3 off = r.o - c.eye;
            ASSERT_NEAR(dot(off, c.forward), 0.0f, 1e-5f) << "lens points lie in the lens plane";
            ASSERT_LE(length(off), radius * (1.0f + 1e-5f)) << "lens points lie on the aperture";
            spread = std::max(spread, double(length(off)));
            ASSERT_NEAR(length(r.d), 1.0f, 1e-5f);
            ASSERT_GT(dot(r.d, c.forward), 0.0f);
            // Where this ray crosses the plane of focus.
            float t = (focus - dot(off, c.forward)) / dot(r.d, c.forward);
            Vec3 hit = r.o + r.d * t;
            ASSERT_NEAR(length(hit - target), 0.0f, 2e-5f * focus) << "pixel " << px << "," << py;
        }
        EXPECT_GT(spread, 0.5 * radius) << "the lens samples cover the aperture";
    }
}

// Off the plane of focus the same rays spread: at half the focus distance they are a disk of half the
// aperture's radius around the pinhole ray (similar triangles), so things there blur.
TEST(Camera, OutOfFocusPointsSpreadInProportionToTheAperture) {
    const float radius = 0.2f, focus = 6.0f;
    CameraView c = make_camera_view(spec(radius, focus), 32, 32);
    Ray p = pinhole(c, 32, 32, 10, 20, 0.5f, 0.5f);
    Vec3 centre = p.o + p.d * (0.5f * focus / dot(p.d, c.forward));
    double widest = 0.0;
    const int n = 16;
    for (int a = 0; a < n; ++a)
        for (int b = 0; b < n; ++b) {
            Ray r = camera_ray(c, 32, 32, 10, 20, 0.5f, 0.5f, (a + 0.5f) / n, (b + 0.5f) / n);
            float t = (0.5f * focus - dot(r.o - c.eye, c.forward)) / dot(r.d, c.forward);
            double d = length(r.o + r.d * t - centre);
            EXPECT_LE(d, 0.5 * radius * (1.0 + 1e-4));
            widest = std::max(widest, d);
        }
    EXPECT_GT(widest, 0.45 * radius);
}

// start_path draws the two lens numbers whether or not the camera has a lens: a pinhole and a thin
// lens consume the same count, so the path after the camera ray sees the same random numbers.
TEST(Camera, StartPathDrawsTheLensNumbersAlways) {
    FrameRecord f{};
    f.width = 16;
    f.height = 16;
    f.seed = 9;
    for (float aperture : {0.0f, 0.3f}) {
        f.camera = make_camera_view(spec(aperture, 0.0f), 16, 16);
        PathState p = start_path(f, 37, 5);
        Rng expect = make_rng(9, 37, 5);
        for (int i = 0; i < 4; ++i) expect.next_float();  // jx, jy, lens u0, u1
        EXPECT_EQ(p.rng.next_u32(), expect.next_u32()) << "aperture " << aperture;
    }
}
