#include "render/image/plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "render/image/canvas.h"
#include "render/error.h"
#include "render/image/image.h"

namespace pkrt {

namespace {

// Colour-blind-safe palette (Okabe & Ito).
const Rgb kPalette[] = {{0, 114, 178}, {213, 94, 0},   {0, 158, 115}, {204, 121, 167},
                        {230, 159, 0}, {86, 180, 233}, {0, 0, 0},     {240, 228, 66}};

std::string format_number(double v) {
    char buf[32];
    double a = std::fabs(v);
    if (a >= 1e6 || (a > 0 && a < 1e-3)) std::snprintf(buf, sizeof buf, "%.0e", v);
    else if (a >= 100 || a == std::floor(a)) std::snprintf(buf, sizeof buf, "%.0f", v);
    else if (a >= 1) std::snprintf(buf, sizeof buf, "%.1f", v);
    else std::snprintf(buf, sizeof buf, "%.2f", v);
    return buf;
}

// Ticks for an axis range: 1-2-5 steps per decade on log axes (every integer mantissa when that leaves
// fewer than three on a narrow range), "nice" steps on linear ones.
std::vector<double> ticks(double lo, double hi, bool log_axis) {
    std::vector<double> t;
    if (log_axis) {
        for (auto mantissas : {std::vector<double>{1, 2, 5}, std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8, 9}}) {
            t.clear();
            for (int e = static_cast<int>(std::floor(std::log10(lo))); e <= static_cast<int>(std::ceil(std::log10(hi)));
                 ++e)
                for (double m : mantissas) {
                    double v = m * std::pow(10.0, e);
                    if (v >= lo * 0.999 && v <= hi * 1.001) t.push_back(v);
                }
            if (t.size() >= 3) break;
        }
        return t;
    }
    double span = hi - lo, step = std::pow(10.0, std::floor(std::log10(span / 5)));
    if (span / step > 10) step *= 2;
    if (span / step > 10) step *= 2.5;
    for (double v = std::ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) t.push_back(v);
    return t;
}

}  // namespace

std::string line_plot_png(const PlotSpec& spec, int width, int height) {
    double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
    for (const auto& s : spec.series)
        for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
            if ((spec.log_x && s.x[i] <= 0) || (spec.log_y && s.y[i] <= 0)) continue;
            xlo = std::min(xlo, s.x[i]);
            xhi = std::max(xhi, s.x[i]);
            ylo = std::min(ylo, s.y[i]);
            yhi = std::max(yhi, s.y[i]);
        }
    if (!(xlo <= xhi) || !(ylo <= yhi)) throw Error("plot: nothing to plot");
    // Pad the ranges so points do not sit on the frame.
    auto pad = [](double& lo, double& hi, bool log_axis) {
        if (log_axis) {
            lo /= 1.5;
            hi *= 1.5;
        } else {
            double span = hi > lo ? hi - lo : std::max(1.0, std::fabs(hi));
            lo -= 0.08 * span;
            hi += 0.08 * span;
            if (lo < 0 && lo > -0.3 * span) lo = 0;  // a non-negative quantity keeps its zero
        }
    };
    pad(xlo, xhi, spec.log_x);
    pad(ylo, yhi, spec.log_y);

    Canvas cv(width, height);
    const float left = 110, right = width - 30.0f, top = 60, bottom = height - 80.0f;
    auto map = [](double v, double lo, double hi, bool log_axis, float a, float b) {
        double t = log_axis ? (std::log(v) - std::log(lo)) / (std::log(hi) - std::log(lo)) : (v - lo) / (hi - lo);
        return static_cast<float>(a + t * (b - a));
    };
    auto mx = [&](double v) { return map(v, xlo, xhi, spec.log_x, left, right); };
    auto my = [&](double v) { return map(v, ylo, yhi, spec.log_y, bottom, top); };
    const Rgb grid{225, 225, 225}, ink{30, 30, 30};

    // Grid and tick labels.
    for (double t : ticks(ylo, yhi, spec.log_y)) {
        float y = my(t);
        cv.line(left, y, right, y, grid, 1.0f);
        std::string label = format_number(t);
        cv.text(left - 10 - Canvas::text_width(label), y - 6, label, ink);
    }
    if (!spec.x_ticks.empty()) {
        for (const auto& [v, label] : spec.x_ticks) {
            float x = mx(v);
            cv.line(x, top, x, bottom, grid, 1.0f);
            cv.text(x - Canvas::text_width(label) / 2, bottom + 10, label, ink);
        }
    } else {
        for (double t : ticks(xlo, xhi, spec.log_x)) {
            float x = mx(t);
            cv.line(x, top, x, bottom, grid, 1.0f);
            std::string label = format_number(t);
            cv.text(x - Canvas::text_width(label) / 2, bottom + 10, label, ink);
        }
    }
    // Frame, title, axis labels.
    cv.line(left, bottom, right, bottom, ink, 1.5f);
    cv.line(left, top, left, bottom, ink, 1.5f);
    cv.text((width - Canvas::text_width(spec.title, 3.0f)) / 2, 8, spec.title, ink, 3.0f);
    cv.text((left + right - Canvas::text_width(spec.x_label)) / 2, bottom + 42, spec.x_label, ink);
    cv.text(12, top - 22, spec.y_label, ink);

    // Series and legend.
    float ly = top + 12;
    for (size_t k = 0; k < spec.series.size(); ++k) {
        const PlotSeries& s = spec.series[k];
        Rgb c = kPalette[k % (sizeof kPalette / sizeof kPalette[0])];
        float px = NAN, py = NAN;
        for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
            if ((spec.log_x && s.x[i] <= 0) || (spec.log_y && s.y[i] <= 0)) continue;
            float x = mx(s.x[i]), y = my(s.y[i]);
            if (!std::isnan(px)) cv.line(px, py, x, y, c, 3.0f);
            cv.disc(x, y, 4.5f, c);
            px = x;
            py = y;
        }
        cv.line(left + 20, ly + 6, left + 60, ly + 6, c, 3.0f);
        cv.disc(left + 40, ly + 6, 4.5f, c);
        cv.text(left + 70, ly, s.name, ink);
        ly += 26;
    }
    return encode_png_rgb8(width, height, cv.pixels());
}

void write_line_plot(const std::string& path, const PlotSpec& spec, int width, int height) {
    write_file_atomically(path, line_plot_png(spec, width, height));
}

}  // namespace pkrt
