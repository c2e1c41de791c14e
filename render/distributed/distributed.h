// Rendering across the ranks of an MPI job: `mpirun -n K pkrt render ...`. Rank 0 runs a work server (a
// thread of its own) that hands out chunks of samples (render/distributed/sample_chunks.h) to whichever rank asks
// next, rank 0 included; every rank accumulates its chunks on its own backend (a GPU of its host, or its
// share of the host's cores); the accumulations and counters are summed to rank 0, which alone prints
// and writes the outputs.
//
// MPI is in distributed_mpi.cpp, built where CMake finds MPI (distributed_none.cpp otherwise: a job of
// one), and starts only when an MPI launcher started pkrt (render/distributed/mpi_launcher.h).
//
// Failures. Up to the render every rank checks its flags and loads its scene on its own, then all agree
// (all_ok): any failure ends every rank with the first failing rank's exit status and one line from
// that rank. During the render a failure anywhere prints its line and ends the whole job (MPI_Abort),
// since the other ranks wait in MPI calls that would not return. A rank that dies is mpirun's to
// notice: it ends the job.
#pragma once

#include <cstdint>
#include <string>

#include "render/backend.h"

namespace pkrt {

class Ranks {
public:
    // Starts MPI (MPI_THREAD_MULTIPLE, for rank 0's work server) where an MPI launcher started this
    // process; otherwise a job of one that never touches MPI. What keeps MPI from being used (a thread
    // level below MPI_THREAD_MULTIPLE, a build without MPI under mpirun) is kept in error().
    Ranks(int* argc, char*** argv);
    ~Ranks();  // MPI_Finalize
    Ranks(const Ranks&) = delete;
    Ranks& operator=(const Ranks&) = delete;

    int rank() const { return rank_; }
    int size() const { return size_; }
    bool lead() const { return rank_ == 0; }  // prints and writes the outputs
    int hosts() const { return hosts_; }
    const std::string& host() const { return host_; }
    const std::string& error() const { return error_; }

    // This rank's CPU threads: its share of its host's cores (the ranks on a host split them), and no
    // more than the cores the launcher bound it to; 0 (all cores) without a launcher. `note` gets a
    // sentence where the binding holds the rank below its share.
    unsigned cpu_threads(std::string* note = nullptr) const;
    // Which of its host's CUDA devices this rank takes (its place among the host's ranks).
    unsigned device_slot() const { return static_cast<unsigned>(local_rank_); }

    // Collective: this rank's status so far (0: fine); true when every rank's is 0. A rank that fails
    // earlier goes straight to finish(), which is the same agreement, so the others still end with it.
    bool all_ok(int code);
    // Collective, the last MPI call of every rank: the job's exit status, that of the lowest-numbered
    // rank that failed (0 when none did), which prints `pkrt: error: [rank R: ]error` as the job's line.
    int finish(int code, const std::string& error);
    // `pkrt: error: rank R: error` and the end of the whole job (MPI_Abort) with `code`.
    [[noreturn]] void abort(const std::string& error, int code = 1);

private:
    struct Verdict {
        int first_failed = 0;  // size_: none
        int code = 0;
    };
    Verdict agree(int code);
    void print_error(const std::string& error) const;

    bool mpi_ = false;
    bool quiet_ = false;  // a rank that must not print even its failure (another rank says it)
    int rank_ = 0, size_ = 1, hosts_ = 1;
    int local_rank_ = 0, local_size_ = 1;
    std::string host_, error_;
    bool decided_ = false;  // all_ok found a failure: finish() must not agree a second time
    Verdict verdict_;
};

// "Open MPI v4.1.4", or why there is none.
std::string mpi_description();

// Collective, after all_ok: "" when every rank is about to render the same image (size, samples, depth,
// seed, triangles, materials, camera), else a sentence naming what differs. The reduction adds pixel to
// pixel, so a scene file that differs between hosts would blend two pictures.
std::string render_differences(Ranks& ranks, const Scene& scene, const RenderSettings& rs);

// Collective over all ranks, whose scene and settings must be the same (render_differences):
// renders rs.spp samples of every pixel in chunks (render/distributed/sample_chunks.h); on rank 0 the output holds
// the image of all of them and the statistics of all ranks (RenderStats::ranks), and `progress` (rank 0's,
// may be null) counts every rank's samples; other ranks return an empty output. Uniform sampling only.
// A failure on any rank ends the job (Ranks::abort).
RenderOutput render_across_ranks(Ranks& ranks, Backend& backend, const Scene& scene, const RenderSettings& rs,
                                 Progress* progress);

}  // namespace pkrt
