// The flags every pkrt command takes: how much it says (-q, -v, --log-level; render/log.h) and how many
// host threads it uses (-j/--threads; render/cpu/parallel.h), shared by pkrt render, pkrt bench and
// pkrt-viewer.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "render/cpu/parallel.h"
#include "render/error.h"
#include "render/log.h"

namespace pkrt {

struct RunOptions {
    bool quiet = false, verbose = false;
    std::string log_level;  // empty: info, or what -q / -v say
    unsigned threads = 0;   // 0: every core
};

inline void add_run_options(CLI::App* app, RunOptions* o) {
    CLI::Option* q = app->add_flag("-q,--quiet", o->quiet, "Only warnings and errors (no progress or summary)");
    CLI::Option* v = app->add_flag("-v,--verbose", o->verbose, "Also debug messages (settings, timings, files)");
    CLI::Option* l = app->add_option("--log-level", o->log_level, "error, warning, info or debug (default: info)");
    q->excludes(v)->excludes(l);
    v->excludes(l);
    app->add_option("-j,--threads", o->threads,
                    "Host threads: CPU rendering, BVH builds, image writers (default: every core)")
        ->check(CLI::Range(1u, 4096u));
}

// Applies the options; `lead` false (an MPI rank other than 0) prints errors alone.
inline void apply_run_options(const RunOptions& o, bool lead = true) {
    LogLevel level = o.quiet ? LogLevel::kWarning : o.verbose ? LogLevel::kDebug : LogLevel::kInfo;
    if (!o.log_level.empty()) level = parse_log_level(o.log_level);
    set_log_level(lead ? level : LogLevel::kError);
    set_worker_count(o.threads);
}

}  // namespace pkrt
