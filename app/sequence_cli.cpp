#include "app/sequence_cli.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/frame_writer.h"
#include "render/error.h"
#include "render/image/image.h"
#include "render/image/output_files.h"
#include "render/log.h"
#include "render/progress.h"
#include "render/sequence.h"
#include "render/stats.h"

namespace pkrt {

namespace {
constexpr int kMaxFrames = 100000;
}

void check_sequence_flags(int frames, const std::string& camera_path, const std::string& output,
                          const std::string& hdr) {
    if (frames <= 0 && !camera_path.empty()) throw Error("--camera-path " + camera_path + ": needs --frames N");
    if (frames > 0 && camera_path.empty())
        throw Error("--frames " + std::to_string(frames) + ": needs --camera-path orbit[:DEGREES] or a keyframe file");
    if (frames > kMaxFrames)
        throw Error("--frames " + std::to_string(frames) + ": must be between 1 and " + std::to_string(kMaxFrames));
    check_frame_pattern(output, "-o");
    if (!hdr.empty()) check_frame_pattern(hdr, "--hdr");
}

void check_frame_outputs(const std::string& image_pattern, const std::string& hdr_pattern, int frames,
                         const std::vector<SceneInput>& inputs) {
    // Every frame's names, not only the first's: frame 7 of -o k%d.png may be the key file k7.png.
    for (int i = 0; i < frames; ++i) {
        std::vector<OutputFile> frame = {{"-o", frame_path(image_pattern, i), {}}};
        if (!hdr_pattern.empty()) frame.push_back({"--hdr", frame_path(hdr_pattern, i), {}});
        check_outputs(frame, inputs);
    }
}

int run_sequence(Backend& backend, const Scene& scene, const RenderSettings& settings, const CameraPath& path,
                 int frames, const SequenceOutputs& out) {
    Progress progress("sequence", static_cast<uint64_t>(settings.width) * settings.height * settings.spp * frames,
                      "samples", progress_stream());
    auto t0 = std::chrono::steady_clock::now();
    std::atomic<int> written{0};
    RenderStats total;
    SequenceTiming timing;
    // Accumulations the writers are done with, for the render loop to fill again.
    std::mutex spares_mutex;
    std::vector<Accumulation> spares;
    auto spare = [&] {
        std::lock_guard<std::mutex> lock(spares_mutex);
        if (spares.empty()) return Accumulation{};
        Accumulation a = std::move(spares.back());
        spares.pop_back();
        return a;
    };
    double writing = 0.0;
    unsigned writers = 0;
    std::mutex denoiser_mutex;  // one denoiser (a GPU's buffers) for every writer
    {
        FrameWriter writer(frame_writer_threads());
        writers = writer.threads();
        total = render_sequence(
            backend, scene, settings, path, frames, &progress,
            [&](const SequenceFrame& f, RenderOutput& r) {
                // The writers divide the sums (the render loop only copies them out): at 512x512 and up the
                // division costs the loop more than the GPU's frame.
                writer.add([&out, &written, &spares_mutex, &spares, &denoiser_mutex, index = f.index,
                            acc = std::move(r.accumulation)]() mutable {
                    Image image = resolve_accumulation(acc);
                    FeatureImages features = out.aovs.empty() ? FeatureImages{} : resolve_features(acc);
                    {
                        std::lock_guard<std::mutex> lock(spares_mutex);
                        spares.push_back(std::move(acc));
                    }
                    Image noisy;
                    if (out.denoiser) {
                        std::lock_guard<std::mutex> lock(denoiser_mutex);
                        noisy = std::move(image);
                        image = out.denoiser->denoise(noisy, features);
                    }
                    // An EXR frame carries the features' layers (and, denoised, the render itself).
                    auto encode = [&](const std::string& path, const Look& look) {
                        return encode_output_image(path, image, look, {}, features, out.aovs,
                                                   out.denoiser ? &noisy : nullptr);
                    };
                    std::vector<OutputFile> files = {{"-o", frame_path(out.image_pattern, index), {}}};
                    files[0].bytes = encode(files[0].path, out.look);
                    if (!out.hdr_pattern.empty()) {
                        std::string hdr = frame_path(out.hdr_pattern, index);
                        files.push_back({"--hdr", hdr, encode(hdr, Look{})});
                    }
                    write_outputs(files, out.inputs);
                    ++written;
                });
            },
            &timing, false, spare);
        writer.finish();  // a frame that failed to write fails the sequence here
        writing = writer.busy_seconds();
    }
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!out.stats.empty()) {
        // The whole sequence's statistics, and where its time went (the same as the last line printed).
        nlohmann::json j = to_json(total);
        j["sequence"] = {
            {"frames", written.load()},
            {"seconds", seconds},
            {"frames_per_second", written.load() / (seconds > 0 ? seconds : 1e-9)},
            {"render_loop",
             {{"rendering_s", timing.render}, {"own_work_s", timing.host}, {"handing_to_writers_s", timing.done}}},
            {"writers", {{"threads", writers}, {"busy_s", writing}}}};
        write_outputs({{"--stats", out.stats, json_file_text(j)}}, out.inputs);
    }
    {
        log_info(
            "%d frames of %dx%d, %d spp in %.3f s: %.2f frames/s (image files included), %s mode, %llu kernel launches",
            written.load(), settings.width, settings.height, settings.spp, seconds,
            written.load() / (seconds > 0 ? seconds : 1e-9), total.mode.c_str(),
            static_cast<unsigned long long>(total.kernel_launches));
        // Which side set the pace: the GPU (render), the loop's own work, or the writers (done blocks
        // while every writer is busy).
        log_info(
            "render loop: %.0f ms rendering (queueing, waiting for frames), %.0f ms of its own work per frame, "
            "%.0f ms handing frames to the writers; writers busy %.0f ms of %u x %.0f ms",
            1e3 * timing.render, 1e3 * timing.host, 1e3 * timing.done, 1e3 * writing, writers, 1e3 * seconds);
        if (total.nonfinite_samples)
            log_warning("%llu samples were NaN or infinite and were dropped",
                        static_cast<unsigned long long>(total.nonfinite_samples));
        log_info("wrote %s .. %s%s%s", frame_path(out.image_pattern, 0).c_str(),
                 frame_path(out.image_pattern, frames - 1).c_str(), out.stats.empty() ? "" : ", ", out.stats.c_str());
    }
    return 0;
}

}  // namespace pkrt
