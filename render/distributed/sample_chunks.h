// A render's samples as chunks of whole samples per pixel, for workers that ask for the next one when
// they are done with the last (the ranks of `mpirun -n K pkrt render`, render/distributed/distributed.h). A chunk
// is the sample range [first, first + count) of every pixel; Backend::accumulate keeps sample indices
// counting, so however the chunks are spread over workers, their union is one render of all spp.
#pragma once

#include <cstdint>
#include <mutex>
#include <vector>

namespace pkrt {

struct SampleChunk {
    uint32_t first = 0, count = 0;  // count 0: none left
};

// Samples per pixel in a chunk: about four chunks a worker, so that a faster worker takes more of them
// and the last chunk to finish is short; at most about 16M paths, or one of the workers' passes where
// that is more (Backend::paths_per_pass: several GPUs want large passes), so that progress on a long
// render still moves; at least 1.
uint32_t chunk_samples(uint32_t spp, uint64_t pixels, int workers, uint64_t pass_paths = 0);

// Hands out [0, spp) in chunks, in order, to whichever worker asks; thread-safe. Counts what each took.
class ChunkQueue {
public:
    ChunkQueue(uint32_t spp, uint32_t chunk, int workers);
    SampleChunk next(int worker);

    struct Share {
        uint64_t chunks = 0;
        uint64_t samples_per_pixel = 0;
    };
    std::vector<Share> shares() const;
    uint32_t chunk() const { return chunk_; }

private:
    const uint32_t spp_, chunk_;
    mutable std::mutex mutex_;
    uint32_t next_ = 0;
    std::vector<Share> shares_;
};

}  // namespace pkrt
