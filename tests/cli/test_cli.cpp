// End to end: the pkrt binary as a user runs it. Valid renders produce readable files of the asked
// size; every kind of bad input gives one clear line on stderr, a non-zero exit and no output file.
#include <gtest/gtest.h>
#include <stb_image.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "render/devices.h"
#include "render/image/image.h"
#include "tests/cli/test_cli_util.h"
#include "tests/scene/test_ply_util.h"

using namespace pkrt_test;
namespace fs = std::filesystem;

namespace {

const std::string kCornell = std::string(PKRT_SCENES_DIR) + "/cornell.json";

}  // namespace

TEST(Cli, RendersPngOfRequestedSizeWithHdrAndStats) {
    TempDir dir;
    RunResult r = run_pkrt(
        "render " + shell_quote(kCornell) + " --res 40x30 --spp 2 --seed 7 -o out.png --hdr out.exr --stats stats.json",
        dir.path().string());
    ASSERT_EQ(r.code, 0) << r.err;
    int w = 0, h = 0, n = 0;
    ASSERT_TRUE(stbi_info(dir.file("out.png").c_str(), &w, &h, &n)) << "not a PNG";
    EXPECT_EQ(w, 40);
    EXPECT_EQ(h, 30);
    EXPECT_EQ(n, 3);

    pkrt::Image exr = pkrt::read_exr(dir.file("out.exr"));
    ASSERT_EQ(exr.width, 40);
    ASSERT_EQ(exr.height, 30);
    double sum = 0;
    for (const auto& p : exr.pixels) {
        ASSERT_TRUE(std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z));
        sum += p.x + p.y + p.z;
    }
    EXPECT_GT(sum, 0.0);

    auto stats = nlohmann::json::parse(read_text(dir.file("stats.json")));
    EXPECT_EQ(stats["samples"].get<uint64_t>(), 40u * 30u * 2u);
    EXPECT_EQ(stats["spp"].get<int>(), 2);
    uint64_t by_depth = 0;
    for (auto& v : stats["rays"]["extension_by_depth"]) by_depth += v.get<uint64_t>();
    EXPECT_EQ(by_depth, stats["rays"]["extension"].get<uint64_t>());
    // Every sample starts with one camera ray.
    EXPECT_EQ(stats["rays"]["extension_by_depth"][0].get<uint64_t>(), 40u * 30u * 2u);
    EXPECT_GT(stats["rays"]["shadow"].get<uint64_t>(), 0u);
    // The summary names time, samples/s and rays/s.
    EXPECT_NE(r.err.find("samples/s"), std::string::npos);
    EXPECT_NE(r.err.find("rays/s"), std::string::npos);
}

TEST(Cli, PfmAndExrHoldTheSameLinearRadiance) {
    TempDir dir;
    std::string common = "render " + shell_quote(kCornell) + " --res 16x16 --spp 2 --backend cpu -q";
    ASSERT_EQ(run_pkrt(common + " -o a.png --hdr a.pfm", dir.path().string()).code, 0);
    ASSERT_EQ(run_pkrt(common + " -o b.png --hdr b.exr", dir.path().string()).code, 0);
    pkrt::Image pfm = pkrt::read_pfm(dir.file("a.pfm"));
    pkrt::Image exr = pkrt::read_exr(dir.file("b.exr"));
    ASSERT_EQ(pfm.pixels.size(), exr.pixels.size());
    for (size_t i = 0; i < pfm.pixels.size(); ++i) {
        EXPECT_FLOAT_EQ(pfm.pixels[i].x, exr.pixels[i].x);
        EXPECT_FLOAT_EQ(pfm.pixels[i].z, exr.pixels[i].z);
    }
    // The light (17, 12, 4) is far above 1: linear files keep it, the PNG clips.
    float peak = 0;
    for (const auto& p : pfm.pixels) peak = std::max(peak, p.x);
    EXPECT_GT(peak, 4.0f);
}

TEST(Cli, DefaultSceneIsTheCornellBoxToPkrtPng) {
    TempDir dir;
    RunResult r = run_pkrt("render --res 8x8 --spp 1", dir.path().string());
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(fs::exists(dir.file("pkrt.png")));
    EXPECT_NE(r.err.find("cornell.json"), std::string::npos) << r.err;
}

TEST(Cli, BareObjRendersWithAutomaticCamera) {
    REQUIRE_SHARED_SCENE("cornell-box/CornellBox-Original.obj");
    TempDir dir;
    RunResult r = run_pkrt("render " + shell_quote(shared_scene("cornell-box/CornellBox-Original.obj")) +
                               " --res 24x24 --spp 1 -o obj.png",
                           dir.path().string());
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(fs::exists(dir.file("obj.png")));
}

