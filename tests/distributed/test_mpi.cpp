// `mpirun -n K pkrt render` on the CPU backend, end to end: the image of a single-process render with the
// same flags, its statistics summed over the ranks, and failures as one line from one rank. Built only
// where CMake found MPI and its launcher (PKRT_MPIEXEC); tests/distributed/mpi_killed_rank.sh kills a rank.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "render/image/aov.h"
#include "render/image/image.h"
#include "tests/cli/test_cli_util.h"

using namespace pkrt_test;
namespace fs = std::filesystem;

namespace {

const std::string kCornell = std::string(PKRT_SCENES_DIR) + "/cornell.json";

// CI runs as root; a 2-core machine runs 3 ranks. Killed after two minutes: a hang fails the test.
std::string mpirun(int ranks, const std::string& launcher_flags = "") {
    return "timeout -s KILL 120 " + shell_quote(PKRT_MPIEXEC) + " --allow-run-as-root --oversubscribe " +
           launcher_flags + " -n " + std::to_string(ranks) + " " + shell_quote(PKRT_BINARY);
}

nlohmann::json stats(const TempDir& dir, const std::string& name) {
    return nlohmann::json::parse(read_text(dir.file(name)));
}

// Renders `flags` once in one process (a.*) and once across `ranks` ranks (b.*), then compares them.
void expect_single_process_image(int ranks, const std::string& flags, int pixels, int spp) {
    TempDir dir;
    RunResult one = run_pkrt("render " + flags + " -o a.png --hdr a.exr --stats a.json", dir.path().string());
    ASSERT_EQ(one.code, 0) << one.err;
    RunResult many =
        run_in(mpirun(ranks) + " render " + flags + " -o b.png --hdr b.exr --stats b.json", dir.path().string());
    ASSERT_EQ(many.code, 0) << many.err;

    pkrt::Image a = pkrt::read_exr(dir.file("a.exr")), b = pkrt::read_exr(dir.file("b.exr"));
    ASSERT_EQ(a.pixels.size(), static_cast<size_t>(pixels));
    ASSERT_EQ(b.pixels.size(), a.pixels.size());
    // Float rounding alone: a pixel's samples are added in another order (within a rank, then across).
    double worst = 0, total = 0;
    for (size_t i = 0; i < a.pixels.size(); ++i)
        for (int c = 0; c < 3; ++c) {
            double x = a.pixels[i][c], y = b.pixels[i][c];
            ASSERT_TRUE(std::isfinite(y));
            worst = std::max(worst, std::fabs(x - y) / std::max(1e-3, std::fabs(x)));
            total += x;
        }
    EXPECT_LT(worst, 1e-5);
    EXPECT_GT(total, 0.0);

    auto sa = stats(dir, "a.json"), sb = stats(dir, "b.json");
    // Every pixel got exactly spp samples (pkrt checks each pixel's count after the reduction and fails
    // otherwise); the same paths were traced, each once: the same counts of every kind of ray.
    EXPECT_EQ(sb["samples"].get<uint64_t>(), static_cast<uint64_t>(pixels) * spp);
    EXPECT_EQ(sb["samples"], sa["samples"]);
    EXPECT_EQ(sb["rays"], sa["rays"]);
    EXPECT_FALSE(sa.contains("mpi")) << "a plain render knows nothing of ranks";
    const auto& mpi = sb["mpi"];
    ASSERT_EQ(mpi["ranks"].get<int>(), ranks);
    ASSERT_EQ(mpi["per_rank"].size(), static_cast<size_t>(ranks));
    uint64_t samples = 0, chunks = 0;
    const uint64_t chunk = mpi["chunk_spp"].get<uint64_t>();
    for (int r = 0; r < ranks; ++r) {
        const auto& share = mpi["per_rank"][r];
        EXPECT_EQ(share["rank"].get<int>(), r);
        EXPECT_EQ(share["samples"].get<uint64_t>() % pixels, 0u) << "whole samples of every pixel";
        EXPECT_EQ(share["device"].get<std::string>().rfind("cpu: ", 0), 0u) << share;
        samples += share["samples"].get<uint64_t>();
        chunks += share["chunks"].get<uint64_t>();
    }
    EXPECT_EQ(samples, static_cast<uint64_t>(pixels) * spp);
    EXPECT_EQ(chunks, (spp + chunk - 1) / chunk);
    EXPECT_NE(many.err.find("MPI ranks, chunks of"), std::string::npos)
        << "the summary says how the ranks shared the work: " << many.err;
}

// An error under mpirun: exit status `code`, one line from one rank (mpirun -q adds none of its own),
// and no output file.
void expect_one_error_line(const TempDir& dir, const std::string& command, int code, const std::string& needle) {
    SCOPED_TRACE(command);
    RunResult r = run_in(command, dir.path().string());
    EXPECT_EQ(r.code, code) << r.err;
    EXPECT_EQ(count_lines(r.err), 1) << r.err;
    EXPECT_EQ(r.err.rfind("pkrt: error: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
    for (const auto& e : dir.entries()) EXPECT_EQ(e.rfind("in", 0), 0u) << "left a file behind: " << e;
}

}  // namespace

TEST(Mpi, TwoRanksRenderTheImageOfOneProcess) {
    expect_single_process_image(2, shell_quote(kCornell) + " --backend cpu --spp 8 --res 64x64 --seed 3", 64 * 64, 8);
}

TEST(Mpi, ThreeRanksWithSamplesNotDivisibleByThem) {
    expect_single_process_image(3, shell_quote(kCornell) + " --backend cpu --spp 7 --res 48x40 --seed 5 --max-depth 5",
                                48 * 40, 7);
}

// One rank is a plain render: bit for bit the same files, no MPI statistics.
TEST(Mpi, OneRankIsAPlainRender) {
    TempDir dir;
    std::string flags = "render " + shell_quote(kCornell) + " --backend cpu --spp 3 --res 32x24 --seed 9 -q";
    ASSERT_EQ(run_pkrt(flags + " -o a.png --hdr a.pfm", dir.path().string()).code, 0);
    RunResult r = run_in(mpirun(1) + " " + flags + " -o b.png --hdr b.pfm --stats b.json", dir.path().string());
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(read_text(dir.file("a.pfm")), read_text(dir.file("b.pfm")));
    EXPECT_FALSE(stats(dir, "b.json").contains("mpi"));
}

// Feature buffers and the denoiser across ranks: the features are summed with the radiance, so the
// layers, the denoised image and its Noisy Image are a single process's to float rounding.
TEST(Mpi, FeaturesAndTheDenoisedImageAreThoseOfOneProcess) {
    TempDir dir;
    const std::string flags =
        "render " + shell_quote(kCornell) + " --backend cpu --spp 6 --res 48x40 --seed 4 -q --denoise";
    ASSERT_EQ(run_pkrt(flags + " -o a.exr", dir.path().string()).code, 0);
    RunResult r = run_in(mpirun(2) + " " + flags + " -o b.exr", dir.path().string());
    ASSERT_EQ(r.code, 0) << r.err;
    const std::vector<pkrt::Aov> all = {pkrt::Aov::kAlbedo, pkrt::Aov::kNormal, pkrt::Aov::kDepth};
    pkrt::FeatureImages fa = pkrt::read_aov_layers(dir.file("a.exr"), 48, 40, all),
                        fb = pkrt::read_aov_layers(dir.file("b.exr"), 48, 40, all);
    pkrt::Image da = pkrt::read_exr(dir.file("a.exr")), db = pkrt::read_exr(dir.file("b.exr"));
    for (size_t i = 0; i < da.pixels.size(); ++i)
        for (int c = 0; c < 3; ++c) {
            EXPECT_NEAR(fa.albedo.pixels[i][c], fb.albedo.pixels[i][c], 1e-5f) << i;
            EXPECT_NEAR(fa.normal.pixels[i][c], fb.normal.pixels[i][c], 1e-5f) << i;
            EXPECT_NEAR(fa.depth.pixels[i][c], fb.depth.pixels[i][c], 1e-5f * fa.depth.pixels[i][c]) << i;
            EXPECT_NEAR(da.pixels[i][c], db.pixels[i][c], 1e-3f * (1.0f + da.pixels[i][c])) << i;
        }
}

// Chunks go to whichever rank asks: on a render of 8 chunks that takes a good part of a second, both
// ranks get some. Which ones, and how many, is up to the machine.
TEST(Mpi, EveryRankTakesChunks) {
    TempDir dir;
    RunResult r = run_in(mpirun(2) + " render " + shell_quote(kCornell) +
                             " --backend cpu --spp 64 --res 64x64 -q -o b.png --stats b.json",
                         dir.path().string());
    ASSERT_EQ(r.code, 0) << r.err;
    auto mpi = stats(dir, "b.json")["mpi"];
    EXPECT_EQ(mpi["chunk_spp"].get<int>(), 8);
    for (const auto& share : mpi["per_rank"]) {
        EXPECT_GE(share["chunks"].get<int>(), 1) << mpi;
        EXPECT_GT(share["busy_seconds"].get<double>(), 0.0) << mpi;
    }
}

// mpirun spends a second or so on ending a failed job: the error cases are split over tests that can
// run side by side.
TEST(Mpi, BadFlagsAreOneLineFromOneRank) {
    TempDir dir;
    const std::string pkrt = mpirun(2, "-q");
    const std::string scene = shell_quote(kCornell) + " --backend cpu --res 8x8";
    expect_one_error_line(dir, pkrt + " render " + scene + " --spp 0 -o out.png", 1, "--spp 0: must be between");
    expect_one_error_line(dir, pkrt + " render " + scene + " --bogus -o out.png", 2, "--bogus");
    expect_one_error_line(dir, pkrt + " frobnicate", 2, "unknown command 'frobnicate'");
    // Without -q mpirun adds its own notes, but pkrt's line is still one.
    RunResult r = run_in(mpirun(2) + " render " + scene + " --spp 0 -o out.png", dir.path().string());
    EXPECT_NE(r.code, 0);
    size_t lines = 0;
    for (size_t at = r.err.find("pkrt: error: "); at != std::string::npos; at = r.err.find("pkrt: error: ", at + 1))
        ++lines;
    EXPECT_EQ(lines, 1u) << r.err;
}

TEST(Mpi, BadFilesAreOneLineFromOneRank) {
    TempDir dir;
    const std::string pkrt = mpirun(2, "-q");
    expect_one_error_line(dir, pkrt + " render in_missing.json -o out.png", 1, "in_missing.json: no such file");
    // Rank 0 alone checks the outputs; the others load the scene and learn of it before they render.
    expect_one_error_line(dir, pkrt + " render " + shell_quote(kCornell) + " --backend cpu --res 8x8 -o nodir/out.png",
                          1, "does not exist");
}

TEST(Mpi, WhatDoesNotSplitAcrossRanksIsRefused) {
    TempDir dir;
    const std::string pkrt = mpirun(2, "-q");
    const std::string scene = shell_quote(kCornell) + " --backend cpu --res 8x8";
    expect_one_error_line(dir, pkrt + " render " + scene + " --target-error 0.1 -o out.png", 1,
                          "--target-error: not supported across MPI ranks (2 ranks)");
    expect_one_error_line(dir, pkrt + " render " + scene + " --frames 2 --camera-path orbit -o out_%d.png", 1,
                          "--frames: not supported across MPI ranks (2 ranks)");
    expect_one_error_line(dir, pkrt + " bench " + scene, 1, "bench: not supported across MPI ranks (2 ranks)");
}

// mpirun's MPMD form gives each rank its own arguments: a failure on rank 1 alone is reported by rank 1,
// once, and ranks that would render different images are refused before rendering.
TEST(Mpi, FailuresOfOneRankEndTheJob) {
    TempDir dir;
    const std::string pkrt = shell_quote(PKRT_BINARY);
    const std::string launcher =
        "timeout -s KILL 120 " + shell_quote(PKRT_MPIEXEC) + " --allow-run-as-root --oversubscribe -q ";
    const std::string scene = shell_quote(kCornell) + " --backend cpu --res 8x8 -q -o out.png";
    expect_one_error_line(
        dir, launcher + "-n 1 " + pkrt + " render " + scene + " : -n 1 " + pkrt + " render in_nothere.json -o out.png",
        1, "pkrt: error: rank 1: in_nothere.json: no such file");
    expect_one_error_line(
        dir,
        launcher + "-n 1 " + pkrt + " render " + scene + " --spp 8 : -n 1 " + pkrt + " render " + scene + " --spp 4", 1,
        "the ranks would not render the same image: they differ in spp (8 on rank 0, 4 to 8 over all)");
    expect_one_error_line(
        dir, launcher + "-n 1 " + pkrt + " render " + scene + " : -n 1 " + pkrt + " render " + scene + " --seed 2", 1,
        "they differ in seed (0 on rank 0, 0 to 2 over all)");
}
