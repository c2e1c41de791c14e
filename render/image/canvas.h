// A small software canvas for the PNG charts and maps pkrt draws itself (bench plots, the adaptive
// sampler's spp map): antialiased lines, rectangles, and text from stb_easy_font.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

// Its static functions that a file does not call are not ours to warn about.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include <stb_easy_font.h>
#pragma GCC diagnostic pop

namespace pkrt {

struct Rgb {
    unsigned char r, g, b;
};

class Canvas {
public:
    Canvas(int w, int h) : w_(w), h_(h), px_(static_cast<size_t>(w) * h * 3, 255) {}

    void blend(int x, int y, Rgb c, float a) {
        if (x < 0 || y < 0 || x >= w_ || y >= h_ || a <= 0.0f) return;
        a = std::min(a, 1.0f);
        unsigned char* p = &px_[(static_cast<size_t>(y) * w_ + x) * 3];
        p[0] = static_cast<unsigned char>(p[0] + (c.r - p[0]) * a);
        p[1] = static_cast<unsigned char>(p[1] + (c.g - p[1]) * a);
        p[2] = static_cast<unsigned char>(p[2] + (c.b - p[2]) * a);
    }

    void fill_rect(float x0, float y0, float x1, float y1, Rgb c) {
        for (int y = static_cast<int>(std::floor(y0)); y < static_cast<int>(std::ceil(y1)); ++y)
            for (int x = static_cast<int>(std::floor(x0)); x < static_cast<int>(std::ceil(x1)); ++x)
                blend(x, y, c, 1.0f);
    }

    // Antialiased thick segment: coverage from the distance to the segment.
    void line(float x0, float y0, float x1, float y1, Rgb c, float width) {
        float r = width * 0.5f;
        int xa = static_cast<int>(std::floor(std::min(x0, x1) - r - 1)),
            xb = static_cast<int>(std::ceil(std::max(x0, x1) + r + 1));
        int ya = static_cast<int>(std::floor(std::min(y0, y1) - r - 1)),
            yb = static_cast<int>(std::ceil(std::max(y0, y1) + r + 1));
        float dx = x1 - x0, dy = y1 - y0, len2 = dx * dx + dy * dy;
        for (int y = ya; y <= yb; ++y) {
            for (int x = xa; x <= xb; ++x) {
                float px = x + 0.5f - x0, py = y + 0.5f - y0;
                float t = len2 > 0 ? std::clamp((px * dx + py * dy) / len2, 0.0f, 1.0f) : 0.0f;
                float ex = px - t * dx, ey = py - t * dy;
                float d = std::sqrt(ex * ex + ey * ey);
                blend(x, y, c, r + 0.5f - d);
            }
        }
    }

    void disc(float cx, float cy, float radius, Rgb c) { line(cx, cy, cx, cy, c, 2.0f * radius); }

    // stb_easy_font emits quads for a 6-pixel-high font; `scale` enlarges them.
    void text(float x, float y, const std::string& s, Rgb c, float scale = 2.0f) {
        std::vector<char> buffer(
            1024 * (s.size() + 1));  // 64-byte quads, at most 16 a glyph (the 270 bytes of its docs are a mean)
        std::string copy = s;
        int quads = stb_easy_font_print(0, 0, copy.data(), nullptr, buffer.data(), static_cast<int>(buffer.size()));
        for (int q = 0; q < quads; ++q) {
            const float* v = reinterpret_cast<const float*>(buffer.data() + q * 4 * 16);
            float qx0 = v[0], qy0 = v[1], qx1 = v[8], qy1 = v[9];  // vertices 0 and 2 (16-byte stride)
            fill_rect(x + qx0 * scale, y + qy0 * scale, x + qx1 * scale, y + qy1 * scale, c);
        }
    }

    static float text_width(const std::string& s, float scale = 2.0f) {
        std::string copy = s;
        return stb_easy_font_width(copy.data()) * scale;
    }

    const std::vector<unsigned char>& pixels() const { return px_; }

private:
    int w_, h_;
    std::vector<unsigned char> px_;
};

}  // namespace pkrt
