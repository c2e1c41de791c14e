// Feature buffers as outputs (kernels/features.h): `pkrt render --aov albedo,normal,depth` writes them as
// layers of its EXR outputs beside the radiance (R, G, B), named as Cycles and Blender name those
// passes: "Denoising Albedo.R/G/B", "Denoising Normal.X/Y/Z" (world space) and "Depth.Z" (the camera
// ray's hit along the view axis, 0 where it escaped).
#pragma once

#include <string>
#include <vector>

#include "render/image/image.h"

namespace pkrt {

enum class Aov { kAlbedo, kNormal, kDepth };

// The names --aov takes, in the order of Aov.
inline const std::vector<std::string> kAovNames = {"albedo", "normal", "depth"};
// Every one: what a denoised EXR carries, so that it can be resumed.
inline const std::vector<Aov> kAllAovs = {Aov::kAlbedo, Aov::kNormal, Aov::kDepth};

// "albedo,normal" -> the list, each once, in the order given; an Error names the flag and the value.
std::vector<Aov> parse_aov_list(const std::string& text);

// Means of an accumulation's feature sums (Accumulation::features); an Error where it has none.
FeatureImages resolve_features(const Accumulation& a);
// The same into `out`, whose memory is reused where it has the size.
void resolve_features(const Accumulation& a, FeatureImages& out);

// The EXR of `image` with the layers of `aovs` from `features`, and the header's string attributes;
// `noisy` (may be null): a denoised render's own radiance, as the layer "Noisy Image.R/G/B" (Blender's).
std::string encode_exr_with_aovs(const Image& image, const ExrAttributes& attributes, const FeatureImages& features,
                                 const std::vector<Aov>& aovs, const Image* noisy = nullptr);

// An output image by the extension of `path`, as encode_image writes it; an EXR with the layers of `aovs`
// (and `noisy`) where there are any.
std::string encode_output_image(const std::string& path, const Image& image, const Look& look,
                                const ExrAttributes& attributes, const FeatureImages& features,
                                const std::vector<Aov>& aovs, const Image* noisy = nullptr);

// The layers of `aovs` in an EXR (of width x height, as --resume reads it); the others stay black. An
// Error names the file and the first layer it lacks.
FeatureImages read_aov_layers(const std::string& path, int width, int height, const std::vector<Aov>& aovs);
FeatureImages read_aov_layers(ExrInput& exr, int width, int height, const std::vector<Aov>& aovs);
// Whether an EXR has the "Noisy Image" layer (its R, G, B are then denoised), and that layer.
bool has_noisy_layer(const std::string& path);
bool has_noisy_layer(ExrInput& exr);
Image read_noisy_layer(const std::string& path, int width, int height);
Image read_noisy_layer(ExrInput& exr, int width, int height);

}  // namespace pkrt
