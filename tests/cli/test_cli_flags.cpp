// The conventional flags end to end: -o by its extension (the encoding told by magic bytes), -j/--threads
// honoured, -q / -v / --log-level filtering what pkrt says.
#include <gtest/gtest.h>
#include <stb_image.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "render/image/aov.h"
#include "render/image/image.h"
#include "tests/cli/test_cli_util.h"

using namespace pkrt_test;

namespace {

const std::string kCornell = std::string(PKRT_SCENES_DIR) + "/cornell.json";
const std::string kBase = "render " + shell_quote(kCornell) + " --backend cpu --seed 3";
const std::string kSmall = kBase + " --res 16x12 --spp 2";

std::string head(const std::string& path, size_t n) { return read_text(path).substr(0, n); }

}  // namespace

TEST(CliFlags, OutputEncodingFollowsTheExtension) {
    TempDir dir;
    const std::string cwd = dir.path().string();
    for (const char* name : {"a.png", "a.exr", "a.pfm", "a.hdr", "A.EXR"})
        ASSERT_EQ(run_pkrt(kSmall + " -q -o " + name, cwd).code, 0) << name;
    EXPECT_EQ(head(dir.file("a.png"), 8), std::string("\x89PNG\r\n\x1a\n", 8));
    EXPECT_EQ(head(dir.file("a.exr"), 4), std::string("\x76\x2f\x31\x01", 4));
    EXPECT_EQ(head(dir.file("A.EXR"), 4), std::string("\x76\x2f\x31\x01", 4));
    EXPECT_EQ(head(dir.file("a.pfm"), 3), "PF\n");
    EXPECT_EQ(head(dir.file("a.hdr"), 10), "#?RADIANCE");
    // -o given: no default pkrt.png beside the outputs.
    EXPECT_FALSE(std::filesystem::exists(dir.file("pkrt.png")));

    // The linear outputs hold the same radiance: EXR and PFM exactly, RGBE to its 8-bit mantissa.
    pkrt::Image exr = pkrt::read_exr(dir.file("a.exr")), pfm = pkrt::read_pfm(dir.file("a.pfm"));
    int w = 0, h = 0, c = 0;
    float* rgbe = stbi_loadf(dir.file("a.hdr").c_str(), &w, &h, &c, 3);
    ASSERT_NE(rgbe, nullptr);
    ASSERT_EQ(w, 16);
    ASSERT_EQ(h, 12);
    ASSERT_EQ(exr.pixels.size(), pfm.pixels.size());
    double lit = 0;
    for (size_t i = 0; i < exr.pixels.size(); ++i)
        for (int k = 0; k < 3; ++k) {
            float e = exr.pixels[i][k];
            EXPECT_EQ(e, pfm.pixels[i][k]);
            float max = std::max({exr.pixels[i].x, exr.pixels[i].y, exr.pixels[i].z});
            EXPECT_NEAR(rgbe[3 * i + k], e, max / 128.0f + 1e-30f) << "pixel " << i;
            lit += e;
        }
    stbi_image_free(rgbe);
    EXPECT_GT(lit, 0.0);

    // The exposure is the PNG's: a linear -o is radiance, whatever --exposure says.
    ASSERT_EQ(run_pkrt(kSmall + " -q --exposure 3 -o b.exr", cwd).code, 0);
    EXPECT_EQ(read_text(dir.file("b.exr")), read_text(dir.file("a.exr")));
}

TEST(CliFlags, UnknownOutputTypesAndHdrAsPngAreRefused) {
    TempDir dir;
    expect_clean_failure(dir, kSmall + " -o in.jpg", 1,
                         "-o in.jpg: unsupported file type '.jpg' (use .png, .exr, .pfm, .hdr)");
    expect_clean_failure(dir, kSmall + " -o in.png --hdr in2.png", 1,
                         "--hdr in2.png: unsupported file type '.png' (use .exr, .pfm, .hdr)");
}

