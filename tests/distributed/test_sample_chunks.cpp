// Chunks of samples (render/distributed/sample_chunks.h), what a render across MPI ranks hands out: their sizes,
// that they cover every sample once whoever takes them, and that backends which each accumulate some
// of them add up to one render of all of them. No MPI here (tests/distributed/test_mpi.cpp runs mpirun).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <thread>
#include <vector>

#include "render/backend.h"
#include "render/distributed/sample_chunks.h"
#include "tests/test_render_util.h"

using namespace pkrt;

TEST(SampleChunks, AboutFourAWorkerAtLeastOneSampleAtMostSixteenMillionPaths) {
    EXPECT_EQ(chunk_samples(8, 64 * 64, 2), 1u);
    EXPECT_EQ(chunk_samples(7, 48 * 40, 3), 1u);
    EXPECT_EQ(chunk_samples(64, 64 * 64, 2), 8u);
    EXPECT_EQ(chunk_samples(1000, 64 * 64, 2), 125u) << "rounded up: never more than four chunks a worker";
    EXPECT_EQ(chunk_samples(1, 64 * 64, 100), 1u);
    EXPECT_EQ(chunk_samples(1024, 1920 * 1080, 2), 8u) << "16M paths at most";
    EXPECT_EQ(chunk_samples(1024, 1920 * 1080, 2, 8 * (1 << 22)), 16u) << "or a pass of 8 GPUs";
    EXPECT_EQ(chunk_samples(4, 8192ull * 8192ull, 2), 1u) << "at least one sample, however large the image";
    EXPECT_EQ(chunk_samples(100, 0, 0), 25u) << "degenerate arguments still give a usable size";
}

TEST(SampleChunks, QueueHandsOutEverySampleOnceInOrder) {
    ChunkQueue q(10, 3, 2);
    std::vector<SampleChunk> got;
    for (int w : {0, 1, 1, 0, 1}) got.push_back(q.next(w));
    EXPECT_EQ(got[0].first, 0u);
    EXPECT_EQ(got[1].first, 3u);
    EXPECT_EQ(got[2].first, 6u);
    EXPECT_EQ(got[3].first, 9u);
    EXPECT_EQ(got[3].count, 1u) << "the last chunk holds what is left";
    EXPECT_EQ(got[4].count, 0u) << "then none";
    EXPECT_EQ(q.next(0).count, 0u);
    auto shares = q.shares();
    EXPECT_EQ(shares[0].chunks, 2u);
    EXPECT_EQ(shares[0].samples_per_pixel, 4u);
    EXPECT_EQ(shares[1].chunks, 2u);
    EXPECT_EQ(shares[1].samples_per_pixel, 6u);
    EXPECT_THROW(q.next(2), Error) << "a worker the queue was not made for";
}

TEST(SampleChunks, WorkersOnThreadsTakeDisjointChunksThatCoverAll) {
    const uint32_t spp = 1000;
    ChunkQueue q(spp, 7, 4);
    std::vector<std::vector<SampleChunk>> taken(4);
    std::vector<std::thread> threads;
    for (int w = 0; w < 4; ++w)
        threads.emplace_back([&, w] {
            for (SampleChunk c = q.next(w); c.count; c = q.next(w)) taken[w].push_back(c);
        });
    for (auto& t : threads) t.join();
    std::vector<int> hits(spp, 0);
    uint64_t chunks = 0;
    for (int w = 0; w < 4; ++w) {
        EXPECT_EQ(q.shares()[w].chunks, taken[w].size());
        for (const auto& c : taken[w])
            for (uint32_t s = c.first; s < c.first + c.count; ++s) ++hits[s];
        chunks += taken[w].size();
    }
    EXPECT_EQ(chunks, (spp + 6) / 7);
    for (uint32_t s = 0; s < spp; ++s) ASSERT_EQ(hits[s], 1) << "sample " << s;
}

// What the ranks of `mpirun -n 2` do, in one process: two backends take chunks from one queue as they
// come, their accumulations are added, and the sum is one render of all samples: every pixel's count
// exactly, its radiance up to float rounding (a pixel's samples are added in another order).
TEST(SampleChunks, AccumulationsOfChunksAddUpToOneRender) {
    Scene scene = pkrt_test::load_prepared(std::string(PKRT_SCENES_DIR) + "/cornell.json");
    const RenderSettings rs = pkrt_test::settings(40, 24, 13, 6, 3);
    RenderOutput single = render_image(*make_cpu_backend(1), scene, rs, nullptr);

    ChunkQueue q(rs.spp, chunk_samples(rs.spp, 40 * 24, 2), 2);
    std::vector<std::unique_ptr<Backend>> backends;
    std::vector<RenderStats> stats(2);
    for (int w = 0; w < 2; ++w) {
        backends.push_back(make_cpu_backend(1));
        backends[w]->set_scene(scene);
        backends[w]->reset(rs.width, rs.height);
    }
    std::vector<std::thread> threads;
    for (int w = 0; w < 2; ++w)
        threads.emplace_back([&, w] {
            for (SampleChunk c = q.next(w); c.count; c = q.next(w))
                accumulate_passes(*backends[w], rs, c.first, c.count, stats[w], nullptr);
        });
    for (auto& t : threads) t.join();
    Accumulation sum = backends[0]->accumulation(), other = backends[1]->accumulation();
    for (size_t i = 0; i < sum.sums.size(); ++i) sum.sums[i] += other.sums[i];
    for (size_t i = 0; i < sum.counts.size(); ++i) sum.counts[i] += other.counts[i];
    for (size_t i = 0; i < sum.counts.size(); ++i) ASSERT_EQ(sum.counts[i], 13u) << "pixel " << i;
    EXPECT_EQ(stats[0].samples + stats[1].samples, single.stats.samples);
    EXPECT_EQ(stats[0].extension_rays + stats[1].extension_rays, single.stats.extension_rays)
        << "the same paths, traced once each";
    EXPECT_EQ(stats[0].shadow_rays + stats[1].shadow_rays, single.stats.shadow_rays);
    Image image = resolve_accumulation(sum);
    double worst = 0;
    for (size_t i = 0; i < image.pixels.size(); ++i)
        for (int c = 0; c < 3; ++c) {
            float a = image.pixels[i][c], b = single.image.pixels[i][c];
            worst = std::max(worst, std::fabs(double(a) - b) / std::max(1e-3, std::fabs(double(b))));
        }
    EXPECT_LT(worst, 1e-5);
}
