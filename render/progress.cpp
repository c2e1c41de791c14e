#include "render/progress.h"

#include <cmath>
#include <unistd.h>

namespace pkrt {

Progress::Progress(std::string label, uint64_t total, std::string unit, std::FILE* out)
    : label_(std::move(label)), unit_(std::move(unit)), total_(total == 0 ? 1 : total), out_(out),
      tty_(out != nullptr && ::isatty(::fileno(out))), start_(std::chrono::steady_clock::now()), last_draw_(start_) {}

std::string Progress::format_rate(double v) {
    const char* units[] = {"", " K", " M", " G", " T"};
    int u = 0;
    while (v >= 1000.0 && u < 4) {
        v /= 1000.0;
        ++u;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, v < 10 ? "%.2f%s" : (v < 100 ? "%.1f%s" : "%.0f%s"), v, units[u]);
    return buf;
}

std::string Progress::format_duration(double s) {
    if (!std::isfinite(s) || s < 0) return "--";
    char buf[32];
    if (s < 60) std::snprintf(buf, sizeof buf, "%.1fs", s);
    else if (s < 3600) std::snprintf(buf, sizeof buf, "%dm%02ds", static_cast<int>(s) / 60, static_cast<int>(s) % 60);
    else std::snprintf(buf, sizeof buf, "%dh%02dm", static_cast<int>(s) / 3600, (static_cast<int>(s) / 60) % 60);
    return buf;
}

void Progress::add(uint64_t n) {
    if (!out_) return;
    std::lock_guard<std::mutex> lock(mutex_);
    done_ += n;
    if (done_ > total_) done_ = total_;
    auto now = std::chrono::steady_clock::now();
    if (tty_) {
        if (now - last_draw_ > std::chrono::milliseconds(100)) {
            last_draw_ = now;
            draw(false);
        }
    } else {
        int decile = static_cast<int>(10 * done_ / total_);
        if (decile > last_decile_ && decile < 10) {
            last_decile_ = decile;
            draw(false);
        }
    }
}

void Progress::finish() {
    if (!out_) return;
    std::lock_guard<std::mutex> lock(mutex_);
    if (finished_) return;
    finished_ = true;
    done_ = total_;
    draw(true);
}

void Progress::stop() {
    if (!out_) return;
    std::lock_guard<std::mutex> lock(mutex_);
    if (finished_) return;
    finished_ = true;
    draw(true);
}

void Progress::draw(bool final_line) {
    double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    double frac = static_cast<double>(done_) / static_cast<double>(total_);
    double rate = elapsed > 0 ? static_cast<double>(done_) / elapsed : 0.0;
    double eta = rate > 0 ? static_cast<double>(total_ - done_) / rate : NAN;
    if (tty_) {
        const int width = 30;
        int fill = static_cast<int>(frac * width);
        std::string bar(static_cast<size_t>(fill), '#');
        bar.resize(width, ' ');
        std::fprintf(out_, "\r%s [%s] %3d%%  %s %s/s  %s %s\x1b[K", label_.c_str(), bar.c_str(),
                     static_cast<int>(frac * 100), format_rate(rate).c_str(), unit_.c_str(),
                     final_line ? "took" : "ETA", format_duration(final_line ? elapsed : eta).c_str());
        if (final_line) std::fputc('\n', out_);
    } else {
        std::fprintf(out_, "%s %3d%%  %s %s/s  %s %s\n", label_.c_str(), static_cast<int>(frac * 100),
                     format_rate(rate).c_str(), unit_.c_str(), final_line ? "took" : "ETA",
                     format_duration(final_line ? elapsed : eta).c_str());
    }
    std::fflush(out_);
}

}  // namespace pkrt