TEST(CliFlags, SequenceFramesTakeTheirEncodingFromThePattern) {
    TempDir dir;
    RunResult r = run_pkrt(kSmall + " -q --frames 2 --camera-path orbit:10 -o f%d.exr", dir.path().string());
    ASSERT_EQ(r.code, 0) << r.err;
    for (const char* f : {"f0.exr", "f1.exr"}) EXPECT_EQ(head(dir.file(f), 4), std::string("\x76\x2f\x31\x01", 4)) << f;
    EXPECT_FALSE(std::filesystem::exists(dir.file("pkrt.png")));
}

TEST(CliFlags, ThreadCountIsHonoured) {
    TempDir dir;
    for (int n : {1, 3}) {
        RunResult r = run_pkrt(kSmall + " -q -o a.png --stats s.json -j " + std::to_string(n), dir.path().string());
        ASSERT_EQ(r.code, 0) << r.err;
        auto stats = nlohmann::json::parse(read_text(dir.file("s.json")));
        EXPECT_EQ(stats["device"].get<std::string>(), std::to_string(n) + (n == 1 ? " CPU thread" : " CPU threads"));
    }
    // The image does not depend on the threads that rendered it.
    ASSERT_EQ(run_pkrt(kSmall + " -q -o one.exr --threads 1", dir.path().string()).code, 0);
    ASSERT_EQ(run_pkrt(kSmall + " -q -o two.exr --threads 2", dir.path().string()).code, 0);
    EXPECT_EQ(read_text(dir.file("one.exr")), read_text(dir.file("two.exr")));
    TempDir clean;
    expect_clean_failure(clean, kSmall + " -o in.png -j 0", 2, "--threads");
    expect_clean_failure(clean, kSmall + " -o in.png -j many", 2, "--threads");
}

TEST(CliFlags, LogLevelsFilterWhatIsSaid) {
    TempDir dir;
    // A PLY with vertex colours warns that they are ignored.
    dir.write("inwarns.ply",
              "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
              "property uchar red\nproperty uchar green\nproperty uchar blue\nelement face 1\n"
              "property list uchar int vertex_indices\nend_header\n0 0 0 1 2 3\n1 0 0 4 5 6\n0 1 0 7 8 9\n3 0 1 2\n");
    const std::string render = "render inwarns.ply --backend cpu --res 8x8 --spp 1 -o a.png ";
    const std::string cwd = dir.path().string();
    const std::string warning = "pkrt: warning: inwarns.ply:", wrote = "pkrt: wrote a.png", debug = "pkrt: debug: ";

    RunResult info = run_pkrt(render, cwd);
    ASSERT_EQ(info.code, 0) << info.err;
    EXPECT_NE(info.err.find(warning), std::string::npos) << info.err;
    EXPECT_NE(info.err.find(wrote), std::string::npos) << info.err;
    EXPECT_EQ(info.err.find(debug), std::string::npos) << info.err;

    for (const char* flags : {"-v", "--verbose", "--log-level debug", "--log-level DEBUG"}) {
        RunResult r = run_pkrt(render + flags, cwd);
        ASSERT_EQ(r.code, 0) << r.err;
        EXPECT_NE(r.err.find("pkrt: debug: settings: 8x8, 1 spp"), std::string::npos) << flags << ": " << r.err;
        EXPECT_NE(r.err.find(wrote), std::string::npos) << flags;
    }
    for (const char* flags : {"-q", "--quiet", "--log-level warning"}) {
        RunResult r = run_pkrt(render + flags, cwd);
        ASSERT_EQ(r.code, 0) << r.err;
        EXPECT_EQ(count_lines(r.err), 1) << flags << ": " << r.err;  // the warning alone
        EXPECT_NE(r.err.find(warning), std::string::npos) << flags << ": " << r.err;
    }
    RunResult quiet = run_pkrt(render + "--log-level error", cwd);
    ASSERT_EQ(quiet.code, 0) << quiet.err;
    EXPECT_EQ(quiet.err, "");
    // Errors print at every level.
    RunResult failed = run_pkrt("render missing.obj --log-level error", cwd);
    EXPECT_EQ(failed.code, 1);
    EXPECT_NE(failed.err.find("pkrt: error: "), std::string::npos) << failed.err;

    std::filesystem::remove(dir.file("a.png"));
    expect_clean_failure(dir, render + "--log-level loud", 1,
                         "--log-level loud: unknown level (use error, warning, info or debug)");
    expect_clean_failure(dir, render + "-q -v", 2, "--quiet excludes --verbose");
}

