// Minimal fork-join over the cores pkrt may use: the CPU backend and the BVH build need nothing fancier, and a
// dependency-free helper keeps the host code portable.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace pkrt {

namespace detail {
inline std::atomic<unsigned> worker_limit{0};
}

// The threads host work may use (-j/--threads): the CPU backend, BVH builds, a sequence's writers.
// 0 gives back every core.
inline void set_worker_count(unsigned n) { detail::worker_limit = n; }

inline unsigned worker_count() {
    if (unsigned limit = detail::worker_limit.load()) return limit;
    unsigned n = std::thread::hardware_concurrency();
    return n == 0 ? 1 : n;
}

// Whether -j/--threads chose the count (then MPI ranks do not divide the host's cores among them).
inline bool worker_count_chosen() { return detail::worker_limit.load() != 0; }

// Calls fn(worker, begin, end) on contiguous chunks of [0, n) grabbed dynamically by `workers` threads.
template <class Fn> void parallel_chunks(size_t n, size_t chunk, Fn&& fn, unsigned workers = worker_count()) {
    if (n == 0) return;
    chunk = std::max<size_t>(1, chunk);
    workers = static_cast<unsigned>(std::min<size_t>(workers, (n + chunk - 1) / chunk));
    std::atomic<size_t> next{0};
    auto run = [&](unsigned w) {
        for (;;) {
            size_t begin = next.fetch_add(chunk);
            if (begin >= n) break;
            fn(w, begin, std::min(n, begin + chunk));
        }
    };
    if (workers <= 1) {
        run(0);
        return;
    }
    std::vector<std::thread> threads;
    threads.reserve(workers - 1);
    for (unsigned w = 1; w < workers; ++w) threads.emplace_back(run, w);
    run(0);
    for (auto& t : threads) t.join();
}

// Calls per_item(i) for each i in [0, n), in chunks of `chunk` in parallel: per-pixel passes over a whole
// image on the host (a 1540x1040 image's features resolved on one core took 28 ms of a viewer refresh).
template <class Fn>
void parallel_for(size_t n, Fn&& per_item, size_t chunk = 16384, unsigned workers = worker_count()) {
    parallel_chunks(
        n, chunk,
        [&](unsigned, size_t i0, size_t i1) {
            for (size_t i = i0; i < i1; ++i) per_item(i);
        },
        workers);
}

// Calls per_row(y) for each row y of an image `height` rows tall, rows in parallel (a few to a chunk).
template <class Fn> void parallel_rows(int height, Fn&& per_row, unsigned workers = worker_count()) {
    parallel_chunks(
        static_cast<size_t>(height), 4,
        [&](unsigned, size_t y0, size_t y1) {
            for (size_t y = y0; y < y1; ++y) per_row(static_cast<int>(y));
        },
        workers);
}

}  // namespace pkrt
