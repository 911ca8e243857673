// The `dfx` subcommands. Each registers itself on the app; its callback runs
// the converter and returns the process exit code through `exit_code`.
#pragma once

#include <CLI/CLI.hpp>

namespace dfx::cli {

// Set by the subcommand that ran; main returns it.
inline int exit_code = 0;

void add_swimlane(CLI::App& app);        // dfx swimlane (alias swimlane_converter)
void add_sched_overhead(CLI::App& app);  // dfx sched-overhead (alias sched_overhead_analysis)
void add_deps(CLI::App& app);            // dfx deps (alias deps_viewer)
void add_critical_path(CLI::App& app);   // dfx critical-path
void add_dump(CLI::App& app);            // dfx dump (alias dump_viewer)
void add_pmu(CLI::App& app);             // dfx pmu
void add_scope_stats(CLI::App& app);     // dfx scope-stats (alias scope_stats_plot)
void add_all(CLI::App& app);             // dfx all
void add_report(CLI::App& app);          // dfx report
void add_compare(CLI::App& app);         // dfx compare

}  // namespace dfx::cli
