#include "render/denoise/denoiser_choice.h"

#include <filesystem>

#include "render/backend.h"
#include "render/data_dir.h"
#include "render/error.h"
#include "render/quote.h"

namespace pkrt {

std::string shipped_unet_weights() {
    const std::string path = weights_dir() + "/unet.pkrtunet";
    std::error_code ec;
    return std::filesystem::is_regular_file(path, ec) ? path : "";
}

DenoiserKind default_denoiser_kind() {
    return shipped_unet_weights().empty() ? DenoiserKind::kAtrous : DenoiserKind::kUnet;
}

DenoiserKind parse_denoiser_kind(const std::string& text, const std::string& flag) {
    if (text.empty()) return default_denoiser_kind();
    if (text == "atrous") return DenoiserKind::kAtrous;
    if (text == "unet") return DenoiserKind::kUnet;
    throw Error(flag + " '" + quote_input(text) + "': must be atrous (the a-trous filter) or unet (the learned one)");
}

DenoiserChoice choose_denoiser(DenoiserKind kind, const std::string& weights_path, const std::string& weights_flag) {
    DenoiserChoice c;
    c.kind = kind;
    if (kind == DenoiserKind::kAtrous) {
        if (!weights_path.empty()) throw Error(weights_flag + " " + weights_path + ": only with --denoiser unet");
        return c;
    }
    const std::string path = weights_path.empty() ? shipped_unet_weights() : weights_path;
    if (path.empty())
        throw Error("--denoiser unet: this pkrt ships no trained weights (" + weights_dir() +
                    "/unet.pkrtunet); give a weight file with " + weights_flag);
    try {
        c.weights = std::make_shared<const UnetWeights>(read_unet_weights(path));
    } catch (const Error& e) {
        throw Error(weights_path.empty() ? std::string(e.what()) : weights_flag + " " + e.what());
    }
    return c;
}

std::unique_ptr<Denoiser> make_chosen_denoiser(const Backend& backend, const DenoiserChoice& choice) {
    if (choice.kind == DenoiserKind::kUnet) return backend.make_unet_denoiser(*choice.weights);
    return backend.make_denoiser();
}

}  // namespace pkrt
