// dfx deps: not implemented yet (tracked in the converters issue).
#include <cstdio>

#include "commands.hpp"

namespace dfx::cli {

void add_deps(CLI::App& app) {
    auto* cmd = app.add_subcommand("deps", "Dependency graph: text summary or HTML (not implemented yet)");
    cmd->alias("deps_viewer");
    cmd->allow_extras();
    cmd->callback([] {
        std::fprintf(stderr, "dfx deps: not implemented yet\n");
        exit_code = 2;
    });
}

}  // namespace dfx::cli
