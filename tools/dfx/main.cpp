// dfx: offline converters for the artefacts dfxkit's collectors write (and
// the reference runtime's). One subcommand per artefact; the reference tool
// names are accepted as aliases.
//
// Errors are one line, "dfx <command>: error: <message>", and the exit status
// says whose problem it is: 1 bad input (a missing, unreadable or malformed
// file, a failed write), 2 a command line that cannot be run
// (docs/converters.md).
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

#include <CLI/CLI.hpp>

#include "cli_common.hpp"
#include "commands.hpp"
#include "huge_page_heap.hpp"
#include "dfx/io/temp_files.hpp"
#include "reuse_freed_memory.hpp"

#ifndef DFX_VERSION
#error "DFX_VERSION is defined by tools/dfx/meson.build (the project's version)"
#endif

namespace {

// "dfx swimlane" once a subcommand was named, else "dfx".
std::string who(const CLI::App& app) {
    const auto selected = app.get_subcommands();
    return selected.empty() ? "dfx" : "dfx " + selected.front()->get_name();
}

// One line per message: CLI11 sometimes puts a newline in its own.
std::string one_line(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    for (char& c : s)
        if (c == '\n') c = ' ';
    return s;
}

int report(const CLI::App& app, const std::string& what, int code) {
    std::fflush(stdout);
    std::fprintf(stderr, "%s: error: %s\n", who(app).c_str(), one_line(what).c_str());
    return code;
}

// stdout is buffered: a full disk or a closed descriptor shows only now.
int finish(const CLI::App& app, int code) {
    errno = 0;
    if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
        const int err = errno;
        report(app, std::string("cannot write standard output: ") + (err ? std::strerror(err) : "write error"), 1);
        return code != 0 ? code : 1;
    }
    return code;
}

}  // namespace

int main(int argc, char** argv) {
    dfx::cli::use_huge_page_heap(argc, argv);  // first: it may restart the process
    dfx::io::remove_temp_files_on_signal();
    dfx::cli::one_heap();
    dfx::cli::keep_blocks_in_heap();
    CLI::App app{"dfx: convert and inspect runtime DFX artefacts (swimlane, deps, args dump, PMU, scope stats)", "dfx"};
    app.set_version_flag("--version", "dfx " DFX_VERSION);
    app.require_subcommand(1);
    dfx::cli::add_swimlane(app);
    dfx::cli::add_sched_overhead(app);
    dfx::cli::add_deps(app);
    dfx::cli::add_critical_path(app);
    dfx::cli::add_dump(app);
    dfx::cli::add_pmu(app);
    dfx::cli::add_scope_stats(app);
    dfx::cli::add_all(app);
    dfx::cli::add_report(app);
    dfx::cli::add_compare(app);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0) return finish(app, app.exit(e));  // --help, --version
        if (app.get_subcommands().empty() && argc > 1 && argv[1][0] != '-')
            return report(app, std::string("unknown command '") + argv[1] + "' (see dfx --help)", 2);
        return report(app, e.what(), 2);
    } catch (const dfx::cli::usage_error& e) {
        return report(app, e.what(), 2);
    } catch (const std::exception& e) {  // input_error and output_error carry the file and the problem
        return report(app, e.what(), 1);
    }
    return finish(app, dfx::cli::exit_code);
}
