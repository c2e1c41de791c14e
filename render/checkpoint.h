// A render continued from an EXR pkrt wrote (pkrt render --resume): every EXR output of a render records
// the samples each pixel got and the render's identity (scene files and geometry, camera, size, depth,
// seed), so that a later run of the same render takes the next samples of the same streams and the two
// together are the image an uninterrupted render of all the samples gives.
#pragma once

#include <cstdint>
#include <string>

#include "render/backend.h"
#include "render/image/aov.h"
#include "render/image/image.h"
#include "render/scene/scene.h"

namespace pkrt {

// FNV-1a over the camera's floats: the same camera, bit for bit, or not (MPI ranks compare it too).
uint64_t camera_fingerprint(const CameraSpec& camera);

// The attributes of a render's EXR after `spp` samples a pixel.
ExrAttributes render_attributes(const Scene& scene, const RenderSettings& rs, uint32_t spp);

struct ResumePoint {
    Image image;
    FeatureImages features;  // the file's feature layers (render/image/exr_layers.h), where it has them
    uint32_t spp = 0;
};

// Reads `path` (an EXR of the render's size, read as --reference is) and checks it was written by a render
// of this identity with fewer samples than rs.spp; throws Error naming the file and what differs. The
// samples are its Noisy Image where it has one (a denoised file's R, G and B are not their mean), and
// the layers of `aovs` are read too. Every layer taken is checked as pkrt writes it: radiance finite
// and not negative, features finite; one NaN would spread through every later sample's mean.
ResumePoint read_resume_point(const std::string& path, const Scene& scene, const RenderSettings& rs,
                              const std::vector<Aov>& aovs);

// The mean of `prior` (prior_spp samples a pixel) and `later` (later_spp more), pixel by pixel.
Image combine_samples(const Image& prior, uint32_t prior_spp, const Image& later, uint32_t later_spp);
// The same for each feature.
FeatureImages combine_features(const FeatureImages& prior, uint32_t prior_spp, const FeatureImages& later,
                               uint32_t later_spp);

}  // namespace pkrt
