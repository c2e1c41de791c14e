// Line charts as PNG files, drawn in software (text from stb_easy_font): enough for `pkrt bench --plot`
// to show ms/frame against resolution per mode without a plotting dependency.
#pragma once

#include <string>
#include <vector>

namespace pkrt {

struct PlotSeries {
    std::string name;
    std::vector<double> x, y;  // points in data units; non-positive values are skipped on log axes
};

struct PlotSpec {
    std::string title;
    std::string x_label, y_label;
    bool log_x = true, log_y = true;
    std::vector<PlotSeries> series;
    // Optional labels at given x positions (e.g. "128x128" at x = 16384 pixels); else numeric ticks.
    std::vector<std::pair<double, std::string>> x_ticks;
};

void write_line_plot(const std::string& path, const PlotSpec& spec, int width = 1000, int height = 640);
// The same chart as PNG bytes.
std::string line_plot_png(const PlotSpec& spec, int width = 1000, int height = 640);

}  // namespace pkrt