TEST(Cli, BarePlyRendersWithAutomaticCameraAndWarnings) {
    TempDir dir;
    PlyMesh m;
    m.vertices = {{{0, 0, 0}}, {{1, 0, 0}}, {{1, 1, 0}}, {{0, 1, 0}}, {{0.5, 0.5, 1}}};
    m.faces = {{0, 1, 2, 3}, {0, 1, 4}, {1, 2, 4}};
    dir.write("mesh.ply", ply_file(m, PlyEncoding::kBigEndian));
    RunResult r =
        run_pkrt("render mesh.ply --backend cpu --res 16x12 --spp 2 -o ply.png --stats ply.json", dir.path().string());
    ASSERT_EQ(r.code, 0) << r.err;
    int w = 0, h = 0, c = 0;
    unsigned char* px = stbi_load(dir.file("ply.png").c_str(), &w, &h, &c, 3);
    ASSERT_NE(px, nullptr);
    EXPECT_EQ(w, 16);
    EXPECT_EQ(h, 12);
    stbi_image_free(px);
    EXPECT_NE(r.err.find("mesh.ply: 4 triangles"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("warning"), std::string::npos) << r.err;

    dir.write("colours.ply",
              "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
              "property uchar red\nproperty uchar green\nproperty uchar blue\nelement face 1\n"
              "property list uchar int vertex_indices\nend_header\n0 0 0 1 2 3\n1 0 0 4 5 6\n0 1 0 7 8 9\n3 0 1 2\n");
    r = run_pkrt("render colours.ply --backend cpu --res 8x8 --spp 1 -o c.png", dir.path().string());
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("pkrt: warning: colours.ply: 'red/green/blue' vertex colours ignored\n"), std::string::npos)
        << r.err;
}

TEST(Cli, AutoBackendSaysWhichItPicked) {
    TempDir dir;
    RunResult r = run_pkrt("render --res 4x4 --spp 1 -o x.png", dir.path().string());
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(r.err.find("CPU backend (auto") != std::string::npos || r.err.find("CUDA backend") != std::string::npos)
        << r.err;
}

TEST(Cli, InfoListsDevicesAndBuild) {
    TempDir dir;
    RunResult r = run_pkrt("info", dir.path().string());
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("CUDA"), std::string::npos);
    EXPECT_NE(r.out.find("build:"), std::string::npos);
}

TEST(Cli, AdaptiveRenderWritesItsSppMapAndStatistics) {
    TempDir dir;
    RunResult r = run_pkrt(
        "render " + shell_quote(kCornell) +
            " --backend cpu --res 40x24 --target-error 0.1 --min-spp 8 --max-spp 64 -o out.png --stats s.json --spp-map map.png",
        dir.path().string());
    ASSERT_EQ(r.code, 0) << r.err;
    int w = 0, h = 0, n = 0;
    ASSERT_TRUE(stbi_info(dir.file("map.png").c_str(), &w, &h, &n)) << "not a PNG";
    EXPECT_EQ(w, 360) << "an image narrower than the legend is widened to it";
    EXPECT_EQ(h, 24 + 64) << "the image, then the legend";
    auto j = nlohmann::json::parse(read_text(dir.file("s.json")))["adaptive"];
    EXPECT_FLOAT_EQ(j["target_error"].get<float>(), 0.1f);
    EXPECT_EQ(j["min_spp"].get<int>(), 8);
    EXPECT_EQ(j["max_spp"].get<int>(), 64);
    uint64_t pixels = 0;
    for (auto& bin : j["spp_histogram"]) pixels += bin["pixels"].get<uint64_t>();
    EXPECT_EQ(pixels, 40u * 24u);
    ASSERT_FALSE(j["rounds"].empty());
    EXPECT_EQ(j["rounds"][0]["samples_per_tile"].get<int>(), 8);
    EXPECT_EQ(j["rounds"].back()["converged"].get<double>(), j["converged"].get<double>());
    EXPECT_NE(r.err.find("pkrt: adaptive (stop): "), std::string::npos) << r.err;
    EXPECT_EQ(j["rule"].get<std::string>(), "stop");
}