TEST(CliFlags, BenchTakesTheSameRunFlags) {
    TempDir dir;
    RunResult r = run_pkrt("bench " + shell_quote(kCornell) +
                               " --backend cpu --res 8x8 --repeat 1 --warmup 0 -j 1 --log-level error --json b.json",
                           dir.path().string());
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.err, "");
    auto j = nlohmann::json::parse(read_text(dir.file("b.json")));
    EXPECT_NE(j.dump().find("1 CPU thread"), std::string::npos);
}

TEST(CliLongRender, TimeLimitStopsEveryRenderAndSaysWhatEachPixelGot) {
    TempDir dir;
    RunResult r = run_pkrt(kBase + " --res 32x32 --spp 1000000 -j 1 --time-limit 0.5 -o a.exr --stats s.json",
                           dir.path().string());
    ASSERT_EQ(r.code, 0) << r.err;
    auto stats = nlohmann::json::parse(read_text(dir.file("s.json")));
    const int spp = stats["spp"].get<int>();
    EXPECT_GE(spp, 1);
    EXPECT_LT(spp, 1000000);
    EXPECT_TRUE(stats["time_limit_hit"].get<bool>());
    EXPECT_EQ(stats["spp_requested"].get<int>(), 1000000);
    EXPECT_EQ(stats["samples"].get<uint64_t>(), 32u * 32u * static_cast<uint64_t>(spp));  // every pixel alike
    EXPECT_LT(stats["seconds"].get<double>(), 30.0);
    EXPECT_NE(r.err.find("stopped by --time-limit: every pixel got " + std::to_string(spp) + " of the 1000000 spp"),
              std::string::npos)
        << r.err;
    // The progress line ends where the render stopped, not at 100%.
    EXPECT_EQ(r.err.find("rendering 100%"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("took"), std::string::npos) << r.err;
    pkrt::Image image = pkrt::read_exr(dir.file("a.exr"));
    double lit = 0;
    for (const auto& p : image.pixels) lit += p.x + p.y + p.z;
    EXPECT_GT(lit, 0.0);
}

TEST(CliLongRender, Sigusr1WritesACheckpointAndCtrlCKeepsIt) {
    TempDir dir;
    // SIGUSR1 once the render runs: a checkpoint appears while pkrt goes on; SIGINT then ends it (130)
    // and the checkpoint stays whole, with no temporary file beside it.
    dir.write("run.sh",
              shell_quote(PKRT_BINARY) + " render " + shell_quote(kCornell) +
                  " --backend cpu -j 1 --res 48x48 --spp 1000000 --time-limit 60 -o a.exr --hdr a.pfm 2>err &\n"
                  "pid=$!\nsleep 1\nkill -USR1 $pid\n"
                  "for i in $(seq 300); do [ -f a.exr ] && [ -f a.pfm ] && break; sleep 0.1; done\n"
                  "sleep 0.3\nkill -0 $pid && echo running\nkill -INT $pid\nwait $pid\necho exit $?\n");
    RunResult r = run_in("bash run.sh", dir.path().string());
    EXPECT_NE(r.out.find("running"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("exit 130"), std::string::npos) << r.out;
    std::string err = read_text(dir.file("err"));
    EXPECT_NE(err.find("pkrt: checkpoint: wrote a.exr, a.pfm at "), std::string::npos) << err;
    pkrt::Image exr = pkrt::read_exr(dir.file("a.exr")), pfm = pkrt::read_pfm(dir.file("a.pfm"));
    ASSERT_EQ(exr.width, 48);
    ASSERT_EQ(exr.pixels.size(), pfm.pixels.size());
    for (size_t i = 0; i < exr.pixels.size(); ++i) ASSERT_EQ(exr.pixels[i].x, pfm.pixels[i].x) << i;
    for (const auto& e : dir.entries()) EXPECT_TRUE(e == "a.exr" || e == "a.pfm" || e == "err" || e == "run.sh") << e;
}

TEST(CliLongRender, CheckpointsEverySoManySeconds) {
    TempDir dir;
    RunResult r = run_pkrt(kBase + " --res 48x48 --spp 1000000 -j 1 --time-limit 2 --checkpoint 0.4 -o a.png",
                           dir.path().string());
    ASSERT_EQ(r.code, 0) << r.err;
    size_t checkpoints = 0;
    for (size_t at = r.err.find("pkrt: checkpoint: wrote a.png at "); at != std::string::npos;
         at = r.err.find("pkrt: checkpoint: wrote a.png at ", at + 1))
        ++checkpoints;
    EXPECT_GE(checkpoints, 2u) << r.err;
    EXPECT_LE(checkpoints, 6u) << r.err;
}

TEST(CliLongRender, BadLongRenderFlagsFailCleanly) {
    TempDir dir;
    expect_clean_failure(dir, kSmall + " -o in.png --checkpoint -1", 1, "--checkpoint: must be a number of seconds");
    expect_clean_failure(dir, kSmall + " -o in.png --time-limit nan", 1, "--time-limit: must be a number of seconds");
    expect_clean_failure(dir, kSmall + " -o in%d.png --frames 2 --camera-path orbit --checkpoint 5", 1,
                         "--checkpoint: not with --frames");
    expect_clean_failure(dir, kSmall + " -o in%d.png --frames 2 --camera-path orbit --time-limit 5", 1,
                         "--time-limit: not with --frames");
    expect_clean_failure(
        dir, "render " + shell_quote(kCornell) + " --backend cpu --res 8x8 --target-error 0.1 -o in.png --checkpoint 5",
        1, "--checkpoint: not with --target-error");
}

TEST(CliLongRender, ResumeContinuesToTheImageOfAnUninterruptedRender) {
    TempDir dir;
    const std::string cwd = dir.path().string(), render = kBase + " --res 24x20 -q";
    ASSERT_EQ(run_pkrt(render + " --spp 48 -o full.exr", cwd).code, 0);
    // Stopped after 16 spp, then continued into its own file: the same 48 samples of every pixel.
    ASSERT_EQ(run_pkrt(render + " --spp 16 -o part.exr", cwd).code, 0);
    RunResult r = run_pkrt(render + " --spp 48 --resume part.exr -o part.exr --stats s.json", cwd);
    ASSERT_EQ(r.code, 0) << r.err;
    auto stats = nlohmann::json::parse(read_text(dir.file("s.json")));
    EXPECT_EQ(stats["spp"].get<int>(), 48);
    EXPECT_EQ(stats["samples"].get<uint64_t>(), 24u * 20u * 32u);  // only the samples after the first 16
    pkrt::Image full = pkrt::read_exr(dir.file("full.exr")), resumed = pkrt::read_exr(dir.file("part.exr"));
    ASSERT_EQ(full.pixels.size(), resumed.pixels.size());
    double worst = 0, lit = 0;
    for (size_t i = 0; i < full.pixels.size(); ++i)
        for (int c = 0; c < 3; ++c) {
            double f = full.pixels[i][c], g = resumed.pixels[i][c];
            worst = std::max(worst, std::fabs(f - g) / (std::fabs(f) + 1e-6));
            lit += f;
        }
    EXPECT_GT(lit, 0.0);
    EXPECT_LT(worst, 1e-5);  // float rounding of mean x samples; a wrong sample would be far off
    // A resume of a resumed file goes on from its 48.
    ASSERT_EQ(run_pkrt(render + " --spp 64 --resume part.exr -o more.exr", cwd).code, 0);

    TempDir clean;
    const std::string bad = kBase + " --res 24x20 --spp 48 -o out.png --resume ";
    std::filesystem::copy_file(dir.file("part.exr"), clean.file("in48.exr"));
    expect_clean_failure(clean, bad + "in48.exr", 1,
                         "--resume in48.exr: holds 48 spp already (ask for more with --spp)");
    expect_clean_failure(clean, kBase + " --res 24x20 --spp 64 --max-depth 3 -o out.png --resume in48.exr", 1,
                         "--resume in48.exr: was rendered with max_depth 8, not 3");
    expect_clean_failure(clean, kBase + " --res 32x20 --spp 64 -o out.png --resume in48.exr", 1, "--resume in48.exr: ");
    pkrt::Image plain;
    plain.width = 24;
    plain.height = 20;
    plain.pixels.assign(24 * 20, pkrt::Vec3{0.5f, 0.5f, 0.5f});
    pkrt::write_exr(clean.file("inplain.exr"), plain);
    expect_clean_failure(clean, kBase + " --res 24x20 --spp 64 -o out.png --resume inplain.exr", 1,
                         "--resume inplain.exr: not an image pkrt rendered");
    expect_clean_failure(clean, bad + "in.png", 1, "--resume in.png: must be a linear OpenEXR file (.exr)");
    expect_clean_failure(clean, kBase + " --res 8x8 --target-error 0.1 -o out.png --resume in48.exr", 1,
                         "--resume: not with --target-error");
}

// The look's flags: a wrong value is one line naming the flag and what it takes, exit 1, no output.
TEST(CliFlags, BadLookFlagsFailWithOneLine) {
    TempDir dir;
    expect_clean_failure(dir, kSmall + " --tone-map filmic -o b.png", 1,
                         "--tone-map: 'filmic' is not a tone curve (clamp, aces or agx)");
    expect_clean_failure(dir, kSmall + " --exposure bright -o b.png", 1,
                         "--exposure: 'bright' is neither 'auto' nor a number of stops between -64 and 64");
    expect_clean_failure(dir, kSmall + " --exposure 65 -o b.png", 1, "--exposure: '65' is neither");
}

TEST(CliFlags, AovLayersGoToTheExrOutputs) {
    TempDir dir;
    const std::string cwd = dir.path().string(), render = kBase + " --res 24x20 -q";
    ASSERT_EQ(run_pkrt(render + " --spp 4 -o plain.png --hdr plain.exr", cwd).code, 0);
    RunResult r = run_pkrt(render + " --spp 4 -o aov.png --hdr aov.exr --aov albedo,depth", cwd);
    ASSERT_EQ(r.code, 0) << r.err;
    // The PNG and the radiance are those of a render without features.
    EXPECT_EQ(read_text(dir.file("plain.png")), read_text(dir.file("aov.png")));
    pkrt::Image plain = pkrt::read_exr(dir.file("plain.exr")), with = pkrt::read_exr(dir.file("aov.exr"));
    for (size_t i = 0; i < plain.pixels.size(); ++i) ASSERT_EQ(plain.pixels[i].y, with.pixels[i].y) << i;
    std::string bytes = read_text(dir.file("aov.exr"));
    EXPECT_NE(bytes.find("Denoising Albedo.G"), std::string::npos);
    EXPECT_NE(bytes.find("Depth.Z"), std::string::npos);
    EXPECT_EQ(bytes.find("Denoising Normal"), std::string::npos);  // not asked for
    pkrt::FeatureImages f = pkrt::read_aov_layers(dir.file("aov.exr"), 24, 20, {pkrt::Aov::kAlbedo, pkrt::Aov::kDepth});
    double depth = 0;
    for (const auto& d : f.depth.pixels) depth += d.x;
    EXPECT_GT(depth / f.depth.pixels.size(), 1.0);  // the Cornell box is metres away from its camera
    // -o .exr carries them too; a PNG never does.
    ASSERT_EQ(run_pkrt(render + " --spp 2 -o only.exr --aov normal", cwd).code, 0);
    EXPECT_NE(read_text(dir.file("only.exr")).find("Denoising Normal.X"), std::string::npos);
}

TEST(CliFlags, BadAovFlagsFailWithOneLine) {
    TempDir dir;
    expect_clean_failure(dir, kSmall + " --aov colour -o b.exr", 1,
                         "--aov colour: 'colour' is not a feature; the features are albedo, normal, depth");
    expect_clean_failure(dir, kSmall + " --aov albedo,albedo -o b.exr", 1, "--aov albedo,albedo: albedo twice");
    expect_clean_failure(dir, kSmall + " --aov albedo -o b.png --hdr b.pfm", 1,
                         "--aov albedo: the features are layers of an EXR: give -o or --hdr a .exr file");
}

// A sequence's EXR frames carry the layers too, each frame its own features; denoised, the render kept.
TEST(CliFlags, SequenceFramesCarryFeaturesAndDenoise) {
    TempDir dir;
    const std::string cwd = dir.path().string();
    RunResult r =
        run_pkrt(kBase + " --res 24x20 --spp 4 -q -o f%d.exr --frames 2 --camera-path orbit:90 --denoise", cwd);
    ASSERT_EQ(r.code, 0) << r.err;
    const std::vector<pkrt::Aov> all = {pkrt::Aov::kAlbedo, pkrt::Aov::kNormal, pkrt::Aov::kDepth};
    pkrt::FeatureImages f0 = pkrt::read_aov_layers(dir.file("f0.exr"), 24, 20, all),
                        f1 = pkrt::read_aov_layers(dir.file("f1.exr"), 24, 20, all);
    double moved = 0;
    for (size_t i = 0; i < f0.normal.pixels.size(); ++i)
        moved += std::fabs(f0.normal.pixels[i].x - f1.normal.pixels[i].x);
    EXPECT_GT(moved, 1.0) << "the second frame's features are of its own camera";
    pkrt::Image noisy = pkrt::read_noisy_layer(dir.file("f1.exr"), 24, 20),
                denoised = pkrt::read_exr(dir.file("f1.exr"));
    double changed = 0;
    for (size_t i = 0; i < noisy.pixels.size(); ++i) changed += std::fabs(noisy.pixels[i].y - denoised.pixels[i].y);
    EXPECT_GT(changed, 0.0);
    // Frame 0 of the orbit is the scene's camera at the base seed: a single render's features.
    ASSERT_EQ(run_pkrt(kBase + " --res 24x20 --spp 4 -q -o one.exr --aov albedo,normal,depth", cwd).code, 0);
    pkrt::FeatureImages one = pkrt::read_aov_layers(dir.file("one.exr"), 24, 20, all);
    for (size_t i = 0; i < one.albedo.pixels.size(); ++i)
        EXPECT_NEAR(one.albedo.pixels[i].y, f0.albedo.pixels[i].y, 1e-6f) << i;
}

TEST(CliLongRender, ResumeCarriesTheFeaturesOn) {
    TempDir dir;
    const std::string cwd = dir.path().string(), render = kBase + " --res 24x20 -q --aov albedo,normal,depth";
    ASSERT_EQ(run_pkrt(render + " --spp 24 -o full.exr", cwd).code, 0);
    ASSERT_EQ(run_pkrt(render + " --spp 8 -o part.exr", cwd).code, 0);
    RunResult r = run_pkrt(render + " --spp 24 --resume part.exr -o part.exr", cwd);
    ASSERT_EQ(r.code, 0) << r.err;
    const std::vector<pkrt::Aov> all = {pkrt::Aov::kAlbedo, pkrt::Aov::kNormal, pkrt::Aov::kDepth};
    pkrt::FeatureImages full = pkrt::read_aov_layers(dir.file("full.exr"), 24, 20, all),
                        resumed = pkrt::read_aov_layers(dir.file("part.exr"), 24, 20, all);
    for (size_t i = 0; i < full.albedo.pixels.size(); ++i)
        for (int c = 0; c < 3; ++c) {
            EXPECT_NEAR(full.albedo.pixels[i][c], resumed.albedo.pixels[i][c], 1e-5f) << i;
            EXPECT_NEAR(full.normal.pixels[i][c], resumed.normal.pixels[i][c], 1e-4f) << i;
            EXPECT_NEAR(full.depth.pixels[i][c], resumed.depth.pixels[i][c], 1e-6f * full.depth.pixels[i][c]) << i;
        }
    // A file rendered without them cannot continue a render that keeps them.
    TempDir clean;
    ASSERT_EQ(run_pkrt(kBase + " --res 24x20 -q --spp 8 -o in8.exr", clean.path().string()).code, 0);
    expect_clean_failure(clean, render + " --spp 24 --resume in8.exr -o out.exr", 1,
                         "--resume in8.exr: has no Denoising Albedo.R channel (rendered without --aov albedo)");
}

TEST(CliFlags, DenoiseKeepsTheRenderBesideTheDenoisedImage) {
    TempDir dir;
    const std::string cwd = dir.path().string(), render = kBase + " --res 24x20";
    ASSERT_EQ(run_pkrt(render + " -q --spp 4 -o plain.exr", cwd).code, 0);
    RunResult r = run_pkrt(render + " --spp 4 -o d.png --hdr d.exr --denoise", cwd);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("denoised on the CPU"), std::string::npos) << r.err;
    std::string bytes = read_text(dir.file("d.exr"));
    for (const char* layer : {"Noisy Image.R", "Denoising Albedo.R", "Denoising Normal.X", "Depth.Z"})
        EXPECT_NE(bytes.find(layer), std::string::npos) << layer;
    pkrt::Image plain = pkrt::read_exr(dir.file("plain.exr")), denoised = pkrt::read_exr(dir.file("d.exr")),
                noisy = pkrt::read_noisy_layer(dir.file("d.exr"), 24, 20);
    double changed = 0;
    for (size_t i = 0; i < plain.pixels.size(); ++i) {
        ASSERT_EQ(plain.pixels[i].y, noisy.pixels[i].y) << i;  // the render itself, as without --denoise
        changed += std::fabs(denoised.pixels[i].y - plain.pixels[i].y);
    }
    EXPECT_GT(changed, 0.0);
    // A denoised render resumes from its noisy layer: 8 spp, then on to 24, is the 24-spp render.
    ASSERT_EQ(run_pkrt(render + " -q --spp 24 --denoise -o full.exr", cwd).code, 0);
    ASSERT_EQ(run_pkrt(render + " -q --spp 8 --denoise -o part.exr", cwd).code, 0);
    ASSERT_EQ(run_pkrt(render + " -q --spp 24 --denoise --resume part.exr -o part.exr", cwd).code, 0);
    pkrt::Image full = pkrt::read_noisy_layer(dir.file("full.exr"), 24, 20),
                resumed = pkrt::read_noisy_layer(dir.file("part.exr"), 24, 20);
    for (size_t i = 0; i < full.pixels.size(); ++i)
        EXPECT_NEAR(full.pixels[i].y, resumed.pixels[i].y, 1e-5f * (1.0f + full.pixels[i].y)) << i;
}
