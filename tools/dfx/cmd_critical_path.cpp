// dfx critical-path: not implemented yet (tracked in the converters issue).
#include <cstdio>

#include "commands.hpp"

namespace dfx::cli {

void add_critical_path(CLI::App& app) {
    auto* cmd = app.add_subcommand("critical-path", "Critical path through the task graph (not implemented yet)");

    cmd->allow_extras();
    cmd->callback([] {
        std::fprintf(stderr, "dfx critical-path: not implemented yet\n");
        exit_code = 2;
    });
}

}  // namespace dfx::cli
