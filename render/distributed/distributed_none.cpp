// A build without MPI: every run is a job of one. Under an MPI launcher with several ranks, each would
// render the whole image into the same files, so that is refused (by rank 0; the others keep quiet).
#include <cstdio>
#include <cstdlib>

#include "render/distributed/distributed.h"
#include "render/error.h"
#include "render/log.h"
#include "render/distributed/mpi_launcher.h"

namespace pkrt {

Ranks::Ranks(int*, char***) {
    MpiLauncher launcher = mpi_launcher();
    if (launcher.started && (launcher.size > 1 || launcher.rank > 0)) {
        error_ =
            "an MPI launcher started this pkrt as one of several ranks, but it was built without MPI "
            "(install libopenmpi-dev and build again)";
        quiet_ = launcher.rank != 0;
    }
}

Ranks::~Ranks() = default;

unsigned Ranks::cpu_threads(std::string*) const { return 0; }

bool Ranks::all_ok(int code) { return code == 0; }

void Ranks::print_error(const std::string& error) const {
    if (!quiet_ && !error.empty()) log_error("%s", error.c_str());
}

int Ranks::finish(int code, const std::string& error) {
    if (code != 0) print_error(error);
    return code;
}

void Ranks::abort(const std::string& error, int code) {
    print_error(error);
    std::exit(code);
}

std::string mpi_description() { return "not built (CMake found no MPI)"; }

std::string render_differences(Ranks&, const Scene&, const RenderSettings&) { return ""; }

RenderOutput render_across_ranks(Ranks&, Backend&, const Scene&, const RenderSettings&, Progress*) {
    throw Error("internal: a render across MPI ranks in a build without MPI");
}

}  // namespace pkrt
