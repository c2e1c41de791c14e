// Which denoiser --denoise runs (--denoiser): the a-trous filter (kernels/denoise.h) or the learned U-Net
// (render/denoise/unet.h) with the weights pkrt ships or a weight file given with --denoiser-weights.
// The weights are read when the choice is made, before anything renders, so a bad file fails at once.
#pragma once

#include <memory>
#include <string>

#include "render/denoise/denoiser.h"
#include "render/denoise/unet_weights.h"

namespace pkrt {

class Backend;

enum class DenoiserKind { kAtrous, kUnet };

struct DenoiserChoice {
    DenoiserKind kind = DenoiserKind::kAtrous;
    std::shared_ptr<const UnetWeights> weights;  // kUnet's
};

// The weight file pkrt ships (weights_dir()/unet.pkrtunet), or "" where there is none.
std::string shipped_unet_weights();
// The U-Net where pkrt ships its weights, else the a-trous filter.
DenoiserKind default_denoiser_kind();
// "atrous" or "unet" (empty: the default); an Error naming `flag` otherwise.
DenoiserKind parse_denoiser_kind(const std::string& text, const std::string& flag = "--denoiser");
// `kind` with its weights read from `weights_path` (empty: the shipped file). Errors name the flag and
// the file: a path given with the a-trous filter, no shipped weights, a file the reader refuses.
DenoiserChoice choose_denoiser(DenoiserKind kind, const std::string& weights_path,
                               const std::string& weights_flag = "--denoiser-weights");
std::unique_ptr<Denoiser> make_chosen_denoiser(const Backend& backend, const DenoiserChoice& choice);

}  // namespace pkrt