// The proportional rule: its pilot is 64 spp unless --min-spp says otherwise (never above --max-spp),
// and its most is --max-spp rounded down to a power of two.
TEST(Cli, ProportionalRulePilotsAt64SppByDefault) {
    TempDir dir;
    const std::string base = "render " + shell_quote(kCornell) +
                             " --backend cpu --res 16x16 --target-error 0.1 --adaptive-rule proportional -o out.png";
    auto rule = [&](const std::string& flags) {
        RunResult r = run_pkrt(base + flags + " --stats s.json", dir.path().string());
        EXPECT_EQ(r.code, 0) << r.err;
        EXPECT_NE(r.err.find("pkrt: adaptive (proportional): "), std::string::npos) << r.err;
        return nlohmann::json::parse(read_text(dir.file("s.json")))["adaptive"];
    };
    auto j = rule("");
    EXPECT_EQ(j["rule"].get<std::string>(), "proportional");
    EXPECT_EQ(j["min_spp"].get<int>(), 64);
    EXPECT_EQ(j["rounds"][0]["samples_per_tile"].get<int>(), 64);
    j = rule(" --min-spp 8 --max-spp 100");
    EXPECT_EQ(j["rounds"][0]["samples_per_tile"].get<int>(), 8);
    EXPECT_EQ(j["max_spp"].get<int>(), 64);
    EXPECT_LE(j["spp"]["most"].get<int>(), 64);
    j = rule(" --max-spp 32");
    EXPECT_EQ(j["min_spp"].get<int>(), 32) << "the pilot within --max-spp";
    j = rule(" --min-spp 6");
    EXPECT_EQ(j["min_spp"].get<int>(), 8) << "the pilot: --min-spp rounded up to a power of two";
    EXPECT_EQ(j["rounds"][0]["samples_per_tile"].get<int>(), 8);
}

TEST(Cli, BadAdaptiveFlagsFailCleanly) {
    TempDir dir;
    std::string scene = shell_quote(kCornell) + " --backend cpu --res 8x8";
    expect_clean_failure(dir, "render " + scene + " --target-error 0 -o out.png", 1, "--target-error 0: must be");
    expect_clean_failure(dir, "render " + scene + " --target-error -0.5 -o out.png", 1, "--target-error -0.5");
    expect_clean_failure(dir, "render " + scene + " --target-error nan -o out.png", 1, "--target-error nan");
    expect_clean_failure(dir, "render " + scene + " --target-error 0.01 --min-spp 64 --max-spp 16 -o out.png", 1,
                         "--min-spp 64: must not exceed --max-spp 16");
    expect_clean_failure(dir, "render " + scene + " --target-error 0.01 --min-spp 0 -o out.png", 1, "--min-spp 0");
    expect_clean_failure(dir, "render " + scene + " --target-error 0.01 --max-spp 99999999 -o out.png", 1,
                         "--max-spp 99999999");
    expect_clean_failure(dir, "render " + scene + " --target-error 0.01 --time-limit -1 -o out.png", 1,
                         "--time-limit -1");
    expect_clean_failure(dir, "render " + scene + " --target-error 0.01 --spp 4 -o out.png", 1,
                         "--spp: not with --target-error");
    expect_clean_failure(dir, "render " + scene + " --max-spp 64 -o out.png", 1, "--max-spp: only with --target-error");
    expect_clean_failure(dir, "render " + scene + " --spp-map m.png -o out.png", 1,
                         "--spp-map: only with --target-error");
    expect_clean_failure(dir, "render " + scene + " --adaptive-rule proportional -o out.png", 1,
                         "--adaptive-rule: only with --target-error");
    // Refused before the scene loads, GPU or none (an unreadable scene would otherwise be the error).
    expect_clean_failure(
        dir, "render missing.json --backend cuda --target-error 0.1 --adaptive-rule proportional -o out.png", 1,
        "--adaptive-rule proportional: the GPU's rounds have only the stop rule so far");
    expect_clean_failure(dir, "render " + scene + " --target-error 0.1 --adaptive-rule even -o out.png", 2,
                         "--adaptive-rule: even not in {stop,proportional}");
    expect_clean_failure(dir, "render " + scene + " --target-error 0.01 --spp-map m.jpg -o out.png", 1, "'.jpg'");
    expect_clean_failure(dir, "render " + scene + " --target-error 0.01 --frames 3 --camera-path orbit -o f_%04d.png",
                         1, "not with --frames");
}

// --reference: the image's relMSE against a linear EXR, 0 for the same render, and more for fewer samples.
TEST(Cli, ReferenceMeasuresTheImagesRelMse) {
    TempDir dir;
    std::string scene = shell_quote(kCornell) + " --backend cpu --res 24x16 --seed 3";
    ASSERT_EQ(run_pkrt("render " + scene + " --spp 8 -o r.png --hdr ref.exr", dir.path().string()).code, 0);
    RunResult same =
        run_pkrt("render " + scene + " --spp 8 -o a.png --reference ref.exr --stats a.json", dir.path().string());
    ASSERT_EQ(same.code, 0) << same.err;
    auto j = nlohmann::json::parse(read_text(dir.file("a.json")))["reference"];
    EXPECT_EQ(j["path"].get<std::string>(), "ref.exr");
    EXPECT_EQ(j["rel_mse"].get<double>(), 0.0) << "the same samples, and EXR keeps floats exactly";
    EXPECT_NE(same.err.find("pkrt: relMSE against ref.exr: 0.0000e+00"), std::string::npos) << same.err;
    RunResult fewer =
        run_pkrt("render " + scene + " --spp 2 -o b.png --reference ref.exr --stats b.json", dir.path().string());
    ASSERT_EQ(fewer.code, 0) << fewer.err;
    EXPECT_GT(nlohmann::json::parse(read_text(dir.file("b.json")))["reference"]["rel_mse"].get<double>(), 1e-3);
}

