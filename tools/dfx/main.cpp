// dfx: offline converters for the artefacts dfxkit's collectors write (and
// the reference runtime's). One subcommand per artefact; the reference tool
// names are accepted as aliases.
#include <cstdio>
#include <exception>

#include <CLI/CLI.hpp>

#include "commands.hpp"

int main(int argc, char** argv) {
    CLI::App app{"dfx: convert and inspect runtime DFX artefacts (swimlane, deps, args dump, PMU, scope stats)"};
    app.require_subcommand(1);
    dfx::cli::add_swimlane(app);
    dfx::cli::add_sched_overhead(app);
    dfx::cli::add_deps(app);
    dfx::cli::add_critical_path(app);
    dfx::cli::add_dump(app);
    dfx::cli::add_pmu(app);
    dfx::cli::add_scope_stats(app);
    dfx::cli::add_all(app);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e);
    } catch (const std::exception& e) {  // input_error and output_error carry the file and the problem
        std::fprintf(stderr, "dfx: error: %s\n", e.what());
        return 1;
    }
    return dfx::cli::exit_code;
}
