#include "render/sequence.h"

#include <chrono>
#include <deque>

#include "render/error.h"
#include "render/progress.h"

namespace pkrt {

namespace {

struct FrameNumber {
    size_t begin = 0, end = 0;  // the conversion's characters in the pattern
    int width = 0;              // zero-padded to this many digits (0: no padding)
};

// The one %d / %0Nd of a pattern; throws with what is wrong.
FrameNumber find_frame_number(const std::string& p, const std::string& what) {
    FrameNumber found;
    int count = 0;
    for (size_t i = 0; i < p.size(); ++i) {
        if (p[i] != '%') continue;
        if (i + 1 < p.size() && p[i + 1] == '%') {
            ++i;
            continue;
        }
        size_t j = i + 1;
        int width = 0;
        if (j < p.size() && p[j] == '0') {
            ++j;
            if (j < p.size() && p[j] >= '1' && p[j] <= '9') width = p[j++] - '0';
            else throw Error(what + ": %0 must be followed by a width of 1 to 9 digits, as in %04d");
        }
        if (j >= p.size() || p[j] != 'd')
            throw Error(what + ": only %d or %0Nd may stand for the frame number (%% for a literal %)");
        found = FrameNumber{i, j + 1, width};
        ++count;
        i = j;
    }
    if (count != 1) throw Error(what + ": must hold exactly one frame number, as in out_%04d.png");
    return found;
}

}  // namespace

void check_frame_pattern(const std::string& pattern, const std::string& flag) {
    find_frame_number(pattern, flag + " " + pattern);
}

std::string frame_path(const std::string& pattern, int frame) {
    FrameNumber n = find_frame_number(pattern, pattern);
    std::string digits = std::to_string(frame);
    if (static_cast<int>(digits.size()) < n.width) digits.insert(0, n.width - digits.size(), '0');
    std::string out;
    for (size_t i = 0; i < pattern.size(); ++i) {
        if (i == n.begin) {
            out += digits;
            i = n.end - 1;
        } else if (pattern[i] == '%' && i + 1 < pattern.size() && pattern[i + 1] == '%') {
            out += '%';
            ++i;
        } else {
            out += pattern[i];
        }
    }
    return out;
}

SequenceFrame sequence_frame(const CameraPath& path, int frames, uint32_t seed, int index) {
    return SequenceFrame{index, camera_at(path, index, frames), seed + static_cast<uint32_t>(index)};
}

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

void add_frame(RenderStats& total, const RenderStats& frame, int index) {
    if (index == 0) {
        total = frame;
        return;
    }
    total.merge(frame);
    total.seconds += frame.seconds;
}

// A backend that queues frames ahead (capacity above 1): every frame is one job, and the next one waits
// queued (behind the clear that starts its image) while the host resolves and writes the last, so the
// device never idles between frames.
RenderStats render_queued(Backend& backend, const Scene& scene, const RenderSettings& settings, const CameraPath& path,
                          int frames, Progress* progress,
                          const std::function<void(const SequenceFrame&, RenderOutput&)>& done, SequenceTiming& timing,
                          bool resolve, const std::function<Accumulation()>& spare) {
    struct Queued {
        SequenceFrame frame;
        RenderSettings settings;
        FrameTicket ticket = 0;
    };
    std::deque<Queued> queued;
    backend.set_scene(scene);
    auto begin = [&](int i) {
        auto t = Clock::now();
        Queued q{sequence_frame(path, frames, settings.seed, i), settings};
        q.settings.seed = q.frame.seed;
        backend.set_camera(q.frame.camera);
        FrameRequest request;
        request.settings = q.settings;
        request.samples = static_cast<uint32_t>(settings.spp);
        request.clear = true;
        request.generation = static_cast<uint32_t>(i);
        q.ticket = backend.submit(request);
        queued.push_back(q);
        timing.render += since(t);
    };
    const int depth = backend.capacity(settings);
    const uint64_t pixels = static_cast<uint64_t>(settings.width) * settings.height;
    RenderStats total;
    int next = 0;
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < frames; ++i) {
        while (next < frames && static_cast<int>(queued.size()) < depth) begin(next++);
        Queued q = queued.front();
        queued.pop_front();
        RenderOutput out;
        out.stats = describe_render(backend, scene, q.settings);
        auto t = Clock::now();
        out.stats.merge(backend.wait(q.ticket).stats);
        timing.render += since(t);
        t = Clock::now();
        if (resolve) {
            out.image = backend.resolve();
        } else {
            if (spare) out.accumulation = spare();
            backend.accumulation(out.accumulation);
        }
        timing.host += since(t);
        auto t1 = std::chrono::steady_clock::now();
        out.stats.seconds = std::chrono::duration<double>(t1 - t0).count();  // since the last frame ended
        t0 = t1;
        if (next < frames) begin(next++);  // queued before the host's own work on this frame
        if (progress) progress->add(pixels * static_cast<uint64_t>(settings.spp));
        add_frame(total, out.stats, i);
        t = Clock::now();
        done(q.frame, out);
        timing.done += since(t);
    }
    return total;
}

}  // namespace

RenderStats render_sequence(Backend& backend, const Scene& scene, const RenderSettings& settings,
                            const CameraPath& path, int frames, Progress* progress,
                            const std::function<void(const SequenceFrame&, RenderOutput&)>& done,
                            SequenceTiming* timing, bool resolve, const std::function<Accumulation()>& spare) {
    RenderStats total;
    SequenceTiming local;
    SequenceTiming& time = timing ? *timing : local;
    // Frames queued ahead hand over their packed images, which carry no features: with them, one at a time.
    backend.set_queue_ahead(!settings.features);
    struct QueueAheadOff {
        Backend& b;
        ~QueueAheadOff() {
            try {
                b.set_queue_ahead(false);
            } catch (...) {  // a failure on the way out is the one already being reported
            }
        }
    } off{backend};
    if (backend.capacity(settings) > 1) {
        total = render_queued(backend, scene, settings, path, frames, progress, done, time, resolve, spare);
    } else {
        for (int i = 0; i < frames; ++i) {
            SequenceFrame f = sequence_frame(path, frames, settings.seed, i);
            RenderSettings rs = settings;
            rs.seed = f.seed;
            auto t = Clock::now();
            RenderOutput out = render_view(backend, scene, f.camera, rs, progress, resolve,
                                           !resolve && spare ? spare() : Accumulation{});
            double whole = since(t);
            time.render += out.stats.seconds;  // render_view's own clock stops before its resolve
            time.host += whole - out.stats.seconds;
            add_frame(total, out.stats, i);
            t = Clock::now();
            done(f, out);
            time.done += since(t);
        }
    }
    if (progress) progress->finish();
    total.seed = settings.seed;
    return total;
}

}  // namespace pkrt
