// The frame protocol's bookkeeping (render/backend.h), shared by every backend: tickets, the queue of
// outstanding frames, results kept until they are waited for. A backend supplies only the hooks.
#include "render/backend.h"
#include "render/error.h"

namespace pkrt {

FrameTicket Backend::submit(const FrameRequest& request) {
    const int cap = capacity(request.settings);
    int live = 0;
    for (const Outstanding& o : outstanding_) live += o.cancelled ? 0 : 1;
    if (live >= cap || outstanding() >= cap + (cap > 1 ? 1 : 0))
        throw Error("internal: a frame was submitted with " + std::to_string(outstanding()) +
                    " outstanding (capacity " + std::to_string(cap) + ")");
    FrameTicket ticket = next_ticket_++;
    start_frame(request);
    outstanding_.push_back(Outstanding{ticket, request, false});
    return ticket;
}

bool Backend::done(FrameTicket ticket) const {
    if (outstanding_.empty() || ticket < outstanding_.front().ticket) return true;
    if (ticket > outstanding_.back().ticket)
        throw Error("internal: ticket " + std::to_string(ticket) + " was never submitted");
    return frame_done(static_cast<int>(ticket - outstanding_.front().ticket));
}

void Backend::finish_oldest() {
    Outstanding o = std::move(outstanding_.front());
    FrameResult r;
    r.ticket = o.ticket;
    r.generation = o.request.generation;
    // Popped before the hook runs: an error leaves no frame outstanding that the backend dropped.
    outstanding_.pop_front();
    finish_frame(o.request, r);
    r.cancelled = r.cancelled || o.cancelled;
    r.gpu_timed = !r.stats.frame_gpu_ms.empty();
    for (double ms : r.stats.frame_gpu_ms) r.gpu_ms += ms;
    finished_.push_back(std::move(r));
}

FrameResult Backend::wait(FrameTicket ticket) {
    while (!outstanding_.empty() && outstanding_.front().ticket <= ticket) finish_oldest();
    while (!finished_.empty() && finished_.front().ticket < ticket) finished_.pop_front();  // never waited for
    if (finished_.empty() || finished_.front().ticket != ticket)
        throw Error("internal: ticket " + std::to_string(ticket) + " is not outstanding (waited for already?)");
    FrameResult r = std::move(finished_.front());
    finished_.pop_front();
    return r;
}

void Backend::cancel(uint32_t generation) {
    int through = -1;
    for (size_t i = 0; i < outstanding_.size(); ++i) {
        if (outstanding_[i].request.generation >= generation) break;  // generations only grow along the queue
        if (!outstanding_[i].cancelled) through = static_cast<int>(i);
    }
    if (through < 0) return;
    cancel_frames(through);
    for (int i = 0; i <= through; ++i) outstanding_[static_cast<size_t>(i)].cancelled = true;
}

void Backend::finish_outstanding() {
    while (!outstanding_.empty()) finish_oldest();
}

void Backend::drain() {
    finish_outstanding();
    finished_.clear();
    release_device();
}

void Backend::accumulate(const RenderSettings& settings, uint32_t first_sample, uint32_t samples, RenderStats& stats) {
    FrameRequest request;
    request.settings = settings;
    request.first_sample = first_sample;
    request.samples = samples;
    FrameResult r = wait(submit(request));
    stats.merge(r.stats);
}

void Backend::start_frame(const FrameRequest& request) {
    if (request.clear) reset(request.settings.width, request.settings.height);
}

void Backend::finish_frame(const FrameRequest& request, FrameResult& result) {
    if (request.adaptive_round) {
        begin_adaptive_round();
        result.step = end_adaptive_round(result.stats);
    } else {
        render_frame(request, result.stats);
    }
}

void Backend::render_frame(const FrameRequest&, RenderStats&) {
    throw Error("internal: " + name() + " backend runs frames through its own start_frame/finish_frame");
}

}  // namespace pkrt
