// A backend turns a prepared scene into accumulated radiance. The CPU backend runs the per-ray code on
// all cores; the CUDA backend runs the same code under a choice of GPU schedulers. Work is asked for in
// passes of whole samples per pixel, so the CLI can show progress and the viewer can render
// progressively; sample indices keep counting across passes, so N passes of k samples give exactly the
// image of one pass of N*k samples.
#pragma once

#include <algorithm>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "render/adaptive.h"
#include "render/devices.h"
#include "render/display_image.h"
#include "render/image/image.h"
#include "render/mode.h"
#include "render/scene/scene.h"
#include "render/scheduler_options.h"
#include "render/stats.h"

namespace pkrt {

class Progress;
class Denoiser;      // render/denoise/denoiser.h
class ViewDenoiser;  // render/denoise/view_denoiser.h
struct UnetWeights;  // render/denoise/unet_weights.h

struct RenderSettings {
    int width = 512, height = 512;
    int spp = 16;
    int max_depth = 8;
    uint32_t seed = 0;
    std::optional<SchedulerMode> mode;  // GPU scheduler; none = the backend's default (the CPU has none)
    // Above 1, a preview: the frame renders the image at 1/preview of its width and height, and every
    // reading of the accumulation (display, resolve, counts) shows each of its pixels as a preview x
    // preview block. A preview is the only frame of its image (the viewer's first after a camera move).
    int preview = 1;
    // The accumulation keeps feature buffers too (kernels/features.h; Backend::set_features), and
    // render_view resolves them (RenderOutput::features).
    bool features = false;
    // Set: adaptive sampling (render/adaptive.h) in place of spp samples of every pixel.
    std::optional<AdaptiveSettings> adaptive;
};

// One frame of work as a caller submits it (Backend::submit): samples [first_sample, first_sample +
// samples) of every pixel, or the next adaptive round (Backend::begin_adaptive).
struct FrameRequest {
    RenderSettings settings;
    uint32_t first_sample = 0, samples = 0;
    // The frame starts a new image: the accumulation is cleared to settings' width x height before its
    // samples. Behind frames still outstanding where the backend queues several; else at once.
    bool clear = false;
    // The image (view) the frame belongs to: cancel(generation) stops the frames of older ones.
    uint32_t generation = 0;
    bool adaptive_round = false;  // the next of begin_adaptive()'s rounds (settings and samples unused)
};

// Tickets count up from 1 in submission order; frames end in that order.
using FrameTicket = uint64_t;

struct FrameResult {
    FrameTicket ticket = 0;
    uint32_t generation = 0;
    RenderStats stats;       // this frame's counters alone
    bool cancelled = false;  // stopped before all its samples (cancel(), interrupt()): the image is partial
    double gpu_ms = 0.0;     // the frame's device time where the backend measures one (gpu_timed)
    bool gpu_timed = false;
    AdaptiveStep step;  // an adaptive round's outcome
};

// As a DisplayImage (render/display_image.h) a backend is its accumulation for display: the last finished
// frame's image, in host memory (finished_rgba) where it keeps one (queue ahead), until the next wait().
//
// The frame protocol, shaped like a job queue, for every backend and scheduler: submit() a frame and
// get a ticket; done() polls it, wait() blocks for it and returns its result; cancel() stops the frames
// of an old view; drain() finishes everything and leaves the device free. Up to capacity() frames may
// be outstanding: 1 where a frame runs at a time (then submit() may already do the work, and wait()
// only hands over the result), more where a kernel outlives frames and takes them from a queue. The
// last finished frame's image is what resolve(), accumulation(), sample_counts() and the copies show.
class Backend : public DisplayImage {
public:
    virtual ~Backend() = default;
    virtual std::string name() const = 0;
    virtual std::string device() const = 0;
    // Uploads or references the scene, and takes its camera; the scene must outlive the backend's use of it.
    virtual void set_scene(const Scene& scene) = 0;
    // The camera of the frames submitted from now on (the viewer moves it; the scene stays as loaded).
    void set_camera(const CameraSpec& camera) { camera_ = camera; }
    const CameraSpec& camera() const { return camera_; }
    // Clears the framebuffer to width x height (after draining the frames outstanding, where the size
    // changes or the backend cannot clear behind them).
    virtual void reset(int width, int height) = 0;
    // On: from the next reset(), the accumulation keeps feature sums beside the radiance
    // (kernels/features.h, Accumulation::features): what --aov writes and the denoiser reads.
    virtual void set_features(bool on) = 0;

