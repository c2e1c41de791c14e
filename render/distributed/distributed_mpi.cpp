// The MPI side of render/distributed/distributed.h. Every wait on another rank polls with short sleeps instead of
// blocking in MPI: Open MPI's blocking calls spin a core at full speed, and on a host that ranks share,
// that core is taken from the ranks still rendering.
#include <mpi.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "render/distributed/distributed.h"
#include "render/checkpoint.h"
#include "render/image/aov.h"
#include "render/error.h"
#include "render/log.h"
#include "render/distributed/mpi_launcher.h"
#include "render/cpu/parallel.h"
#include "render/progress.h"
#include "render/distributed/sample_chunks.h"

namespace pkrt {

namespace {

constexpr int kTagAsk = 1;    // rank -> 0: the spp of the chunk it finished (0: none yet); wants the next
constexpr int kTagGrant = 2;  // 0 -> rank: {first sample, count}; count 0: no chunk is left

void wait_without_spinning(MPI_Request& request, MPI_Status* status = MPI_STATUS_IGNORE) {
    auto pause = std::chrono::microseconds(20);
    for (;;) {
        int done = 0;
        MPI_Test(&request, &done, status);
        if (done) return;
        std::this_thread::sleep_for(pause);
        pause = std::min(pause * 2, std::chrono::microseconds(1000));
    }
}

void wait_for_all() {
    MPI_Request r;
    MPI_Ibarrier(MPI_COMM_WORLD, &r);
    wait_without_spinning(r);
}

// Rank 0's work server: answers every rank but itself (rank 0 takes its chunks from the queue directly)
// until each has been told that none is left; counts their finished chunks in progress.
void serve_chunks(ChunkQueue& queue, int size, uint64_t pixels, Progress* progress) {
    for (int open = size - 1; open > 0;) {
        uint32_t finished = 0;
        MPI_Request ask;
        MPI_Status status;
        MPI_Irecv(&finished, 1, MPI_UINT32_T, MPI_ANY_SOURCE, kTagAsk, MPI_COMM_WORLD, &ask);
        wait_without_spinning(ask, &status);
        if (progress && finished) progress->add(pixels * finished);
        SampleChunk c = queue.next(status.MPI_SOURCE);
        uint32_t grant[2] = {c.first, c.count};
        // The asking rank posted its receive before it asked: this send does not wait.
        MPI_Send(grant, 2, MPI_UINT32_T, status.MPI_SOURCE, kTagGrant, MPI_COMM_WORLD);
        if (c.count == 0) --open;
    }
}

// Sums every rank's `v` into rank 0's, a slice at a time (buffers of a few MiB whatever the image), in
// double: rank 0 gets each value's float parts added exactly and rounded once, so the result does not
// depend on the order in which MPI's reduction adds the ranks. It still differs from a single process's
// image by float rounding: that process summed each pixel's samples in another order.
void sum_to_lead(std::vector<float>& v, bool lead) {
    constexpr size_t kSlice = size_t{1} << 19;
    std::vector<double> mine(std::min(kSlice, v.size())), all(lead ? mine.size() : 0);
    for (size_t b = 0; b < v.size(); b += kSlice) {
        const size_t n = std::min(kSlice, v.size() - b);
        std::copy(v.begin() + b, v.begin() + b + n, mine.begin());
        MPI_Reduce(mine.data(), all.data(), static_cast<int>(n), MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        if (lead)
            std::transform(all.begin(), all.begin() + n, v.begin() + b, [](double x) { return static_cast<float>(x); });
    }
}

void sum_to_lead(std::vector<uint32_t>& v, bool lead) {
    constexpr size_t kSlice = size_t{1} << 20;
    for (size_t b = 0; b < v.size(); b += kSlice) {
        const int n = static_cast<int>(std::min(kSlice, v.size() - b));
        MPI_Reduce(lead ? MPI_IN_PLACE : v.data() + b, v.data() + b, n, MPI_UINT32_T, MPI_SUM, 0, MPI_COMM_WORLD);
    }
}

void sum_to_lead(std::vector<uint64_t>& v, bool lead) {
    MPI_Reduce(lead ? MPI_IN_PLACE : v.data(), v.data(), static_cast<int>(v.size()), MPI_UINT64_T, MPI_SUM, 0,
               MPI_COMM_WORLD);
}

uint64_t all_max(uint64_t v) {
    uint64_t m = 0;
    MPI_Allreduce(&v, &m, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    return m;
}

// Sums and counts apart (a backend may hand its accumulation over interleaved).
void split_interleaved(Accumulation& a) {
    if (a.rgba.empty()) return;
    const size_t n = static_cast<size_t>(a.width) * a.height;
    a.sums.resize(3 * n);
    a.counts.resize(n);
    for (size_t i = 0; i < n; ++i) {
        std::copy(&a.rgba[4 * i], &a.rgba[4 * i] + 3, &a.sums[3 * i]);
        a.counts[i] = static_cast<uint32_t>(a.rgba[4 * i + 3]);
    }
    a.rgba.clear();
    a.odd_sums.clear();
}

// The counters a render's summary and --stats add up over its samples; the scheduler statistics (frames
// and what follows them in RenderStats) stay rank 0's, as they describe one device's frames.
void sum_counters_to_lead(RenderStats& st, bool lead) {
    const size_t depths = static_cast<size_t>(all_max(st.extension_rays_by_depth.size()));
    std::vector<uint64_t> c = {st.samples, st.extension_rays, st.shadow_rays, st.nonfinite_samples};
    c.insert(c.end(), st.extension_rays_by_depth.begin(), st.extension_rays_by_depth.end());
    c.resize(4 + depths, 0);
    sum_to_lead(c, lead);
    if (!lead) return;
    st.samples = c[0];
    st.extension_rays = c[1];
    st.shadow_rays = c[2];
    st.nonfinite_samples = c[3];
    st.extension_rays_by_depth.assign(c.begin() + 4, c.end());
}

// What rank 0 learns of every rank besides its chunks: where it ran and how long it rendered.
struct RankRecord {
    double busy_seconds = 0.0;
    char host[64] = {};
    char device[128] = {};
};

std::vector<RankRecord> gather_records(const RankRecord& mine, int size, bool lead) {
    std::vector<RankRecord> all(lead ? size : 0);
    MPI_Gather(&mine, sizeof mine, MPI_BYTE, all.data(), sizeof mine, MPI_BYTE, 0, MPI_COMM_WORLD);
    return all;
}

void copy_text(char* to, size_t capacity, const std::string& from) { std::snprintf(to, capacity, "%s", from.c_str()); }

// A render's identity as numbers, with their names, for render_differences.
std::vector<std::pair<const char*, uint64_t>> render_identity(const Scene& scene, const RenderSettings& rs) {
    const uint64_t hash = camera_fingerprint(scene.camera);
    return {{"width", static_cast<uint64_t>(rs.width)},
            {"height", static_cast<uint64_t>(rs.height)},
            {"spp", static_cast<uint64_t>(rs.spp)},
            {"max depth", static_cast<uint64_t>(rs.max_depth)},
            {"seed", rs.seed},
            {"triangles", scene.source_triangles ? scene.source_triangles : scene.tris.size()},
            {"materials", scene.materials.size()},
            {"camera", hash}};
}

RenderOutput render_chunks(Ranks& ranks, Backend& backend, const Scene& scene, const RenderSettings& rs,
                           Progress* progress) {
    if (rs.adaptive || rs.preview != 1) throw Error("internal: a render across MPI ranks samples uniformly, full size");
    const bool lead = ranks.lead();
    const int size = ranks.size();
    RenderOutput out;
    out.stats = describe_render(backend, scene, rs);
    RenderStats& st = out.stats;
    backend.set_scene(scene);
    backend.set_camera(scene.camera);
    backend.set_features(rs.features);
    backend.reset(rs.width, rs.height);
    const uint64_t pixels = static_cast<uint64_t>(rs.width) * rs.height;
    const uint32_t spp = static_cast<uint32_t>(rs.spp);
    const uint32_t chunk = chunk_samples(spp, pixels, size, backend.paths_per_pass());  // rank 0's is the one used
    const auto t0 = std::chrono::steady_clock::now();

    RankRecord mine;
    auto render = [&](SampleChunk c, Progress* p) {
        auto b = std::chrono::steady_clock::now();
        accumulate_passes(backend, rs, c.first, c.count, st, p);
        mine.busy_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - b).count();
    };
    ChunkQueue queue(spp, chunk, size);  // rank 0's; the others ask rank 0 for theirs
    if (lead) {
        std::thread server([&] {
            try {
                serve_chunks(queue, size, pixels, progress);
            } catch (const std::exception& e) {
                ranks.abort(e.what());
            }
        });
        // A failure here must not unwind past the server thread (std::terminate): it ends the job.
        try {
            for (SampleChunk c = queue.next(0); c.count; c = queue.next(0)) render(c, progress);
        } catch (const std::bad_alloc&) {
            ranks.abort("out of memory");
        } catch (const std::exception& e) {
            ranks.abort(e.what());
        }
        server.join();
    } else {
        for (uint32_t finished = 0;;) {
            uint32_t grant[2] = {0, 0};
            MPI_Request granted;
            MPI_Irecv(grant, 2, MPI_UINT32_T, 0, kTagGrant, MPI_COMM_WORLD, &granted);
            MPI_Send(&finished, 1, MPI_UINT32_T, 0, kTagAsk, MPI_COMM_WORLD);
            wait_without_spinning(granted);
            if (grant[1] == 0) break;
            render(SampleChunk{grant[0], grant[1]}, nullptr);
            finished = grant[1];
        }
    }
    wait_for_all();  // the last chunk anywhere is done: the reductions below do not wait long

    Accumulation acc = backend.accumulation();
    split_interleaved(acc);
    const size_t n = static_cast<size_t>(pixels);
    if (acc.sums.size() != 3 * n || acc.counts.size() != n) throw Error("internal: an accumulation without its pixels");
    sum_to_lead(acc.sums, lead);
    sum_to_lead(acc.counts, lead);
    if (rs.features) {
        if (acc.features.size() != kFeatureFloats * n) throw Error("internal: an accumulation without its features");
        sum_to_lead(acc.features, lead);
    }
    // Odd-numbered samples' sums only where every rank's backend keeps them (the CPU does; a CUDA
    // backend only while it samples adaptively).
    int has_odd = acc.odd_sums.size() == 3 * n, all_have_odd = 0;
    MPI_Allreduce(&has_odd, &all_have_odd, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (all_have_odd) sum_to_lead(acc.odd_sums, lead);
    else acc.odd_sums.clear();
    sum_counters_to_lead(st, lead);
    copy_text(mine.host, sizeof mine.host, ranks.host());
    copy_text(mine.device, sizeof mine.device, backend.name() + ": " + backend.device());
    std::vector<RankRecord> records = gather_records(mine, size, lead);
    if (!lead) return RenderOutput{};

    // Conservation: the chunks covered every sample of every pixel exactly once.
    for (size_t i = 0; i < n; ++i)
        if (acc.counts[i] != spp)
            throw Error("internal: after the reduction pixel (" + std::to_string(i % rs.width) + ", " +
                        std::to_string(i / rs.width) + ") holds " + std::to_string(acc.counts[i]) + " samples, not " +
                        std::to_string(spp));
    out.image = resolve_accumulation(acc);
    if (rs.features) out.features = resolve_features(acc);
    st.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    st.chunk_spp = chunk;
    std::vector<ChunkQueue::Share> shares = queue.shares();
    for (int r = 0; r < size; ++r) {
        RenderStats::RankShare s;
        s.rank = r;
        s.host = records[r].host;
        s.device = records[r].device;
        s.chunks = shares[r].chunks;
        s.samples = shares[r].samples_per_pixel * pixels;
        s.busy_seconds = records[r].busy_seconds;
        st.ranks.push_back(s);
    }
    if (progress) progress->finish();
    return out;
}

}  // namespace

Ranks::Ranks(int* argc, char*** argv) {
    if (!mpi_launcher().started) return;
    int provided = 0;
    MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);  // a failure ends the process with MPI's message
    mpi_ = true;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    MPI_Comm local;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &local);
    MPI_Comm_rank(local, &local_rank_);
    MPI_Comm_size(local, &local_size_);
    MPI_Comm_free(&local);
    int first_on_host = local_rank_ == 0;
    MPI_Allreduce(&first_on_host, &hosts_, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    char name[MPI_MAX_PROCESSOR_NAME] = {};
    int length = 0;
    MPI_Get_processor_name(name, &length);
    host_.assign(name, static_cast<size_t>(std::max(0, length)));
    if (size_ > 1 && provided < MPI_THREAD_MULTIPLE)
        error_ = "this MPI library provides thread level " + std::to_string(provided) +
                 ", below MPI_THREAD_MULTIPLE, which rank 0's work server (a thread of its own) needs";
}

Ranks::~Ranks() {
    int finalized = 0;
    if (mpi_ && MPI_Finalized(&finalized) == MPI_SUCCESS && !finalized) MPI_Finalize();
}

unsigned Ranks::cpu_threads(std::string* note) const {
    if (!mpi_) return 0;
    const unsigned cores = worker_count(), ranks_here = static_cast<unsigned>(local_size_);
    const unsigned share =
        std::max(1u, cores / ranks_here + (static_cast<unsigned>(local_rank_) < cores % ranks_here ? 1u : 0u));
    unsigned bound = cores;
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) bound = static_cast<unsigned>(std::max(1, CPU_COUNT(&set)));
    if (bound < share && note)
        *note = "the launcher bound rank " + std::to_string(rank_) + " to " + std::to_string(bound) +
                " of its host's " + std::to_string(cores) + " cores, and the rank renders on " + std::to_string(bound) +
                " thread" + (bound == 1 ? "" : "s") +
                " (mpirun --bind-to none gives each rank its share of its host's cores)";
    return std::min(share, bound);
}

Ranks::Verdict Ranks::agree(int code) {
    // One collective for every outcome: the lowest failing rank and its status.
    int in[2] = {code != 0 ? rank_ : size_, code}, result[2] = {size_, 0};
    MPI_Request r;
    MPI_Iallreduce(in, result, 1, MPI_2INT, MPI_MINLOC, MPI_COMM_WORLD, &r);
    wait_without_spinning(r);
    return {result[0], result[1]};
}

bool Ranks::all_ok(int code) {
    if (size_ <= 1) return code == 0;
    Verdict v = agree(code);
    if (v.first_failed >= size_) return true;
    decided_ = true;
    verdict_ = v;
    return false;
}

void Ranks::print_error(const std::string& error) const {
    if (quiet_ || error.empty()) return;
    if (rank_ == 0) log_error("%s", error.c_str());
    else log_error("rank %d: %s", rank_, error.c_str());
}

int Ranks::finish(int code, const std::string& error) {
    if (size_ <= 1) {
        if (code != 0) print_error(error);
        return code;
    }
    Verdict v = decided_ ? verdict_ : agree(code);
    if (v.first_failed >= size_) return 0;
    if (v.first_failed == rank_) print_error(error);
    return v.code;
}

void Ranks::abort(const std::string& error, int code) {
    print_error(error);
    if (mpi_) MPI_Abort(MPI_COMM_WORLD, code);
    std::_Exit(code);
}

std::string mpi_description() {
    char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
    int length = 0;
    MPI_Get_library_version(version, &length);
    std::string v(version, static_cast<size_t>(std::max(0, length)));
    return v.substr(0, v.find_first_of(",\n"));
}

std::string render_differences(Ranks& ranks, const Scene& scene, const RenderSettings& rs) {
    if (ranks.size() <= 1) return "";
    auto identity = render_identity(scene, rs);
    std::vector<uint64_t> values, low(identity.size()), high(identity.size());
    for (const auto& [name, v] : identity) values.push_back(v);
    MPI_Allreduce(values.data(), low.data(), static_cast<int>(values.size()), MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(values.data(), high.data(), static_cast<int>(values.size()), MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    std::string differ;
    for (size_t i = 0; i < identity.size(); ++i) {
        if (low[i] == high[i]) continue;
        differ += differ.empty() ? "" : ", ";
        differ += identity[i].first;
        if (std::strcmp(identity[i].first, "camera") != 0)
            differ += " (" + std::to_string(values[i]) + " on rank 0, " + std::to_string(low[i]) + " to " +
                      std::to_string(high[i]) + " over all)";
    }
    if (differ.empty()) return "";
    return "the ranks would not render the same image: they differ in " + differ +
           " (every rank must read the same scene with the same flags)";
}

RenderOutput render_across_ranks(Ranks& ranks, Backend& backend, const Scene& scene, const RenderSettings& rs,
                                 Progress* progress) {
    try {
        return render_chunks(ranks, backend, scene, rs, progress);
    } catch (const std::bad_alloc&) {
        ranks.abort("out of memory");
    } catch (const std::exception& e) {
        ranks.abort(e.what());
    }
}

}  // namespace pkrt
