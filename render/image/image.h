// Linear RGB float images and their files: tone-mapped sRGB PNG, linear OpenEXR, PFM and Radiance HDR. Encoders give
// the file's bytes, for write_outputs (output_files.h: all of a command's outputs or none); writers go
// through a temporary file in the target's directory and rename it into place, so a failed or
// interrupted write never leaves a half-written output behind.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kernels/features.h"
#include "kernels/vec3.h"
#include "render/image/look.h"
#include "render/scene/render_limits.h"

namespace pkrt {

class ExrInput;    // render/image/exr_input.h
struct InputFile;  // render/scene/input_file.h

struct Image {
    int width = 0, height = 0;
    std::vector<Vec3> pixels;  // row-major, row 0 at the top
    Vec3& at(int x, int y) { return pixels[static_cast<size_t>(y) * width + x]; }
    const Vec3& at(int x, int y) const { return pixels[static_cast<size_t>(y) * width + x]; }
};

// An accumulation as a backend holds it: radiance sums and sample counts per pixel, either interleaved
// (rgba: rgb = sums, a = count) or apart (sums, 3 floats a pixel, and counts). Dividing them is left to
// whoever wants the image, on whichever thread (a sequence's writers do it, not its render loop).
struct Accumulation {
    int width = 0, height = 0;
    std::vector<float> rgba;
    std::vector<float> sums;
    std::vector<uint32_t> counts;
    // With sums: the sums of the odd-numbered samples alone, where the backend keeps them (adaptive
    // sampling's error estimate, kernels/adaptive.h); else empty.
    std::vector<float> odd_sums;
    // The feature sums (kernels/features.h: kFeatureFloats a pixel), where the backend keeps them
    // (Backend::set_features); else empty.
    std::vector<float> features;
};
// Mean radiance per pixel (0 where no sample landed).
Image resolve_accumulation(const Accumulation& a);
// The same into `out`, whose memory is reused where it has the size (a viewer refreshing every 100 ms).
void resolve_accumulation(const Accumulation& a, Image& out);
// Samples per pixel of an accumulation (what resolve_accumulation divides by).
std::vector<float> accumulation_samples(const Accumulation& a);

// An accumulation's features (kernels/features.h) as images: mean albedo, mean normal (not renormalised,
// as denoisers take it: shorter than 1 where a pixel's samples saw several orientations; 0 where none
// wrote one) and mean depth (in every channel). render/image/aov.h resolves and writes them.
struct FeatureImages {
    Image albedo, normal, depth;
    bool empty() const { return albedo.pixels.empty(); }
};
// A preview's accumulation (RenderSettings::preview): pixel (x, y) of the width x height image reads
// pixel (x / block, y / block) of the one rendered, which is ceil(width / block) pixels wide.
inline size_t preview_source(int x, int y, int width, int block) {
    int source_width = (width + block - 1) / block;
    return static_cast<size_t>(y / block) * source_width + x / block;
}
// `a` (its first pixels the rendered preview's) as the width x height image shows it.
void expand_preview(Accumulation& a, int block);

// Through `look` (render/image/look.h: exposure, tone curve) and the sRGB transfer curve.
void write_png(const std::string& path, const Image& image, const Look& look = {});
// 8-bit RGB rows, top row first (charts, screenshots).
void write_png_rgb8(const std::string& path, int width, int height, const std::vector<unsigned char>& rgb);
void write_exr(const std::string& path, const Image& image);
void write_pfm(const std::string& path, const Image& image);
// By extension, as encode_image.
void write_image(const std::string& path, const Image& image);

std::string encode_png(const Image& image, const Look& look = {});
std::string encode_png_rgb8(int width, int height, const std::vector<unsigned char>& rgb);
// String attributes of an EXR's header (NAME, VALUE): what pkrt records of the render (render/checkpoint.h).
using ExrAttributes = std::vector<std::pair<std::string, std::string>>;
std::string encode_exr(const Image& image, const ExrAttributes& attributes = {});
// The string attributes of an EXR's header (a file read_reference_exr accepted).
ExrAttributes read_exr_attributes(const std::string& path);
ExrAttributes read_exr_attributes(ExrInput& exr);
std::string encode_pfm(const Image& image);
std::string encode_hdr(const Image& image);  // Radiance RGBE (.hdr)
// The image files pkrt writes, by extension: every one (-o), and the linear ones (--hdr).
// The extension of `path`, lower case (".png"), that encode_image goes by.
std::string image_extension(const std::string& path);
inline const std::vector<std::string> kImageExtensions = {".png", ".exr", ".pfm", ".hdr"};
inline const std::vector<std::string> kLinearImageExtensions = {".exr", ".pfm", ".hdr"};
// By the extension of `path`: .png (through `look`), .exr, .pfm or .hdr (linear radiance, no look).
std::string encode_image(const std::string& path, const Image& image, const Look& look = {},
                         const ExrAttributes& exr_attributes = {});

Image read_pfm(const std::string& path);
Image read_exr(const std::string& path);
// --reference's (or --resume's) path names an .exr (cheap: before anything loads).
void check_reference_path(const std::string& path, const std::string& flag = "--reference");
// A reference image for an error measurement: a linear EXR of exactly width x height pixels, all
// finite (checked from the header before any pixel is read, so a hostile size costs nothing).
Image read_reference_exr(const std::string& path, int width, int height);
// The same over a file's bytes already read (its path checked by check_reference_path).
Image read_reference_exr(const InputFile& in, int width, int height);
// relMSE of `image` against `reference` (same size): the mean over pixels and channels of
// (x - r)^2 / (r^2 + 0.01), the measure adaptive sampling's error estimate follows (kernels/adaptive.h).
double relative_mse(const Image& image, const Image& reference);

// The sRGB transfer curve (IEC 61966-2-1) of a linear value in [0, 1].
double linear_to_srgb(double v);
// 8-bit sRGB code of a linear value, shared by the PNG writer and the viewer's screenshots:
// round(255 * linear_to_srgb(v)), half up; 0 for NaN and below, 255 from 1 up.
unsigned char linear_to_srgb8(float v);

// Writes `bytes` to a sibling temporary file and renames it into place (no partial file on failure).
void write_file_atomically(const std::string& path, const std::string& bytes);

// Parses a --res value "WIDTHxHEIGHT" with each side in [min_side, max_side]. Throws Error naming --res.
void parse_resolution(const std::string& text, int* width, int* height, int min_side = 1,
                      int max_side = limits::kMaxImageSide);

// Checks before a long render that `path` can be written (directory exists, extension is known)
// so a typo fails in a second instead of after the render. Throws Error.
void check_output_path(const std::string& path, const std::vector<std::string>& extensions, const std::string& flag);

}  // namespace pkrt