TEST(Cli, BadReferencesFailCleanly) {
    TempDir dir;
    std::string scene = shell_quote(kCornell) + " --backend cpu --res 24x16";
    ASSERT_EQ(run_pkrt("render " + scene + " --spp 1 -o b.png --hdr in_ref.exr", dir.path().string()).code, 0);
    std::remove(dir.file("b.png").c_str());
    expect_clean_failure(dir, "render " + scene + " --spp 1 -o out.png --reference nope.exr", 1,
                         "nope.exr: no such file");
    expect_clean_failure(dir, "render " + scene + " --spp 1 -o out.png --reference in_ref.png", 1,
                         "--reference in_ref.png: must be a linear OpenEXR");
    expect_clean_failure(
        dir, "render " + shell_quote(kCornell) + " --backend cpu --res 32x16 --spp 1 -o out.png --reference in_ref.exr",
        1, "in_ref.exr: the reference is 24x16, the render 32x16");
    expect_clean_failure(dir, "render " + scene + " --spp 1 -o out.png --hdr in_ref.exr --reference in_ref.exr", 1,
                         "in_ref.exr");
    expect_clean_failure(
        dir, "render " + scene + " --spp 1 --frames 2 --camera-path orbit -o f_%04d.png --reference in_ref.exr", 1,
        "--reference: not with --frames");
    std::ofstream(dir.file("in_bad.exr")) << "not an exr";
    expect_clean_failure(dir, "render " + scene + " --spp 1 -o out.png --reference in_bad.exr", 1,
                         "in_bad.exr: cannot read EXR");
}

TEST(Cli, BadFlagsFailCleanly) {
    TempDir dir;
    std::string scene = shell_quote(kCornell);
    expect_clean_failure(dir, "render " + scene + " --bogus -o out.png", 2, "--bogus");
    expect_clean_failure(dir, "render " + scene + " --res 0x10 -o out.png", 1, "--res 0x10");
    expect_clean_failure(dir, "render " + scene + " --res 100000x10 -o out.png", 1, "between 1 and 16384");
    expect_clean_failure(dir, "render " + scene + " --res abc -o out.png", 1, "WIDTHxHEIGHT");
    expect_clean_failure(dir, "render " + scene + " --spp 0 -o out.png", 1, "--spp 0");
    expect_clean_failure(dir, "render " + scene + " --spp 99999999 -o out.png", 1, "--spp 99999999");
    expect_clean_failure(dir, "render " + scene + " --spp -3 -o out.png", 1, "--spp -3");
    expect_clean_failure(dir, "render " + scene + " --spp many -o out.png", 2, "--spp");
    expect_clean_failure(dir, "render " + scene + " --max-depth -2 -o out.png", 1, "--max-depth -2");
    expect_clean_failure(dir, "render " + scene + " --backend bogus -o out.png", 1, "--backend bogus");
    expect_clean_failure(dir, "render " + scene + " -o out.jpg", 1, "unsupported file type '.jpg'");
    expect_clean_failure(dir, "render " + scene + " -o nodir/out.png", 1, "does not exist");
    expect_clean_failure(dir, "render " + scene + " -o out.png --hdr out.tiff", 1, "'.tiff'");
    expect_clean_failure(dir, "render " + scene + " -o out.png --mode persistent --backend cpu", 1,
                         "--mode persistent");
    expect_clean_failure(dir, "frobnicate", 2, "frobnicate");
    expect_clean_failure(dir, "render " + scene + " --aperture -1 -o out.png", 1,
                         "--aperture -1: the lens radius must be");
    expect_clean_failure(dir, "render " + scene + " --aperture inf -o out.png", 1, "--aperture inf");
    expect_clean_failure(dir, "render " + scene + " --aperture wide -o out.png", 2, "--aperture");
    expect_clean_failure(dir, "render " + scene + " --focus-distance 0 -o out.png", 1,
                         "--focus-distance 0: must be greater than 0");
    expect_clean_failure(dir, "render " + scene + " --focus-distance -5 -o out.png", 1, "--focus-distance -5");
}

