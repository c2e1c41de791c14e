// Helpers for the pkrt-viewer tests: run the viewer (on a private Xvfb screen through viewer_xvfb.sh),
// read the PNGs it writes, and compare images.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include <stb_image.h>

#include "tests/test_util.h"

namespace pkrt_test {

constexpr int kSkipped = 77;  // viewer_xvfb.sh: Xvfb is not installed
#define SKIP_WITHOUT_XVFB(r) \
    if ((r).code == pkrt_test::kSkipped) GTEST_SKIP() << (r).err

// Runs pkrt-viewer with `args` (already shell-quoted where needed) in `cwd`; under Xvfb unless
// `with_display` is false, in which case DISPLAY is removed from its environment.
inline RunResult run_viewer(const std::string& args, const std::string& cwd, bool with_display = true) {
    std::string prefix =
        with_display ? shell_quote(PKRT_VIEWER_XVFB) + " " : std::string("env -u DISPLAY -u WAYLAND_DISPLAY ");
    return run_in(prefix + shell_quote(PKRT_VIEWER_BINARY) + " " + args, cwd);
}

struct Png {
    int width = 0, height = 0;
    std::vector<unsigned char> rgb;
    bool ok() const { return width > 0 && height > 0; }
};

inline Png read_png(const std::string& path) {
    Png p;
    int channels = 0;
    unsigned char* data = stbi_load(path.c_str(), &p.width, &p.height, &channels, 3);
    if (!data) return Png{};
    p.rgb.assign(data, data + static_cast<size_t>(p.width) * p.height * 3);
    stbi_image_free(data);
    return p;
}

// Largest absolute difference of one channel, in 8-bit steps; 256 for images of different sizes.
inline int max_abs_diff(const Png& a, const Png& b) {
    if (a.rgb.size() != b.rgb.size() || a.rgb.empty()) return 256;
    int worst = 0;
    for (size_t i = 0; i < a.rgb.size(); ++i) worst = std::max(worst, std::abs(int(a.rgb[i]) - int(b.rgb[i])));
    return worst;
}

// Mean absolute difference per channel, in 8-bit steps (0..255). Images must have the same size.
inline double mean_abs_diff(const Png& a, const Png& b) {
    if (a.rgb.size() != b.rgb.size() || a.rgb.empty()) return 1e9;
    double sum = 0;
    for (size_t i = 0; i < a.rgb.size(); ++i) sum += std::abs(static_cast<int>(a.rgb[i]) - static_cast<int>(b.rgb[i]));
    return sum / static_cast<double>(a.rgb.size());
}

// Mean absolute difference of 8x8-block averages, in 8-bit steps: pixel noise (which differs between
// renders with different sample counts) averages out, a change of view does not.
inline double block_mean_diff(const Png& a, const Png& b, int block = 8) {
    if (a.width != b.width || a.height != b.height || a.rgb.empty()) return 1e9;
    double sum = 0;
    int blocks = 0;
    for (int by = 0; by + block <= a.height; by += block) {
        for (int bx = 0; bx + block <= a.width; bx += block) {
            for (int c = 0; c < 3; ++c) {
                double sa = 0, sb = 0;
                for (int y = by; y < by + block; ++y)
                    for (int x = bx; x < bx + block; ++x) {
                        size_t i = (static_cast<size_t>(y) * a.width + x) * 3 + c;
                        sa += a.rgb[i];
                        sb += b.rgb[i];
                    }
                sum += std::abs(sa - sb) / (block * block);
            }
            ++blocks;
        }
    }
    return blocks ? sum / (3.0 * blocks) : 0.0;
}

inline size_t distinct_colors(const Png& p) {
    std::set<unsigned> colors;
    for (size_t i = 0; i + 2 < p.rgb.size(); i += 3) colors.insert(p.rgb[i] << 16 | p.rgb[i + 1] << 8 | p.rgb[i + 2]);
    return colors.size();
}

// Standard deviation of the pixels' mean channel value: near zero for a blank or flat image.
inline double value_stddev(const Png& p) {
    size_t n = p.rgb.size() / 3;
    if (n == 0) return 0;
    double s = 0, s2 = 0;
    for (size_t i = 0; i < n; ++i) {
        double v = (p.rgb[3 * i] + p.rgb[3 * i + 1] + p.rgb[3 * i + 2]) / 3.0;
        s += v;
        s2 += v * v;
    }
    double mean = s / n;
    return std::sqrt(std::max(0.0, s2 / n - mean * mean));
}

// The first line of stderr that is an error, for messages.
inline bool has_one_error_line(const std::string& err) {
    size_t count = 0, pos = 0;
    while ((pos = err.find("pkrt-viewer: error: ", pos)) != std::string::npos) {
        ++count;
        pos += 1;
    }
    return count == 1;
}

// A batch run's camera-change line (app/viewer/frame_timing.cpp): the median and longest time to the
// screen, the changes, the display frame, the medians of the parts (ms since the change) and which
// displayed frame showed the new view. ok: the line was there and read whole.
struct CameraChangeLine {
    bool ok = false;
    std::string text;
    double median = 0, max = 0, frame = 0, queued = 0, done = 0, uploaded = 0, drawn = 0, pass = 0, latest_pass = 0;
    int changes = 0;
};

inline CameraChangeLine read_camera_change_line(const std::string& err) {
    CameraChangeLine c;
    const char* line = std::strstr(err.c_str(), "camera change to its first image on screen:");
    if (!line) return c;
    c.text.assign(line, std::strcspn(line, "\n"));
    c.ok = std::sscanf(line,
                       "camera change to its first image on screen: median %lf ms, max %lf ms over %d changes "
                       "(display frame %lf ms); medians of its parts: %lf ms until its frame is queued, %lf ms "
                       "until it is done, %lf ms until it is in the display's texture (denoised, where that is on), "
                       "%lf ms until it is drawn with the panels and presented; shown by displayed frame %lf after "
                       "the change (median), %lf at the latest",
                       &c.median, &c.max, &c.changes, &c.frame, &c.queued, &c.done, &c.uploaded, &c.drawn, &c.pass,
                       &c.latest_pass) == 10;
    return c;
}

}  // namespace pkrt_test
