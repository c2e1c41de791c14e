// Scheduler modes and `--set key=value` settings are parsed in one place each; every bad value is an
// error that names the flag, the key and what it accepts.
#include <gtest/gtest.h>

#include <functional>

#include "render/backend.h"
#include "render/error.h"
#include "render/mode.h"
#include "render/scheduler_options.h"
#include "tests/test_util.h"

using namespace pkrt;
using namespace pkrt_test;

namespace {}  // namespace

TEST(Modes, NamesRoundTrip) {
    for (SchedulerMode m : all_modes()) EXPECT_EQ(parse_mode(mode_name(m)), m);
    EXPECT_EQ(all_modes().size(), 5u);
    EXPECT_EQ(mode_list(), "persistent, relaunch, graph, megakernel or resident");
}

TEST(Modes, UnknownModeNamesTheFlag) {
    EXPECT_EQ(
        error_of([] { parse_mode("Persistent", "--modes"); }),
        "--modes Persistent: 'Persistent' is not a mode (must be persistent, relaunch, graph, megakernel or resident)");
    EXPECT_NE(error_of([] { parse_mode(""); }), "");
}

TEST(Settings, DefaultsAreTheMeasuredOnes) {
    SchedulerOptions o = parse_settings({});
    EXPECT_EQ(o.shadow_rays, ShadowRays::kAuto);
    EXPECT_EQ(o.stragglers, Stragglers::kAuto);
    EXPECT_EQ(o.blocks_per_sm, 0);
    EXPECT_EQ(o.fetch_threshold, 24);
    EXPECT_EQ(o.backoff_max_shift, 4);
    EXPECT_TRUE(o.timeline);
}

TEST(Settings, EveryKeyTakesItsValues) {
    SchedulerOptions o =
        parse_settings({"shadow_rays=inline", "stragglers=sorted", "blocks_per_sm=8", "grid_blocks=1",
                        "fetch_threshold=32", "queue_capacity=64", "backoff_max_shift=0", "timeline=off",
                        "timeline_points=256", "poll_stop=off", "wave_capacity=4096", "ray_order=binned"});
    EXPECT_EQ(o.shadow_rays, ShadowRays::kInline);
    EXPECT_EQ(o.stragglers, Stragglers::kSorted);
    EXPECT_EQ(o.blocks_per_sm, 8);
    EXPECT_EQ(o.grid_blocks, 1);
    EXPECT_EQ(o.fetch_threshold, 32);
    EXPECT_EQ(o.queue_capacity, 64u);
    EXPECT_EQ(o.backoff_max_shift, 0);
    EXPECT_FALSE(o.timeline);
    EXPECT_EQ(o.timeline_points, 256);
    EXPECT_FALSE(o.poll_stop);
    EXPECT_EQ(o.wave_capacity, 4096u);
    EXPECT_EQ(o.ray_order, RayOrder::kBinned);
    EXPECT_EQ(parse_settings({}).ray_order, RayOrder::kShaded);
    EXPECT_EQ(parse_settings({"blocks_per_sm=auto", "shadow_rays=queued"}).blocks_per_sm, 0);
}

TEST(Settings, BadSettingsAreOneClearError) {
    EXPECT_EQ(error_of([] {
                  parse_settings({"fetch_treshold=8"});
              }).rfind("--set fetch_treshold=8: unknown key 'fetch_treshold' (keys: ", 0),
              0u);
    EXPECT_EQ(error_of([] { parse_settings({"fetch_threshold=0"}); }),
              "--set fetch_threshold=0: fetch_threshold must be 1-32");
    EXPECT_EQ(error_of([] { parse_settings({"fetch_threshold=8x"}); }),
              "--set fetch_threshold=8x: fetch_threshold must be 1-32");
    EXPECT_EQ(error_of([] { parse_settings({"blocks_per_sm=5"}); }),
              "--set blocks_per_sm=5: blocks_per_sm must be auto|4|6|8|10");
    EXPECT_EQ(error_of([] { parse_settings({"shadow_rays=yes"}); }),
              "--set shadow_rays=yes: shadow_rays must be auto|queued|inline");
    EXPECT_EQ(error_of([] { parse_settings({"queue_capacity=100"}); }),
              "--set queue_capacity=100: queue_capacity must be 0 or a power of two 32-2^30");
    EXPECT_EQ(error_of([] { parse_settings({"queue_capacity=16"}); }),
              "--set queue_capacity=16: queue_capacity must be 0 or a power of two 32-2^30");
    EXPECT_EQ(error_of([] { parse_settings({"timeline"}); }), "--set timeline: expected KEY=VALUE");
    EXPECT_EQ(error_of([] { parse_settings({"timeline=1"}); }), "--set timeline=1: timeline must be on|off");
    EXPECT_EQ(error_of([] { parse_settings({"ray_order=sorted"}); }),
              "--set ray_order=sorted: ray_order must be shaded|binned");
    EXPECT_EQ(error_of([] { parse_settings({"grid_blocks=-1"}); }),
              "--set grid_blocks=-1: grid_blocks must be 0-1048576");
}

TEST(Settings, HelpListsEveryKey) {
    std::string help = settings_help();
    for (const char* key :
         {"shadow_rays", "stragglers", "blocks_per_sm", "grid_blocks", "fetch_threshold", "queue_capacity",
          "backoff_max_shift", "timeline", "timeline_points", "poll_stop", "wave_capacity", "ray_order"})
        EXPECT_NE(help.find(std::string("  ") + key + "="), std::string::npos) << key;
}

// `--devices`: every index must exist (an index twice is two workers on one GPU), and every mistake
// is one error naming the flag.
TEST(Devices, PickedByIndexOrAll) {
    std::vector<GpuDevice> two(2);
    two[0].index = 0;
    two[1].index = 1;
    two[1].name = "second";
    EXPECT_EQ(pick_devices("", two).size(), 1u);
    EXPECT_EQ(pick_devices("", two)[0].index, 0);
    EXPECT_EQ(pick_devices("", two, 3)[0].index, 1);  // an MPI rank's slot on its host, modulo the devices
    EXPECT_TRUE(pick_devices("", {}, 3).empty());
    EXPECT_EQ(pick_devices("all", two).size(), 2u);
    auto picked = pick_devices("1,0,1", two);
    ASSERT_EQ(picked.size(), 3u);
    EXPECT_EQ(picked[0].name, "second");
    EXPECT_EQ(picked[1].index, 0);
    EXPECT_EQ(picked[2].index, 1);
    EXPECT_EQ(error_of([&] { pick_devices("2", two); }), "--devices 2: there is no CUDA device 2 (2 found: 0..1)");
    EXPECT_EQ(error_of([&] { pick_devices("0,,1", two); }),
              "--devices 0,,1: expected all, or device indices separated by commas (as 0,1)");
    EXPECT_EQ(error_of([&] { pick_devices("-1", two); }),
              "--devices -1: expected all, or device indices separated by commas (as 0,1)");
    EXPECT_EQ(error_of([&] { pick_devices("99999999999", two); }),
              "--devices 99999999999: expected all, or device indices separated by commas (as 0,1)");
    EXPECT_EQ(error_of([&] { pick_devices("all", {}); }), "--devices all: no CUDA device found");
    EXPECT_EQ(error_of([&] { pick_devices("0", {}); }), "--devices 0: there is no CUDA device 0 (0 found)");
}