// The shipped metal-roughness scene renders, and --aperture / --focus-distance turn the scene's pinhole
// into a thin lens: finite pixels, and a different (blurred) picture from the same samples.
TEST(Cli, MetalRoughSceneAndThinLensFlagsRender) {
    TempDir dir;
    std::string scene = shell_quote(std::string(PKRT_SCENES_DIR) + "/metal_rough.json");
    std::string common = "render " + scene + " --res 48x30 --spp 2 --max-depth 4 --seed 3 --backend cpu -q";
    RunResult a = run_pkrt(common + " -o a.png --hdr a.pfm", dir.path().string());
    ASSERT_EQ(a.code, 0) << a.err;
    RunResult b = run_pkrt(common + " --aperture 0.4 --focus-distance 2 -o b.png --hdr b.pfm", dir.path().string());
    ASSERT_EQ(b.code, 0) << b.err;
    pkrt::Image pa = pkrt::read_pfm(dir.file("a.pfm")), pb = pkrt::read_pfm(dir.file("b.pfm"));
    ASSERT_EQ(pa.pixels.size(), 48u * 30u);
    ASSERT_EQ(pb.pixels.size(), pa.pixels.size());
    double sum = 0, diff = 0;
    for (size_t i = 0; i < pa.pixels.size(); ++i)
        for (int c = 0; c < 3; ++c) {
            ASSERT_TRUE(std::isfinite(pa.pixels[i][c]) && std::isfinite(pb.pixels[i][c]));
            sum += pa.pixels[i][c];
            diff += std::fabs(pa.pixels[i][c] - pb.pixels[i][c]);
        }
    EXPECT_GT(sum, 0.0);
    EXPECT_GT(diff / sum, 0.05) << "the lens changed nothing";
    EXPECT_EQ(a.err.find("NaN"), std::string::npos) << a.err;
}

// --bvh picks the layout the scene is converted to; the summary line names it, and a bad name is one
// clear error naming the flag and the valid layouts, on render and bench alike.
TEST(Cli, BvhLayoutFlag) {
    TempDir dir;
    std::string scene = shell_quote(kCornell);
    for (const char* layout : {"bvh2", "cwbvh"}) {
        RunResult r = run_pkrt(
            "render " + scene + " --backend cpu --res 8x8 --spp 1 --bvh " + layout + " -o b." + layout + ".png",
            dir.path().string());
        ASSERT_EQ(r.code, 0) << r.err;
        EXPECT_NE(r.err.find(std::string(layout) + " BVH of"), std::string::npos) << r.err;
    }
    RunResult d =
        run_pkrt("render " + scene + " --backend cpu --res 8x8 --spp 1 -o b.default.png", dir.path().string());
    ASSERT_EQ(d.code, 0) << d.err;
    EXPECT_NE(d.err.find("bvh2 BVH of"), std::string::npos) << "bvh2 stays the default: " << d.err;
    expect_clean_failure(dir, "render " + scene + " --backend cpu --bvh bvh4 -o out.png", 1, "--bvh bvh4: ");
    expect_clean_failure(dir, "render " + scene + " --backend cpu --bvh CWBVH -o out.png", 1, "bvh2, cwbvh");
    expect_clean_failure(dir, "bench " + scene + " --backend cpu --bvh wide", 1, "--bvh wide: ");
    expect_clean_failure(dir, "render " + scene + " --backend cpu --sbvh --bvh-splits 1 -o out.png", 1,
                         "--sbvh and --bvh-splits exclude each other");
    expect_clean_failure(dir, "bench " + scene + " --backend cpu --sbvh --bvh-splits 1", 1,
                         "--sbvh and --bvh-splits exclude each other");
    expect_clean_failure(dir, "render " + scene + " --backend cpu --bvh-splits 5 -o out.png", 2, "--bvh-splits");
    RunResult b = run_pkrt(
        "bench " + scene + " --backend cpu --bvh cwbvh --res 8x8 --max-depth 2 --repeat 1 --warmup 0 -q --json b.json",
        dir.path().string());
    ASSERT_EQ(b.code, 0) << b.err;
    EXPECT_EQ(nlohmann::json::parse(read_text(dir.file("b.json")))["bvh"], "cwbvh");
    EXPECT_EQ(nlohmann::json::parse(read_text(dir.file("b.json")))["sbvh"], true) << "spatial splits are the default";
}

