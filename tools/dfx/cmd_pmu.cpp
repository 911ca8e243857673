// dfx pmu: not implemented yet (tracked in the converters issue).
#include <cstdio>

#include "commands.hpp"

namespace dfx::cli {

void add_pmu(CLI::App& app) {
    auto* cmd = app.add_subcommand("pmu", "Per-kernel and per-core PMU summary (not implemented yet)");

    cmd->allow_extras();
    cmd->callback([] {
        std::fprintf(stderr, "dfx pmu: not implemented yet\n");
        exit_code = 2;
    });
}

}  // namespace dfx::cli
