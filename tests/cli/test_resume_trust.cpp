// What --resume takes from a file (issue 50, class 4): only what pkrt could have written. A NaN or
// infinite pixel in any layer it goes on from, and a sample count that is not exactly a whole number
// from 1 to 2^32-1, are errors naming the file; before, a NaN Noisy Image resumed into an all-NaN
// image with exit 0 and "-5" or "+1" resumed as some count.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <vector>

#include "render/image/aov.h"
#include "render/image/image.h"
#include "tests/cli/test_cli_util.h"

using namespace pkrt_test;

namespace {

const std::string kRender =
    "render " + shell_quote(std::string(PKRT_SCENES_DIR) + "/cornell.json") + " --backend cpu --res 12x10 -q --seed 3";

// A denoised 4-spp render's EXR (Noisy Image and every feature layer) in `dir` as "in_part.exr", and
// its parts, for forging.
struct Part {
    pkrt::Image image, noisy;
    pkrt::FeatureImages features;
    pkrt::ExrAttributes attributes;
};

Part render_part(const TempDir& dir) {
    RunResult r = run_pkrt(kRender + " --spp 4 --denoise -o in_part.exr", dir.path().string());
    EXPECT_EQ(r.code, 0) << r.err;
    Part p;
    std::string path = dir.file("in_part.exr");
    p.image = pkrt::read_exr(path);
    p.noisy = pkrt::read_noisy_layer(path, 12, 10);
    p.features = pkrt::read_aov_layers(path, 12, 10, pkrt::kAllAovs);
    p.attributes = pkrt::read_exr_attributes(path);
    return p;
}

void write_part(const TempDir& dir, const std::string& name, const Part& p) {
    dir.write(name, pkrt::encode_exr_with_aovs(p.image, p.attributes, p.features, pkrt::kAllAovs, &p.noisy));
}

}  // namespace

TEST(ResumeTrust, EveryLayerTakenMustBeFinite) {
    TempDir dir;
    const Part part = render_part(dir);
    ASSERT_FALSE(part.attributes.empty());
    // The forging itself changes nothing: the rewritten file resumes.
    write_part(dir, "in_same.exr", part);
    RunResult ok = run_pkrt(kRender + " --spp 8 --denoise --resume in_same.exr -o b.exr", dir.path().string());
    ASSERT_EQ(ok.code, 0) << ok.err;
    std::filesystem::remove(dir.file("b.exr"));

    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    Part noisy_nan = part;
    for (auto& px : noisy_nan.noisy.pixels) px = pkrt::Vec3{nan, nan, nan};
    write_part(dir, "in_nan.exr", noisy_nan);
    expect_clean_failure(dir, kRender + " --spp 8 --denoise --resume in_nan.exr -o out.exr", 1,
                         "--resume in_nan.exr: its Noisy Image has 120 pixels that are NaN");
    Part negative = part;
    negative.noisy.pixels[5].y = -1.0f;
    write_part(dir, "in_neg.exr", negative);
    expect_clean_failure(dir, kRender + " --spp 8 --denoise --resume in_neg.exr -o out.exr", 1,
                         "its Noisy Image has 1 pixels that are NaN, infinite or negative (the first at 5,0)");
    Part albedo_inf = part;
    albedo_inf.features.albedo.pixels[13].x = inf;
    write_part(dir, "in_inf.exr", albedo_inf);
    expect_clean_failure(
        dir, kRender + " --spp 8 --aov albedo -o out.exr --resume in_inf.exr", 1,
        "--resume in_inf.exr: its albedo layer has 1 pixels that are NaN or infinite (the first at 1,1)");
    Part depth_nan = part;
    depth_nan.features.depth.pixels[0].x = nan;
    write_part(dir, "in_depth.exr", depth_nan);
    expect_clean_failure(dir, kRender + " --spp 8 --denoise --resume in_depth.exr -o out.exr", 1,
                         "its depth layer has 1 pixels");
}

