// Camera paths of image sequences: orbits turn about the up axis at a fixed distance, keyframes are
// passed through at their times, and every bad key file is one error naming the file and the key.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "render/scene/camera_path.h"
#include "render/sequence.h"
#include "render/error.h"
#include "tests/test_util.h"

using namespace pkrt;
using pkrt_test::TempDir;

namespace {

CameraSpec scene_camera() {
    CameraSpec c;
    c.eye = {0, 1, 10};
    c.look_at = {0, 1, 0};
    c.up = {0, 1, 0};
    c.vfov_degrees = 40;
    return c;
}

void expect_near(Vec3 a, Vec3 b, float tol) {
    EXPECT_NEAR(a.x, b.x, tol);
    EXPECT_NEAR(a.y, b.y, tol);
    EXPECT_NEAR(a.z, b.z, tol);
}

std::string error_of(const std::string& spec) {
    try {
        parse_camera_path(spec, scene_camera());
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST(CameraPath, OrbitTurnsAboutUpAtTheSameDistance) {
    CameraPath p = parse_camera_path("orbit", scene_camera());
    expect_near(camera_at(p, 0, 8).eye, scene_camera().eye, 1e-5f);
    expect_near(camera_at(p, 2, 8).eye, Vec3{10, 1, 0}, 1e-4f);  // a quarter turn, counter-clockwise seen from above
    expect_near(camera_at(p, 4, 8).eye, Vec3{0, 1, -10}, 1e-4f);
    for (int i = 0; i < 8; ++i) {
        CameraSpec c = camera_at(p, i, 8);
        EXPECT_NEAR(length(c.eye - c.look_at), 10.0f, 1e-4f);
        expect_near(c.look_at, scene_camera().look_at, 0.0f);
    }
    CameraPath q = parse_camera_path("orbit:90", scene_camera());
    expect_near(camera_at(q, 1, 2).eye, Vec3{7.0710678f, 1, 7.0710678f}, 1e-4f);
}

TEST(CameraPath, KeysArePassedThroughAtTheirTimes) {
    TempDir dir;
    std::ofstream(dir.file("keys.json")) << R"({"keys": [
        {"time": 0,   "eye": [0, 1, 10], "look_at": [0, 1, 0]},
        {"time": 0.5, "eye": [10, 2, 0], "look_at": [0, 1, 0], "fov": 60},
        {"time": 1,   "eye": [0, 3, -10], "look_at": [1, 1, 0], "up": [0, 1, 0.1]}]})";
    CameraPath p = parse_camera_path(dir.file("keys.json"), scene_camera());
    expect_near(camera_at(p, 0, 5).eye, Vec3{0, 1, 10}, 1e-5f);
    expect_near(camera_at(p, 2, 5).eye, Vec3{10, 2, 0}, 1e-4f);
    EXPECT_NEAR(camera_at(p, 2, 5).vfov_degrees, 60.0f, 1e-4f);
    expect_near(camera_at(p, 4, 5).eye, Vec3{0, 3, -10}, 1e-5f);
    expect_near(camera_at(p, 4, 5).look_at, Vec3{1, 1, 0}, 1e-5f);
    // Between keys: the spline, inside the keys' range.
    CameraSpec mid = camera_at(p, 1, 5);
    EXPECT_GT(mid.eye.x, 0.0f);
    EXPECT_LT(mid.eye.x, 12.0f);
    EXPECT_NEAR(mid.vfov_degrees, 50.0f, 1e-3f);
}

// The scene camera's thin lens (from the scene file or --aperture / --focus-distance) is every frame's,
// orbit or keys: a sequence does not silently fall back to a pinhole.
TEST(CameraPath, FramesKeepTheSceneCamerasLens) {
    CameraSpec base = scene_camera();
    base.aperture_radius = 0.3f;
    base.focus_distance = 7.5f;
    TempDir dir;
    std::ofstream(dir.file("keys.json")) << R"({"keys": [
        {"time": 0, "eye": [0, 1, 10], "look_at": [0, 1, 0]},
        {"time": 1, "eye": [10, 2, 0], "look_at": [0, 1, 0], "fov": 60}]})";
    for (const std::string& spec : {std::string("orbit:90"), dir.file("keys.json")}) {
        CameraPath p = parse_camera_path(spec, base);
        for (int i = 0; i < 4; ++i) {
            CameraSpec c = camera_at(p, i, 4);
            EXPECT_EQ(c.aperture_radius, 0.3f) << spec << " frame " << i;
            EXPECT_EQ(c.focus_distance, 7.5f) << spec << " frame " << i;
        }
    }
}

