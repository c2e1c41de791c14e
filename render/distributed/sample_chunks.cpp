#include "render/distributed/sample_chunks.h"

#include <algorithm>

#include "render/error.h"

namespace pkrt {

uint32_t chunk_samples(uint32_t spp, uint64_t pixels, int workers, uint64_t pass_paths) {
    const uint64_t wanted = 4 * static_cast<uint64_t>(std::max(1, workers));
    const uint64_t by_workers = (spp + wanted - 1) / wanted;
    const uint64_t by_paths = std::max(uint64_t{1} << 24, pass_paths) / std::max<uint64_t>(1, pixels);
    return static_cast<uint32_t>(std::max<uint64_t>(1, std::min(by_workers, by_paths)));
}

ChunkQueue::ChunkQueue(uint32_t spp, uint32_t chunk, int workers)
    : spp_(spp), chunk_(std::max(1u, chunk)), shares_(static_cast<size_t>(std::max(1, workers))) {}

SampleChunk ChunkQueue::next(int worker) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (worker < 0 || static_cast<size_t>(worker) >= shares_.size())
        throw Error("internal: a chunk for worker " + std::to_string(worker) + " of " + std::to_string(shares_.size()));
    SampleChunk c;
    if (next_ >= spp_) return c;
    c.first = next_;
    c.count = std::min(chunk_, spp_ - next_);
    next_ += c.count;
    ++shares_[worker].chunks;
    shares_[worker].samples_per_pixel += c.count;
    return c;
}

std::vector<ChunkQueue::Share> ChunkQueue::shares() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return shares_;
}

}  // namespace pkrt
