// dfx dump: not implemented yet (tracked in the converters issue).
#include <cstdio>

#include "commands.hpp"

namespace dfx::cli {

void add_dump(CLI::App& app) {
    auto* cmd = app.add_subcommand("dump", "List, filter and export args dumps (not implemented yet)");
    cmd->alias("dump_viewer");
    cmd->allow_extras();
    cmd->callback([] {
        std::fprintf(stderr, "dfx dump: not implemented yet\n");
        exit_code = 2;
    });
}

}  // namespace dfx::cli
