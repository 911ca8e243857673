// dfx swimlane: not implemented yet (tracked in the converters issue).
#include <cstdio>

#include "commands.hpp"

namespace dfx::cli {

void add_swimlane(CLI::App& app) {
    auto* cmd = app.add_subcommand("swimlane", "Chip swimlane records -> merged Perfetto trace (not implemented yet)");
    cmd->alias("swimlane_converter");
    cmd->allow_extras();
    cmd->callback([] {
        std::fprintf(stderr, "dfx swimlane: not implemented yet\n");
        exit_code = 2;
    });
}

}  // namespace dfx::cli