// Spatial splits are the default build; --no-sbvh turns them off, and --bvh-splits takes their place
// unless --sbvh is asked for as well.
TEST(Cli, SpatialSplitsByDefault) {
    TempDir dir;
    std::string render = "render " + shell_quote(kCornell) + " --backend cpu --res 8x8 --spp 1 -o out.png";
    RunResult d = run_pkrt(render, dir.path().string());
    ASSERT_EQ(d.code, 0) << d.err;
    EXPECT_NE(d.err.find("pkrt: spatial splits: "), std::string::npos) << d.err;
    RunResult off = run_pkrt(render + " --no-sbvh", dir.path().string());
    ASSERT_EQ(off.code, 0) << off.err;
    EXPECT_EQ(off.err.find("spatial splits"), std::string::npos) << off.err;
    RunResult split = run_pkrt(render + " --bvh-splits 1", dir.path().string());
    ASSERT_EQ(split.code, 0) << split.err;
    EXPECT_NE(split.err.find("pkrt: triangle splitting: "), std::string::npos) << split.err;
    EXPECT_EQ(split.err.find("spatial splits"), std::string::npos) << split.err;
    RunResult bench = run_pkrt("bench " + shell_quote(kCornell) +
                                   " --backend cpu --res 8x8 --max-depth 2 --repeat 1 --warmup 0 -q "
                                   "--no-sbvh --json b.json",
                               dir.path().string());
    ASSERT_EQ(bench.code, 0) << bench.err;
    EXPECT_EQ(nlohmann::json::parse(read_text(dir.file("b.json")))["sbvh"], false);
}

// Scheduler experiments go through --set KEY=VALUE, checked before anything is loaded or rendered.
TEST(Cli, SchedulerSettingsAreValidated) {
    TempDir dir;
    std::string scene = shell_quote(kCornell);
    expect_clean_failure(dir, "render " + scene + " -o out.png --set fetch_treshold=8", 1,
                         "unknown key 'fetch_treshold'");
    expect_clean_failure(dir, "render " + scene + " -o out.png --set fetch_threshold=99", 1,
                         "fetch_threshold must be 1-32");
    expect_clean_failure(dir, "render " + scene + " -o out.png --set shadow_rays", 1, "expected KEY=VALUE");
    expect_clean_failure(dir, "render " + scene + " -o out.png --backend cpu --set shadow_rays=queued", 1,
                         "the CPU backend has no scheduler settings");
    expect_clean_failure(dir, "bench " + scene + " --backend cpu --set blocks_per_sm=7", 1,
                         "blocks_per_sm must be auto|4|6|8|10");
    RunResult help = run_pkrt("help-settings", dir.path().string());
    EXPECT_EQ(help.code, 0);
    for (const char* key : {"shadow_rays=auto|queued|inline", "stragglers=auto|kept|sorted", "blocks_per_sm="})
        EXPECT_NE(help.out.find(key), std::string::npos) << key;
}

TEST(Cli, CudaBackendWithoutDeviceIsAClearError) {
    std::string why;
    if (!pkrt::cuda_devices(&why).empty()) GTEST_SKIP() << "a CUDA device is present; this checks the no-device path";
    TempDir dir;
    expect_clean_failure(dir, "render " + shell_quote(kCornell) + " --backend cuda --res 8x8 --spp 1 -o out.png", 1,
                         "--backend cuda: ");
}

// `--devices` names CUDA devices: on the CPU backend it is an error, as is an index that does not exist
// (without a device every index is one) or a malformed list; bench takes the same flag.
TEST(Cli, BadDevicesFailCleanly) {
    TempDir dir;
    std::string scene = shell_quote(kCornell);
    expect_clean_failure(dir, "render " + scene + " -o out.png --backend cpu --devices 0", 1,
                         "--devices 0: the CPU backend has no CUDA devices (use --backend cuda)");
    expect_clean_failure(dir, "render " + scene + " -o out.png --devices 0,x", 1, "--devices 0,x: ");
    expect_clean_failure(dir, "render " + scene + " -o out.png --devices 4096", 1, "--devices 4096: ");
    expect_clean_failure(dir, "bench " + scene + " --res 8x8 --repeat 1 --devices 4096", 1, "--devices 4096: ");
}

