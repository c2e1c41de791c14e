// pkrt: the command-line renderer. `pkrt render` renders a scene to PNG (and optionally linear HDR
// and JSON statistics); `pkrt info` lists devices and the build configuration.
#include <cstdio>
#include <string>
#include <utility>

#include <CLI/CLI.hpp>

#include "app/bench.h"
#include "app/strict_options.h"
#include "app/info.h"
#include "app/render_command.h"
#include "app/run_options.h"
#include "render/distributed/distributed.h"
#include "render/error.h"
#include "render/image/output_files.h"
#include "render/scheduler_options.h"

#ifndef PKRT_VERSION
#define PKRT_VERSION "0.1.0"
#endif

namespace {

// The command line, run; a failure's message goes to `error` (main() prints it, once for the whole
// job under mpirun) and its exit status is returned.
int run_command(int argc, char** argv, pkrt::Ranks& ranks, std::string& error) {
    if (!ranks.error().empty()) {
        error = ranks.error();
        return 1;
    }
    CLI::App app{"pkrt: a path tracer with a persistent-kernel GPU scheduler"};
    app.require_subcommand(1);
    app.set_version_flag("--version", PKRT_VERSION);

    pkrt::RenderArgs ra;
    CLI::App* render = pkrt::add_render_command(app, &ra);

    CLI::App* info = app.add_subcommand("info", "List CUDA devices and the build configuration");
    CLI::App* help_settings = app.add_subcommand("help-settings", "List the scheduler settings that --set takes");

    pkrt::BenchArgs ba;
    CLI::App* bench = pkrt::add_bench_command(app, &ba);

    auto is_command = [&](const std::string& c) {
        for (const CLI::App* sub : std::as_const(app).get_subcommands([](const CLI::App*) { return true; }))
            if (sub->get_name() == c) return true;
        return false;
    };
    if (argc > 1 && argv[1][0] != '-' && !is_command(argv[1])) {
        error = std::string("unknown command '") + argv[1] +
                "' (expected render, info, bench or help-settings; see pkrt --help)";
        return 2;
    }
    pkrt::make_values_strict(app);  // one way to read every flag's value (app/strict_options.h)
    std::string list_problem = pkrt::list_value_problem(app, argc, argv);
    if (!list_problem.empty()) {
        error = list_problem + " (see pkrt --help)";
        return 2;
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return ranks.lead() ? app.exit(e) : 0;
    } catch (const CLI::CallForAllHelp& e) {
        return ranks.lead() ? app.exit(e) : 0;
    } catch (const CLI::CallForVersion& e) {
        return ranks.lead() ? app.exit(e) : 0;
    } catch (const CLI::ParseError& e) {
        error = std::string(e.what()) + " (see pkrt --help)";
        return 2;
    }
    try {
        if (render->parsed()) {
            pkrt::apply_run_options(ra.run, ranks.lead());
            return pkrt::run_render(ra, ranks);
        }
        if (!ranks.lead()) {
            // Only `render` is split across ranks; rank 0 runs the others alone.
        } else if (info->parsed()) {
            return pkrt::run_info();
        } else if (help_settings->parsed()) {
            std::printf("pkrt render|bench --set KEY=VALUE (CUDA backend; repeatable):\n%s",
                        pkrt::settings_help().c_str());
            return 0;
        }
        if (bench->parsed()) {
            if (ranks.size() > 1)
                throw pkrt::Error("bench: not supported across MPI ranks (" + std::to_string(ranks.size()) + " ranks)");
            pkrt::apply_run_options(ba.run);
            return pkrt::run_bench(ba);
        }
    } catch (const pkrt::Error& e) {
        error = e.what();
        return 1;
    } catch (const std::bad_alloc&) {
        error = "out of memory";
        return 1;
    } catch (const std::exception& e) {
        error = e.what();
        return 1;
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    // First, so that MPI (started only under an MPI launcher) takes its own arguments out of argv.
    pkrt::Ranks ranks(&argc, &argv);
    pkrt::install_output_signal_handlers();
    std::string error;
    int code = run_command(argc, argv, ranks, error);
    return ranks.finish(code, error);
}
