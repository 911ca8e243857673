// dfx sched-overhead: not implemented yet (tracked in the converters issue).
#include <cstdio>

#include "commands.hpp"

namespace dfx::cli {

void add_sched_overhead(CLI::App& app) {
    auto* cmd = app.add_subcommand("sched-overhead", "Scheduler overhead analysis (not implemented yet)");
    cmd->alias("sched_overhead_analysis");
    cmd->allow_extras();
    cmd->callback([] {
        std::fprintf(stderr, "dfx sched-overhead: not implemented yet\n");
        exit_code = 2;
    });
}

}  // namespace dfx::cli
