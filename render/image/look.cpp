#include "render/image/look.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "render/cpu/parallel.h"
#include "render/error.h"
#include "render/quote.h"
#include "render/strict_number.h"
#include "render/image/image.h"

namespace pkrt {

namespace {

// A 3x3 matrix given as GLSL's mat3 constructor takes it, column by column, so that the numbers here
// and in shaders/display.frag read the same.
struct Mat3 {
    float c[9];
    Vec3 operator*(Vec3 v) const {
        return {c[0] * v.x + c[3] * v.y + c[6] * v.z, c[1] * v.x + c[4] * v.y + c[7] * v.z,
                c[2] * v.x + c[5] * v.y + c[8] * v.z};
    }
};

float clamp01(float v) { return std::min(std::max(v, 0.0f), 1.0f); }
Vec3 clamp01(Vec3 v) { return {clamp01(v.x), clamp01(v.y), clamp01(v.z)}; }

constexpr Mat3 kAcesIn = {{0.59719f, 0.07600f, 0.02840f, 0.35458f, 0.90834f, 0.13383f, 0.04823f, 0.01566f, 0.83777f}};
constexpr Mat3 kAcesOut = {
    {1.60475f, -0.10208f, -0.00327f, -0.53108f, 1.10813f, -0.07276f, -0.07367f, -0.00605f, 1.07602f}};

float rrt_and_odt_fit(float v) {
    float a = v * (v + 0.0245786f) - 0.000090537f;
    float b = v * (0.983729f * v + 0.4329510f) + 0.238081f;
    return a / b;
}

Vec3 aces_fitted(Vec3 c) {
    c = kAcesIn * c;
    c = {rrt_and_odt_fit(c.x), rrt_and_odt_fit(c.y), rrt_and_odt_fit(c.z)};
    return clamp01(kAcesOut * c);
}

// AgX's inset (into its working space) and outset matrices, and its log2 range in stops about 0.18.
constexpr Mat3 kAgxIn = {{0.842479062253094f, 0.0423282422610123f, 0.0423756549057051f, 0.0784335999999992f,
                          0.878468636469772f, 0.0784336f, 0.0792237451477643f, 0.0791661274605434f,
                          0.879142973793104f}};
constexpr Mat3 kAgxOut = {{1.19687900512017f, -0.0528968517574562f, -0.0529716355144438f, -0.0980208811401368f,
                           1.15190312990417f, -0.0980434501171241f, -0.0990297440797205f, -0.0989611768448433f,
                           1.15107367264116f}};
constexpr float kAgxMinEv = -12.47393f, kAgxMaxEv = 4.026069f;

// The sigmoid of AgX's default look, fitted by a sixth-order polynomial on [0, 1].
float agx_contrast(float x) {
    float x2 = x * x, x4 = x2 * x2;
    return 15.5f * x4 * x2 - 40.14f * x4 * x + 31.96f * x4 - 6.868f * x2 * x + 0.4298f * x2 + 0.1191f * x - 0.00232f;
}

float agx_channel(float v) {
    float e = std::log2(std::max(v, 1e-10f));
    return agx_contrast((std::min(std::max(e, kAgxMinEv), kAgxMaxEv) - kAgxMinEv) / (kAgxMaxEv - kAgxMinEv));
}

Vec3 agx(Vec3 c) {
    c = kAgxIn * c;
    c = {agx_channel(c.x), agx_channel(c.y), agx_channel(c.z)};
    c = kAgxOut * c;
    // The curve's output is display-encoded (a 2.2 power); back to linear for the sRGB curve.
    c = clamp01(c);
    return {std::pow(c.x, 2.2f), std::pow(c.y, 2.2f), std::pow(c.z, 2.2f)};
}

}  // namespace

std::optional<ToneCurve> parse_tone_curve(const std::string& name) {
    if (name == "clamp") return ToneCurve::kClamp;
    if (name == "aces") return ToneCurve::kAces;
    if (name == "agx") return ToneCurve::kAgx;
    return std::nullopt;
}

const char* tone_curve_name(ToneCurve c) {
    switch (c) {
        case ToneCurve::kAces: return "aces";
        case ToneCurve::kAgx: return "agx";
        default: return "clamp";
    }
}

void parse_exposure(const std::string& text, Look* look, const std::string& flag) {
    if (text == "auto") {
        look->auto_exposure = true;
        return;
    }
    // Decimal in full (std::stof took "0x10" as 16 stops); the scene file's render.exposure comes here too.
    double stops = 0.0;
    if (!parse_strict_decimal(text, &stops) || std::fabs(stops) > kMaxExposureStops)
        throw Error(flag + ": '" + quote_input(text) + "' is neither 'auto' nor a number of stops between -64 and 64");
    look->auto_exposure = false;
    look->exposure_stops = static_cast<float>(stops);
}

std::string exposure_text(const Look& look) {
    if (look.auto_exposure) return "auto";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", look.exposure_stops);
    return buf;
}

double log_luminance(double r, double g, double b) {
    double y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
    return std::log(std::max(std::isfinite(y) ? y : 0.0, 0.0) + kLogFloor);
}

float auto_exposure_stops(double sum_log_luminance, double blocks) {
    if (!(blocks > 0)) return 0.0f;
    double stops = std::log2(kAutoExposureKey) - sum_log_luminance / blocks / std::log(2.0);
    return static_cast<float>(std::min(std::max(stops, -double(kMaxExposureStops)), double(kMaxExposureStops)));
}

float auto_exposure_stops(const Image& image) {
    // Each block's log luminance on every core, then the sum in the blocks' order, as one core adds
    // them: the same stops bit for bit (the learned denoiser meters every image it takes).
    const int rows = (image.height + kMeterBlock - 1) / kMeterBlock;
    const int columns = (image.width + kMeterBlock - 1) / kMeterBlock;
    std::vector<double> logs(static_cast<size_t>(rows) * columns);
    parallel_rows(rows, [&](int row) {
        const int by = row * kMeterBlock;
        for (int column = 0; column < columns; ++column) {
            const int bx = column * kMeterBlock;
            double r = 0, g = 0, b = 0, n = 0;
            for (int y = by; y < std::min(by + kMeterBlock, image.height); ++y)
                for (int x = bx; x < std::min(bx + kMeterBlock, image.width); ++x) {
                    const Vec3& p = image.at(x, y);
                    r += p.x, g += p.y, b += p.z, n += 1;
                }
            logs[static_cast<size_t>(row) * columns + column] = log_luminance(r / n, g / n, b / n);
        }
    });
    double sum = 0;
    for (double l : logs) sum += l;
    return auto_exposure_stops(sum, static_cast<double>(logs.size()));
}

float exposure_stops_for(const Look& look, const Image& image) {
    return look.auto_exposure ? auto_exposure_stops(image) : look.exposure_stops;
}

Vec3 tone_curve(Vec3 c, ToneCurve curve) {
    c = {std::max(c.x, 0.0f), std::max(c.y, 0.0f), std::max(c.z, 0.0f)};
    switch (curve) {
        case ToneCurve::kAces: return aces_fitted(c);
        case ToneCurve::kAgx: return agx(c);
        default: return clamp01(c);
    }
}

}  // namespace pkrt
