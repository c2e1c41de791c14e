// Encodes and writes a sequence's frames on worker threads, so the GPU renders the next frames while
// the host compresses PNGs (zlib at 512x512 takes longer than the frame's render). At most `queued`
// frames wait, so memory stays bounded whatever the sequence's length. Each frame is still written
// whole or not at all (write_outputs); the first failure is rethrown by the next add() or by finish().
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace pkrt {

class FrameWriter {
public:
    explicit FrameWriter(unsigned threads);
    ~FrameWriter();  // waits for the frames already handed over (each is written whole or not at all)
    FrameWriter(const FrameWriter&) = delete;
    FrameWriter& operator=(const FrameWriter&) = delete;

    // Hands over one frame's work; blocks while the queue is full.
    void add(std::function<void()> write);
    // Waits until every frame handed over is written; rethrows the first failure.
    void finish();
    // Seconds the workers spent writing, all together (against threads() times the wall time: how busy).
    double busy_seconds();
    unsigned threads() const { return static_cast<unsigned>(threads_.size()); }

private:
    void worker();
    void rethrow_failure();

    std::mutex mutex_;
    std::condition_variable changed_;
    std::deque<std::function<void()>> queue_;
    size_t capacity_ = 0;
    int busy_ = 0;
    double busy_seconds_ = 0.0;
    bool closing_ = false;
    std::exception_ptr failure_;
    std::vector<std::thread> threads_;
};

// Workers for a sequence: the cores but one (the render loop's), at most 16.
unsigned frame_writer_threads();

}  // namespace pkrt
