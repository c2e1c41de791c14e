#include "app/render_args.h"

#include <cmath>
#include <string>

#include "app/sequence_cli.h"
#include "render/adaptive.h"
#include "render/error.h"
#include "render/image/image.h"
#include "render/scene/render_limits.h"
#include "render/sequence.h"
#include "render/setup.h"

namespace pkrt {

namespace {

// --aov: features go to the EXR outputs (a sequence's: its first frame's names stand for them).
// --denoise: every feature, so that a denoised EXR can be resumed.
std::vector<Aov> check_feature_flags(const RenderArgs& a, const std::string& output, const std::string& hdr) {
    std::vector<Aov> aovs = a.denoise ? kAllAovs : std::vector<Aov>{};
    if (a.aov.empty()) return aovs;
    std::vector<Aov> asked = parse_aov_list(a.aov);
    if (image_extension(output) != ".exr" && image_extension(hdr) != ".exr")
        throw Error("--aov " + a.aov + ": the features are layers of an EXR: give -o or --hdr a .exr file");
    return a.denoise ? aovs : asked;
}

// --time-limit and --checkpoint: one image on one rank (a sequence writes each frame as it completes).
void check_long_render_flags(const RenderArgs& a, const Ranks& ranks, bool sequence) {
    const bool time_limit = a.time_limit_set && a.adaptive.time_limit_s > 0.0, checkpoint = a.checkpoint_s > 0.0;
    if (!std::isfinite(a.adaptive.time_limit_s) || a.adaptive.time_limit_s < 0.0)
        throw Error("--time-limit: must be a number of seconds, 0 or more (0: none)");
    if (!std::isfinite(a.checkpoint_s) || a.checkpoint_s < 0.0)
        throw Error("--checkpoint: must be a number of seconds, 0 or more (0: none)");
    const bool resume = !a.resume.empty();
    const char* flag = time_limit ? "--time-limit" : checkpoint ? "--checkpoint" : resume ? "--resume" : nullptr;
    if (!flag) return;
    if (sequence) throw Error(std::string(flag) + ": not with --frames (a sequence writes each frame as it completes)");
    if (ranks.size() > 1)
        throw Error(std::string(flag) + ": not supported across MPI ranks (" + std::to_string(ranks.size()) +
                    " ranks)");
    if ((checkpoint || resume) && a.target_error_set)
        throw Error(std::string(checkpoint ? "--checkpoint" : "--resume") +
                    ": not with --target-error (adaptive rounds write their image at the end)");
    if (resume) check_reference_path(a.resume, "--resume");
}

}  // namespace

CheckedRender check_render_args(const RenderArgs& a, const Ranks& ranks) {
    CheckedRender c;
    const bool lead = ranks.lead();
    const bool sequence = c.sequence = a.frames > 0 || !a.camera_path.empty();
    if (ranks.size() > 1) {
        const char* alone = a.target_error_set ? "--target-error"
                            : a.frames > 0     ? "--frames"
                            : sequence         ? "--camera-path"
                                               : nullptr;
        if (alone)
            throw Error(std::string(alone) + ": not supported across MPI ranks (" + std::to_string(ranks.size()) +
                        " ranks)");
    }
    if (sequence) check_sequence_flags(a.frames, a.camera_path, a.output, a.hdr);
    // A sequence's outputs are checked as its first frame's names.
    const std::string& output = c.output = sequence ? frame_path(a.output, 0) : a.output;
    const std::string& hdr = c.hdr = sequence && !a.hdr.empty() ? frame_path(a.hdr, 0) : a.hdr;
    if (lead) {
        check_output_path(output, kImageExtensions, "-o");
        if (!hdr.empty()) check_output_path(hdr, kLinearImageExtensions, "--hdr");
        if (!a.stats.empty()) check_output_path(a.stats, {".json"}, "--stats");
    }
    if (a.target_error_set) {
        if (a.spp_set) throw Error("--spp: not with --target-error (adaptive sampling takes --min-spp and --max-spp)");
        if (sequence) throw Error("--target-error: not with --frames (sequences sample every pixel alike)");
        check_adaptive_settings(a.adaptive, limits::kMaxSpp);
        // The CUDA backend's refusal, before the scene loads where the flags already say so (`--backend
        // auto` meets it once the backend is chosen).
        if (a.adaptive.method == AdaptiveMethod::proportional && a.backend == "cuda") throw Error(kProportionalCpuOnly);
        if (!a.spp_map.empty()) check_output_path(a.spp_map, {".png"}, "--spp-map");
    } else {
        const char* flag = a.min_spp_set         ? "--min-spp"
                           : a.max_spp_set       ? "--max-spp"
                           : a.adaptive_rule_set ? "--adaptive-rule"
                           : !a.spp_map.empty()  ? "--spp-map"
                                                 : nullptr;
        if (flag) throw Error(std::string(flag) + ": only with --target-error (adaptive sampling)");
    }
    if (!a.reference.empty() && sequence) throw Error("--reference: not with --frames (it measures one image)");
    check_long_render_flags(a, ranks, sequence);
    c.aovs = check_feature_flags(a, output, hdr);
    if (!a.reference.empty() && lead) check_reference_path(a.reference);
    if (!a.res.empty()) parse_resolution(a.res, &c.width, &c.height);
    if (!a.denoise && (!a.denoiser.empty() || !a.denoiser_weights.empty()))
        throw Error(std::string(a.denoiser.empty() ? "--denoiser-weights" : "--denoiser") + ": only with --denoise");
    if (a.denoise) c.denoiser = choose_denoiser(parse_denoiser_kind(a.denoiser), a.denoiser_weights);
    return c;
}

}  // namespace pkrt