    FrameTicket submit(const FrameRequest& request);
    // Never blocks: the frame has ended (wait() would not block).
    bool done(FrameTicket ticket) const;
    // Blocks until the frame ends (and every frame before it: their results wait for their own wait()).
    FrameResult wait(FrameTicket ticket);
    // Stops the outstanding frames of generations older than `generation`: they end soon, in order,
    // with their samples so far, marked cancelled.
    void cancel(uint32_t generation);
    // Frames of one image that may be outstanding at once for frames of these settings (at least 1).
    // Above 1, frames that cancel() stopped leave room for one more: a new view queued behind them.
    int capacity(const RenderSettings& settings) const { return std::max(1, max_outstanding(settings)); }
    // Frames of these settings keep a kernel on the device between them (resident): a caller that
    // alternates settings would end and restart it at every frame, so it runs such frames apart.
    virtual bool holds_device(const RenderSettings& settings) const {
        (void)settings;
        return false;
    }
    // Adaptive rounds one at a time (begin_adaptive, FrameRequest::adaptive_round) run with these
    // settings; where not, only accumulate_adaptive runs them (the kernel plans its rounds itself).
    virtual bool rounds_one_at_a_time(const RenderSettings& settings) const {
        (void)settings;
        return true;
    }
    int outstanding() const { return static_cast<int>(outstanding_.size()); }
    // The oldest outstanding frame's ticket, 0 when none is.
    FrameTicket oldest() const { return outstanding_.empty() ? 0 : outstanding_.front().ticket; }
    // Ends every outstanding frame (their results are dropped) and leaves the device with no kernel
    // running, so the caller may register display resources, change mode or size, or quit.
    void drain();
    // submit() and wait() in one, the counters added to stats.
    void accumulate(const RenderSettings& settings, uint32_t first_sample, uint32_t samples, RenderStats& stats);
    // The caller keeps frames queued ahead and reads each finished frame's image while later ones
    // render: the backend then keeps that image apart from the framebuffer (finished_rgba()) and may
    // offer a capacity above 1. Off: one frame at a time.
    virtual void set_queue_ahead(bool on) { (void)on; }
    // From another thread: asks the frame being waited for to stop soon; its image is then partial.
    virtual void interrupt() {}

