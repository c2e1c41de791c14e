// Images that MTL statements imply but no file holds as pkrt samples it: derived from the loaded
// textures once, at load time, so the per-ray code reads one texture per material input as it does for
// glTF. Each derived image is a new scene texture (charged against the texel budget) and is made once
// per source image.
#pragma once

#include "render/scene/scene.h"

namespace pkrt {

// Whether an image reads as a tangent-space normal map (mostly blue, red and green around the middle)
// rather than a height map: MTL's bump is a height map, but exporters (Blender's) write normal maps there.
bool looks_like_normal_map(const TextureImage& image);

// An image whose alpha is the coverage `map_d` means: the image itself when it has an alpha channel
// (some texel below 255), else a copy whose alpha is its grey level. Levels of masks and height maps
// are the stored values (Rec. 709 weights where the channels differ).
int32_t coverage_image(Scene& scene, int32_t image);

// A tangent-space normal map (RGB = (n + 1) / 2, v up) from a height map (level in [0, 1]):
// central differences, a height of 1 being 1/64 of the texture's extent times `strength` (MTL -bm).
int32_t normal_map_from_height(Scene& scene, int32_t image, float strength);

// glTF's metal-rough packing (G = perceptual roughness, B = metallic) from a roughness map and a
// metallic map (either may be -1: that channel is 1, so the material's factor alone applies), each a
// grey level; sampled nearest at the larger of the two sizes.
int32_t pack_metal_rough(Scene& scene, int32_t roughness, int32_t metallic);

// The same packing from an MTL map_Ns (a grey level scaling the Phong exponent `ns`): G is the
// perceptual roughness of GGX alpha_from_phong_exponent(ns * level).
int32_t roughness_from_phong_map(Scene& scene, int32_t image, float ns);

}  // namespace pkrt
