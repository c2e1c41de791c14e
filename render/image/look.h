// How linear radiance becomes a picture on a display: exposure (fixed stops, or automatic from the image's
// log-average luminance), then a tone curve, then the sRGB transfer curve. pkrt render's PNGs and the
// viewer's window use this one definition (the viewer's shaders/display.frag mirrors tone_curve; a test
// checks that the viewer's screenshot equals pkrt render's PNG).
#pragma once

#include <optional>
#include <string>

#include "kernels/vec3.h"

namespace pkrt {

struct Image;

// The tone curve's codes are the viewer shader's u_tone_map values.
enum class ToneCurve : int {
    kClamp = 0,  // none: values above 1 clip (pbrt's and Mitsuba's PNGs)
    kAces = 1,   // ACES filmic, Stephen Hill's fit of the RRT and ODT
    kAgx = 2,    // AgX (Troy Sobotka; Blender's default view since 4.0), its polynomial approximation
};
inline constexpr ToneCurve kDefaultToneCurve = ToneCurve::kClamp;

std::optional<ToneCurve> parse_tone_curve(const std::string& name);
const char* tone_curve_name(ToneCurve c);
inline constexpr const char* kToneCurveNames = "clamp, aces or agx";

struct Look {
    float exposure_stops = 0.0f;  // when not automatic
    bool auto_exposure = false;   // stops from the image (auto_exposure_stops)
    ToneCurve curve = kDefaultToneCurve;
};

inline constexpr float kMaxExposureStops = 64.0f;  // --exposure and render.exposure: within +-64 stops
// Parses an --exposure value: a number of stops in [-64, 64], or "auto". Throws Error naming `flag`.
void parse_exposure(const std::string& text, Look* look, const std::string& flag = "--exposure");
std::string exposure_text(const Look& look);  // "auto" or the stops

// Automatic exposure maps the image's log-average luminance (Reinhard et al. 2002's "key") to mid grey,
// 0.18. The average is over blocks of kMeterBlock x kMeterBlock pixels, of each block's mean luminance
// (Rec. 709's) over its pixels with samples, floored at kLogFloor: at a few samples per pixel many pixels
// of a sky-lit interior are still black, and a log-average of single pixels follows that noise (several
// stops too bright at 8 spp on Dabrovic Sponza), while a block's mean barely does.
inline constexpr double kAutoExposureKey = 0.18;
inline constexpr double kLogFloor = 1e-4;
inline constexpr int kMeterBlock = 8;
double log_luminance(double r, double g, double b);  // of a block's mean radiance
// Stops for a mean of log_luminance over `blocks` blocks (none: 0 stops), within +-kMaxExposureStops.
float auto_exposure_stops(double sum_log_luminance, double blocks);
float auto_exposure_stops(const Image& image);  // every pixel has samples
// The exposure `look` gives `image`, in stops.
float exposure_stops_for(const Look& look, const Image& image);

// A pixel's display value in [0, 1] (before the sRGB curve) from its radiance times 2^stops.
Vec3 tone_curve(Vec3 exposed, ToneCurve c);

}  // namespace pkrt