    // Adaptive sampling on a reset framebuffer: rounds of samples for the tiles that need them
    // (kernels/adaptive.h) until none does, or the time limit passes; `report` says how it went and
    // progress (may be null) counts converged pixels. By default the rounds below, one after another.
    virtual void accumulate_adaptive(const RenderSettings& settings, const AdaptiveSettings& adaptive,
                                     AdaptiveReport& report, RenderStats& stats, Progress* progress);
    // The same rounds one at a time, for a frame loop (the viewer): begin_adaptive() on a reset
    // framebuffer; then rounds, each a frame submitted with adaptive_round (its result's step says
    // whether there are `more`); then end_adaptive(), after which the accumulation holds every sample,
    // as after accumulate_adaptive. Between rounds accumulation() and the display hold every sample so
    // far. A reset() ends the rounds unfinished. Settings that cannot run them (the capacity of a
    // kernel that queues its own rounds) are refused in begin_adaptive() with an Error.
    virtual void begin_adaptive(const RenderSettings& settings, const AdaptiveSettings& adaptive) = 0;
    virtual void end_adaptive() = 0;
    // Mean radiance per pixel.
    Image resolve() const { return resolve_accumulation(accumulation()); }
    // The sums and counts resolve() divides, copied out as they are (cheap: no pass over the pixels
    // where the backend already holds them in host memory), into `out`'s vectors (their memory is
    // reused: fresh pages cost more than the copy).
    virtual void accumulation(Accumulation& out) const = 0;
    Accumulation accumulation() const {
        Accumulation a;
        accumulation(a);
        return a;
    }
    // Samples completed per pixel (the conservation checks read it).
    virtual std::vector<uint32_t> sample_counts() const = 0;
    // How many paths render_view() asks for in one accumulate(): enough to keep every device busy,
    // few enough that progress moves.
    virtual uint64_t paths_per_pass() const { return uint64_t{1} << 20; }
    // A denoiser on this backend's device (render/denoise/denoiser.h): by default the CPU's.
    virtual std::unique_ptr<Denoiser> make_denoiser() const;
    // The learned denoiser with these weights on this backend's device: by default the CPU's.
    virtual std::unique_ptr<Denoiser> make_unet_denoiser(const UnetWeights& weights) const;
    // The viewer's denoised view of this backend's images (render/denoise/view_denoiser.h): by default
    // read back, blended on the CPU and filtered by make_denoiser()'s.
    virtual std::unique_ptr<ViewDenoiser> make_view_denoiser() const;
    // Scheduler modes this backend offers; the first is the default. None on the CPU.
    virtual std::vector<SchedulerMode> modes() const { return {}; }
    // What runs a frame of these settings: a mode's name, or the backend's single way ("cpu-threads").
    std::string mode_label(const RenderSettings& settings) const;

protected:
    // What a backend implements under the protocol. start_frame queues the frame (or, by default,
    // keeps it for finish_frame); finish_frame waits for the oldest started frame, which `request`
    // describes, and fills in its counters, step and whether it was cancelled. By default the frame
    // runs in finish_frame through render_frame and the adaptive round hooks.
    virtual void start_frame(const FrameRequest& request);
    virtual void finish_frame(const FrameRequest& request, FrameResult& result);
    // The outstanding frame at `position` (0: the oldest) has ended.
    virtual bool frame_done(int position) const {
        (void)position;
        return true;
    }
    // Stops the outstanding frames at positions 0..through.
    virtual void cancel_frames(int through) { (void)through; }
    virtual int max_outstanding(const RenderSettings& settings) const {
        (void)settings;
        return 1;
    }
    // drain()'s second half: no kernel outlives this call.
    virtual void release_device() {}
    // Ends every outstanding frame (their results wait for their wait()) and keeps the device as it
    // is: for a backend whose buffers or scene change under its frames.
    void finish_outstanding();
    // A synchronous frame, for backends that keep the default start/finish_frame.
    virtual void render_frame(const FrameRequest& request, RenderStats& stats);
    virtual void begin_adaptive_round() = 0;
    virtual AdaptiveStep end_adaptive_round(RenderStats& stats) = 0;