TEST(Cli, BadScenesFailCleanly) {
    TempDir dir;
    expect_clean_failure(dir, "render in_missing.json -o out.png", 1, "in_missing.json: no such file");
    expect_clean_failure(dir, "render . -o out.png", 1, "not a regular file");
    dir.write("in_scene.txt", "hello");
    expect_clean_failure(dir, "render in_scene.txt -o out.png", 1, "unknown scene type '.txt'");

    dir.write("in_bad.json", "{ \"meshes\": [ {\"obj\": \"x.obj\" ] }");
    expect_clean_failure(dir, "render in_bad.json -o out.png", 1, "invalid JSON");
    dir.write("in_key.json", R"({"meshes": [{"sphere": {}}], "camra": {}})");
    expect_clean_failure(dir, "render in_key.json -o out.png", 1, "unknown key 'camra'");
    dir.write("in_type.json", R"({"meshes": [{"sphere": {"radius": "big"}}]})");
    expect_clean_failure(dir, "render in_type.json -o out.png", 1, "meshes[0].sphere.radius: must be a number");
    dir.write("in_noobj.json", R"({"meshes": [{"obj": "in_nothere.obj"}]})");
    expect_clean_failure(dir, "render in_noobj.json -o out.png", 1, "in_nothere.obj: no such file");
    dir.write("in_mat.json", R"({"meshes": [{"sphere": {}, "material": "gold"}]})");
    expect_clean_failure(dir, "render in_mat.json -o out.png", 1, "no material named 'gold'");

    dir.write("in_index.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9\n");
    expect_clean_failure(dir, "render in_index.obj -o out.png", 1, "uses vertex 9 but the file has 3");
    dir.write("in_degenerate.obj", "v 0 0 0\nv 1 0 0\nv 2 0 0\nf 1 2 3\n");
    expect_clean_failure(dir, "render in_degenerate.obj -o out.png", 1, "no valid triangles");
    dir.write("in_empty.obj", "# nothing here\n");
    expect_clean_failure(dir, "render in_empty.obj -o out.png", 1, "no faces");
    dir.write("in_mtl.obj", "mtllib in_gone.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl a\nf 1 2 3\n");
    expect_clean_failure(dir, "render in_mtl.obj -o out.png", 1, "in_gone.mtl");
    dir.write("in_tex.obj", "mtllib in_tex.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl a\nf 1 2 3\n");
    dir.write("in_tex.mtl", "newmtl a\nKd 1 1 1\nmap_Kd in_gone.png\n");
    expect_clean_failure(dir, "render in_tex.obj -o out.png", 1, "in_gone.png: texture file not found");
}

TEST(Cli, MissingTexturesCanBeRenderedWithoutThem) {
    TempDir dir;
    dir.write("in_tex.obj", "mtllib in_tex.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl a\nf 1 2 3\n");
    dir.write("in_tex.mtl", "newmtl a\nKd 1 1 1\nmap_Kd in_gone.png\n");
    expect_clean_failure(dir, "render in_tex.obj --missing-textures maybe -o out.png", 2, "--missing-textures");
    RunResult r =
        run_pkrt("render in_tex.obj --res 8x8 --spp 1 --missing-textures warn -o out.png", dir.path().string());
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("pkrt: warning: in_tex.mtl: texture 'in_gone.png' not found"), std::string::npos) << r.err;
    EXPECT_TRUE(fs::exists(dir.file("out.png")));
}

TEST(Cli, NanVerticesAreDroppedAndCounted) {
    TempDir dir;
    dir.write("in_nan.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv nan 0 0\nv 0 0 1\nf 1 2 3\nf 4 2 3\nf 1 2 5\n");
    RunResult r = run_pkrt("render in_nan.obj --res 8x8 --spp 1 -o out.png", dir.path().string());
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("dropped 1 triangles with NaN or infinite vertices"), std::string::npos) << r.err;
    EXPECT_TRUE(fs::exists(dir.file("out.png")));
}

TEST(Cli, BenchWritesJsonCsvAndPlot) {
    TempDir dir;
    RunResult r = run_pkrt("bench " + shell_quote(kCornell) +
                               " --backend cpu --res 16x16,32x24 --max-depth 3 --repeat 2 --warmup 1 -q"
                               " --json b.json --csv b.csv --plot b.png",
                           dir.path().string());
    ASSERT_EQ(r.code, 0) << r.err;
    auto j = nlohmann::json::parse(read_text(dir.file("b.json")));
    ASSERT_EQ(j["results"].size(), 2u);
    const auto& first = j["results"][0]["modes"]["cpu-threads"];
    EXPECT_EQ(first["ms"].size(), 2u) << "one time per measured frame";
    EXPECT_GT(first["median_ms"].get<double>(), 0.0);
    EXPECT_GT(first["rays_per_second"].get<double>(), 0.0);
    std::string csv = read_text(dir.file("b.csv"));
    EXPECT_EQ(count_lines(csv), 3) << csv;  // header + one row per resolution
    EXPECT_EQ(csv.rfind("scene,width,height", 0), 0u);
    int w = 0, h = 0, n = 0;
    ASSERT_TRUE(stbi_info(dir.file("b.png").c_str(), &w, &h, &n));
    EXPECT_GE(w, 640);
    EXPECT_NE(r.out.find("median ms"), std::string::npos) << "a readable table on stdout";
    // Bad bench flags fail cleanly too.
    expect_clean_failure(dir, "bench " + shell_quote(kCornell) + " --backend cpu --plot b.jpg", 1,
                         "unsupported file type '.jpg'");
    expect_clean_failure(dir, "bench " + shell_quote(kCornell) + " --backend cpu --modes warp", 1,
                         "'warp' is not a mode");
}