TEST(CameraPath, BadPathsAreOneClearError) {
    TempDir dir;
    auto file = [&](const std::string& name, const std::string& text) {
        std::ofstream(dir.file(name)) << text;
        return dir.file(name);
    };
    EXPECT_NE(error_of("orbit:").find("orbit:DEGREES"), std::string::npos);
    EXPECT_NE(error_of("orbit:ninety").find("orbit:DEGREES"), std::string::npos);
    EXPECT_NE(error_of("orbit:0").find("orbit:DEGREES"), std::string::npos);
    EXPECT_NE(error_of(dir.file("missing.json")).find("cannot open"), std::string::npos);
    std::string f = file("bad1.json", R"({"keys": [{"time": 0, "eye": [0,0,1], "look_at": [0,0,0], "zoom": 2}]})");
    EXPECT_EQ(error_of(f), f + ": keys[0]: unknown key 'zoom' (time, eye, look_at, up, fov)");
    f = file(
        "bad2.json",
        R"({"keys": [{"time": 0.5, "eye": [0,0,1], "look_at": [0,0,0]}, {"time": 0.5, "eye": [0,0,2], "look_at": [0,0,0]}]})");
    EXPECT_EQ(error_of(f), f + ": keys[1].time: must be greater than the key before");
    f = file("bad3.json", R"({"keys": [{"time": 0, "eye": [0,1e31,1], "look_at": [0,0,0]}]})");
    EXPECT_EQ(error_of(f), f + ": keys[0].eye[1]: must be a finite number of magnitude below 1e30");
    f = file("bad4.json", R"({"keys": [{"time": 0, "eye": [0,5,0], "look_at": [0,0,0]}]})");
    EXPECT_EQ(error_of(f), f + ": keys[0].up: must not be parallel to the view direction");
    f = file("bad5.json", R"({"keys": []})");
    EXPECT_EQ(error_of(f), f + ": keys: must be a non-empty array");
    f = file("bad6.json", R"({"keys": [{"time": 0, "eye": [0,0,1], "look_at": [0,0,0]}]} trailing)");
    EXPECT_NE(error_of(f).find(f + ": invalid JSON: "), std::string::npos);
    f = file("bad7.json", R"({"keys": [{"time": 2, "eye": [0,0,1], "look_at": [0,0,0]}]})");
    EXPECT_EQ(error_of(f), f + ": keys[0].time: must be between 0 and 1");
}

TEST(Sequence, FramePatternsHoldOneFrameNumber) {
    EXPECT_EQ(frame_path("out_%04d.png", 7), "out_0007.png");
    EXPECT_EQ(frame_path("out_%d.png", 12345), "out_12345.png");
    EXPECT_EQ(frame_path("100%%_%02d.png", 3), "100%_03.png");
    EXPECT_EQ(frame_path("f%03d.exr", 1000), "f1000.exr");
    auto error_of = [](const std::string& p) {
        try {
            check_frame_pattern(p, "-o");
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    EXPECT_EQ(error_of("out.png"), "-o out.png: must hold exactly one frame number, as in out_%04d.png");
    EXPECT_EQ(error_of("a%d_%d.png"), "-o a%d_%d.png: must hold exactly one frame number, as in out_%04d.png");
    EXPECT_EQ(error_of("a%s.png"), "-o a%s.png: only %d or %0Nd may stand for the frame number (%% for a literal %)");
    EXPECT_EQ(error_of("a%0d.png"), "-o a%0d.png: %0 must be followed by a width of 1 to 9 digits, as in %04d");
    EXPECT_EQ(error_of("a%04d.png"), "");
}