    CameraSpec camera_;

private:
    struct Outstanding {
        FrameTicket ticket = 0;
        FrameRequest request;
        bool cancelled = false;
    };
    void finish_oldest();
    std::deque<Outstanding> outstanding_;
    std::deque<FrameResult> finished_;  // ended, not yet waited for (oldest first)
    FrameTicket next_ticket_ = 1;
};

// The frame record of `samples` samples of every pixel from `first_sample` on (kernels/frame.h).
FrameRecord make_frame_record(const CameraSpec& camera, int width, int height, const RenderSettings& settings,
                              uint32_t first_sample, uint32_t samples, uint32_t epoch);

struct BackendOptions {
    std::string kind = "auto";     // auto | cpu | cuda
    std::vector<std::string> set;  // scheduler settings, `--set key=value` (render/scheduler_options.h)
    // CUDA devices, `--devices`: "" (the first, or an MPI rank's own: device_slot), "all", or indices "0,1,..." (an index twice: two
    // workers on that GPU). More than one: one image on all of them (render/cuda/multi_gpu_backend.cpp).
    std::string devices;
    unsigned cpu_threads = 0;  // the CPU backend's threads; 0: all cores
    unsigned device_slot =
        0;  // without `devices`: the device at this place, modulo the devices found (MPI ranks on a host take one each)
};

// The devices `spec` (BackendOptions::devices) names among `available`; an Error names the flag and
// what is wrong (an index out of range, a malformed list, no devices). An empty spec: the device at
// `slot` (BackendOptions::device_slot, modulo the devices found), or none where none is available.
std::vector<GpuDevice> pick_devices(const std::string& spec, const std::vector<GpuDevice>& available,
                                    unsigned slot = 0);

// "auto" picks CUDA when a device is usable, else the CPU; `why` receives a sentence saying which and
// why. "cuda" without a device throws Error with the reason, and so do settings the chosen backend
// cannot take (the CPU has no scheduler).
std::unique_ptr<Backend> make_backend(const BackendOptions& options, std::string* why);
// The mode a backend runs when none is asked for (none on the CPU).
inline std::optional<SchedulerMode> default_mode(const Backend& backend) {
    auto m = backend.modes();
    return m.empty() ? std::nullopt : std::optional<SchedulerMode>(m.front());
}

// The modes of a backend, or an error naming the flag when `mode` is not one of them.
void check_mode(const Backend& backend, SchedulerMode mode, const std::string& flag = "--mode");

std::unique_ptr<Backend> make_cpu_backend(unsigned threads = 0);

struct RenderOutput {
    Image image;                // empty where the caller asked for the accumulation instead
    Accumulation accumulation;  // the same, undivided (render_view with resolve = false)
    FeatureImages features;     // resolved where the settings keep features (with the image), else empty
    RenderStats stats;
};

// The statistics' description of a render (backend, mode, size, scene), before any counts.
RenderStats describe_render(const Backend& backend, const Scene& scene, const RenderSettings& settings);
// What a long render does between its passes, so that it is never lost (pkrt render --time-limit,
// --checkpoint, SIGUSR1): every pixel has the same samples at a pass's end, so the image then is whole.
struct PassControl {
    double time_limit_s = 0.0;             // stop after the pass that passes it (0: none)
    double checkpoint_s = 0.0;             // a checkpoint after the pass that passes each multiple of it (0: none)
    std::function<bool()> checkpoint_now;  // polled after each pass: a checkpoint asked for (SIGUSR1)
    // The image so far, `spp` samples a pixel, and its features where the settings keep them (else empty
    // images); not called after the last pass: the render's end is.
    std::function<void(const Image& image, const FeatureImages& features, uint32_t spp)> checkpoint;
    // A resumed render (render/checkpoint.h): `prior` holds samples [0, first_sample) of every pixel; the
    // render takes the samples from first_sample on, and its image (and each checkpoint's) is both. So do
    // the features, where the settings keep them.
    uint32_t first_sample = 0;
    Image prior;
    FeatureImages prior_features;
};
// Samples [first_sample, first_sample + samples) of every pixel in passes of about a million paths, each
// counted in progress (may be null) as it ends. Returns the samples a pixel got: fewer where control's
// time limit stopped it.
uint32_t accumulate_passes(Backend& backend, const RenderSettings& settings, uint32_t first_sample, uint32_t samples,
                           RenderStats& stats, Progress* progress, const PassControl* control = nullptr);
// The whole render: reset, passes of samples with progress, resolve. progress and control may be null;
// where a time limit stopped it, stats.spp says the samples each pixel got and stats.time_limit_hit is set.
RenderOutput render_image(Backend& backend, const Scene& scene, const RenderSettings& settings, Progress* progress,
                          const PassControl* control = nullptr);
// The same from another camera, leaving `progress` open (a sequence counts all its frames in one).
// resolve = false: the output's accumulation instead of its image, in `spare`'s memory.
RenderOutput render_view(Backend& backend, const Scene& scene, const CameraSpec& camera, const RenderSettings& settings,
                         Progress* progress, bool resolve = true, Accumulation spare = {},
                         const PassControl* control = nullptr);

}  // namespace pkrt