TEST(Cli, BenchRejectsBadWarmupAndDepth) {
    TempDir dir;
    std::string bench = "bench " + shell_quote(kCornell) + " --backend cpu --res 8x8 --repeat 1 -q";
    expect_clean_failure(dir, bench + " --warmup -5", 1, "--warmup -5");
    expect_clean_failure(dir, bench + " --warmup 2147483647", 1, "--warmup 2147483647");
    expect_clean_failure(dir, bench + " --warmup 0 --max-depth -1", 1, "--max-depth -1");
    expect_clean_failure(dir, bench + " --warmup 0 --max-depth 2,99999", 1, "--max-depth 99999");
}

// Image sequences: one file per frame from the -o pattern, the sequence's statistics once all are
// written; every bad sequence flag is one line before anything renders.
TEST(Cli, SequencesWriteOneFilePerFrame) {
    TempDir dir;
    std::string scene = shell_quote(kCornell);
    RunResult r = run_pkrt("render " + scene +
                               " --frames 3 --camera-path orbit:30 --res 16x16 --spp 2 --max-depth 3 -q "
                               "-o f_%02d.png --hdr f_%02d.pfm --stats seq.json",
                           dir.path().string());
    ASSERT_EQ(r.code, 0) << r.err;
    for (const char* f : {"f_00.png", "f_01.png", "f_02.png", "f_00.pfm", "f_02.pfm", "seq.json"})
        EXPECT_TRUE(fs::exists(dir.file(f))) << f;
    EXPECT_FALSE(fs::exists(dir.file("f_03.png")));
    auto j = nlohmann::json::parse(read_text(dir.file("seq.json")));
    EXPECT_EQ(j["samples"].get<uint64_t>(), 3u * 16u * 16u * 2u);
    // Where the sequence's time went: the render loop's parts fit in its wall time, the writers wrote.
    const auto& seq = j["sequence"];
    EXPECT_EQ(seq["frames"].get<int>(), 3);
    double wall = seq["seconds"].get<double>();
    const auto& loop = seq["render_loop"];
    double parts = loop["rendering_s"].get<double>() + loop["own_work_s"].get<double>() +
                   loop["handing_to_writers_s"].get<double>();
    EXPECT_GT(loop["rendering_s"].get<double>(), 0.0);
    EXPECT_LE(parts, wall);
    EXPECT_GE(seq["writers"]["threads"].get<int>(), 1);
    EXPECT_GT(seq["writers"]["busy_s"].get<double>(), 0.0);
    // Different cameras: different pictures.
    EXPECT_NE(read_text(dir.file("f_00.pfm")), read_text(dir.file("f_02.pfm")));
    // Without -q: the rate, and where the render loop's time went (which side set the pace).
    r = run_pkrt("render " + scene + " --frames 2 --camera-path orbit --res 8x8 --spp 1 -o g_%d.png",
                 dir.path().string());
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("2 frames of 8x8, 1 spp in"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("render loop: "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("writers busy"), std::string::npos) << r.err;
}

TEST(Cli, BadSequenceFlagsFailBeforeRendering) {
    TempDir dir;
    std::string scene = shell_quote(kCornell);
    expect_clean_failure(dir, "render " + scene + " --frames 3 -o in_%02d.png", 1, "needs --camera-path");
    expect_clean_failure(dir, "render " + scene + " --camera-path orbit -o in_%02d.png", 1, "needs --frames");
    expect_clean_failure(dir, "render " + scene + " --frames 3 --camera-path orbit -o in.png", 1,
                         "exactly one frame number");
    expect_clean_failure(dir, "render " + scene + " --frames 3 --camera-path orbit -o in_%s.png", 1, "only %d or %0Nd");
    expect_clean_failure(dir, "render " + scene + " --frames 200000 --camera-path orbit -o in_%d.png", 1,
                         "between 1 and 100000");
    expect_clean_failure(dir, "render " + scene + " --frames 2 --camera-path orbit:x -o in_%d.png", 1, "orbit:DEGREES");
    expect_clean_failure(dir, "render " + scene + " --frames 2 --camera-path in_missing.json -o in_%d.png", 1,
                         "cannot open");
    std::ofstream(dir.file("in_keys.json")) << R"({"keys": [{"time": 0, "eye": [0, 0, 1]}]})";
    expect_clean_failure(dir, "render " + scene + " --frames 2 --camera-path in_keys.json -o in_%d.png", 1,
                         "in_keys.json: keys[0]: needs 'look_at'");
}