TEST(ResumeTrust, TheSampleCountIsReadInFull) {
    TempDir dir;
    const Part part = render_part(dir);
    for (const std::string& spp :
         {std::string(" 4"), std::string("4 "), std::string("+4"), std::string("4x"), std::string("0x4"),
          std::string("-5"), std::string("-18446744073709551615"), std::string("0"), std::string("04.0"),
          std::string("4294967296"), std::string(""), std::string(100000, '7')}) {
        Part forged = part;
        for (auto& [name, value] : forged.attributes)
            if (name == "pkrt:spp") value = spp;
        write_part(dir, "in_spp.exr", forged);
        SCOPED_TRACE("pkrt:spp '" + spp.substr(0, 40) + "'");
        RunResult r = run_pkrt(kRender + " --spp 8 --denoise --resume in_spp.exr -o out.exr", dir.path().string());
        EXPECT_EQ(r.code, 1) << r.err;
        EXPECT_EQ(count_lines(r.err), 1) << r.err.substr(0, 300);
        EXPECT_NE(r.err.find("--resume in_spp.exr: records '"), std::string::npos) << r.err.substr(0, 300);
        EXPECT_LT(r.err.size(), 400u) << "the value is quoted, not copied whole";
        EXPECT_FALSE(fs::exists(dir.file("out.exr")));
    }
}

// A forged attribute's value is quoted in part in the message (class 7), not copied whole.
TEST(ResumeTrust, AForgedAttributeIsQuotedInPart) {
    TempDir dir;
    Part forged = render_part(dir);
    for (auto& [name, value] : forged.attributes)
        if (name == "pkrt:size") value = std::string(1 << 20, '9');
    write_part(dir, "in_size.exr", forged);
    RunResult r = run_pkrt(kRender + " --spp 8 --denoise --resume in_size.exr -o out.exr", dir.path().string());
    EXPECT_EQ(r.code, 1) << r.err.substr(0, 300);
    EXPECT_NE(r.err.find("--resume in_size.exr: was rendered with size 9999"), std::string::npos)
        << r.err.substr(0, 300);
    EXPECT_NE(r.err.find("..., not 12x10"), std::string::npos) << r.err.substr(0, 300);
    EXPECT_LT(r.err.size(), 400u);
}

// An attribute whose size field claims more than the file holds (a fuzzer's find: a 856-byte file whose
// string attribute claimed 1.9 GB, which OpenEXR allocated before its error) is refused from the header's
// bytes, by every reader --resume uses, before OpenEXR sees the file.
TEST(ResumeTrust, AnAttributeLargerThanTheFileIsRefusedUnread) {
    TempDir dir;
    render_part(dir);
    std::ifstream in(dir.file("in_part.exr"), std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string key = std::string("pkrt:size") + '\0' + "string" + '\0';
    size_t at = bytes.find(key);
    ASSERT_NE(at, std::string::npos);
    at += key.size();
    bytes[at] = bytes[at + 1] = bytes[at + 2] = '\xff';
    bytes[at + 3] = '\x70';  // 0x70ffffff bytes
    dir.write("in_huge.exr", bytes);
    const std::string path = dir.file("in_huge.exr");
    for (auto read : std::vector<std::function<void()>>{
             [&] { pkrt::read_exr_attributes(path); }, [&] { pkrt::read_noisy_layer(path, 12, 10); },
             [&] { pkrt::read_aov_layers(path, 12, 10, pkrt::kAllAovs); }, [&] { pkrt::read_exr(path); }}) {
        try {
            read();
            ADD_FAILURE() << "read";
        } catch (const pkrt::Error& e) {
            EXPECT_NE(std::string(e.what()).find("attribute 'pkrt:size' claims 1895825407 bytes"), std::string::npos)
                << e.what();
        }
    }
    RunResult r = run_pkrt(kRender + " --spp 8 --resume in_huge.exr -o out.exr", dir.path().string());
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_NE(r.err.find("claims 1895825407 bytes"), std::string::npos) << r.err;
}
