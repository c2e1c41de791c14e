#include "app/frame_writer.h"

#include <algorithm>

#include "render/cpu/parallel.h"

namespace pkrt {

unsigned frame_writer_threads() {
    unsigned cores = worker_count();
    return std::clamp(cores > 1 ? cores - 1 : 1u, 1u, 16u);
}

FrameWriter::FrameWriter(unsigned threads) : capacity_(2 * static_cast<size_t>(std::max(threads, 1u))) {
    for (unsigned i = 0; i < std::max(threads, 1u); ++i) threads_.emplace_back([this] { worker(); });
}

FrameWriter::~FrameWriter() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        closing_ = true;
    }
    changed_.notify_all();
    for (std::thread& t : threads_) t.join();
}

void FrameWriter::rethrow_failure() {
    if (failure_) std::rethrow_exception(failure_);
}

void FrameWriter::add(std::function<void()> write) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [this] { return queue_.size() < capacity_ || failure_; });
    rethrow_failure();
    queue_.push_back(std::move(write));
    changed_.notify_all();
}

void FrameWriter::finish() {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [this] { return (queue_.empty() && busy_ == 0) || failure_; });
    rethrow_failure();
}

double FrameWriter::busy_seconds() {
    std::lock_guard<std::mutex> lock(mutex_);
    return busy_seconds_;
}

void FrameWriter::worker() {
    for (;;) {
        std::function<void()> job;
        {
            std::unique_lock<std::mutex> lock(mutex_);
            changed_.wait(lock, [this] { return !queue_.empty() || closing_; });
            if (queue_.empty()) return;  // closing, and nothing left
            job = std::move(queue_.front());
            queue_.pop_front();
            ++busy_;
        }
        changed_.notify_all();  // room in the queue for a waiting add()
        std::exception_ptr failed;
        auto start = std::chrono::steady_clock::now();
        try {
            if (!failure_) job();  // after a failure the rest are dropped: the sequence has failed
        } catch (...) {
            failed = std::current_exception();
        }
        double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        {
            std::lock_guard<std::mutex> lock(mutex_);
            --busy_;
            busy_seconds_ += took;
            if (failed && !failure_) failure_ = failed;
        }
        changed_.notify_all();
    }
}

}  // namespace pkrt
