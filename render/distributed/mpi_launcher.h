// Whether an MPI launcher (mpirun, mpiexec; srun and prterun through PMIx) started this process, read
// from the variables the launcher gives its processes. Project rule: behaviour is chosen by flags, never
// by the environment. This is the one exception: the launcher's variables are how a process learns,
// before MPI starts, that it is one rank of several, and a plain `pkrt render` must not start MPI.
#pragma once

#include <cstdlib>

namespace pkrt {

struct MpiLauncher {
    bool started = false;  // a launcher started this process
    int rank = 0;          // this process's rank, 0 where unknown
    int size = 0;          // ranks in the job, 0 where the launcher does not say before MPI starts
};

inline MpiLauncher mpi_launcher() {
    auto number = [](const char* name) {
        const char* v = std::getenv(name);
        if (v == nullptr || *v == '\0') return -1;
        char* end = nullptr;
        long n = std::strtol(v, &end, 10);
        return *end != '\0' || n < 0 || n > (1 << 30) ? -1 : static_cast<int>(n);
    };
    // Open MPI's own; PMIx's, which every PMIx launcher sets.
    const int ompi_rank = number("OMPI_COMM_WORLD_RANK"), ompi_size = number("OMPI_COMM_WORLD_SIZE");
    const int pmix_rank = number("PMIX_RANK");
    MpiLauncher l;
    l.started = ompi_rank >= 0 || ompi_size >= 0 || pmix_rank >= 0;
    l.rank = ompi_rank >= 0 ? ompi_rank : pmix_rank >= 0 ? pmix_rank : 0;
    l.size = ompi_size > 0 ? ompi_size : 0;
    return l;
}

}  // namespace pkrt
