// dfx sched-overhead (alias sched_overhead_analysis): is the scheduler the
// bottleneck? Reads the records file (level >= 2; level >= 3 for the loop
// breakdown) and the task DAG from deps.json, and prints the reference report
// (spec chip-swimlane.md §5).
#include <cstdio>
#include <exception>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "commands.hpp"
#include "dfx/convert/swimlane/deps_graph.hpp"
#include "dfx/convert/swimlane/input_paths.hpp"
#include "dfx/convert/swimlane/perf_data.hpp"
#include "dfx/convert/swimlane/sched_overhead.hpp"

namespace dfx::cli {

namespace {

namespace sw = dfx::convert::swimlane;

struct sched_args {
    std::string records;
    std::string deps;
};

// "<path>: what" -> "what" when the message already names the path we print.
std::string_view without_path(std::string_view msg, std::string_view path) {
    if (msg.size() > path.size() + 2 && msg.substr(0, path.size()) == path && msg.substr(path.size(), 2) == ": ") {
        msg.remove_prefix(path.size() + 2);
    }
    return msg;
}

int run(const sched_args& a) {
    std::string records;
    if (!a.records.empty()) {
        records = sw::normalize_path(a.records);
    } else if (auto newest = sw::newest_records_file()) {
        records = *newest;
    } else {
        std::error_code ec;
        fmt::print(stderr, "Error: No chip_swimlane_records.json found under {}/outputs\n",
                   std::filesystem::current_path(ec).string());
        return 1;
    }
    std::error_code ec;
    if (!std::filesystem::exists(records, ec)) {
        fmt::print(stderr, "Error: Perf JSON not found: {}\n", records);
        return 1;
    }
    sw::perf_data pd;
    try {
        pd = sw::load_perf_data(records, stderr);
    } catch (const std::exception& e) {
        fmt::print(stderr, "Error: failed to read perf JSON {}: {}\n", records, without_path(e.what(), records));
        return 1;
    }
    // deps.json defaults to the sibling of the records file, when it exists.
    std::string deps_path;
    if (!a.deps.empty()) {
        deps_path = sw::normalize_path(a.deps);
    } else {
        const std::string sibling = sw::sibling_path(records, "deps.json");
        if (std::filesystem::exists(sibling, ec)) deps_path = sibling;
    }
    fmt::print("Perf data:  {}\n", records);
    if (!deps_path.empty()) fmt::print("Deps JSON:  {}\n", deps_path);
    std::fflush(stdout);
    if (pd.tasks.empty()) {
        fmt::print(stderr, "Error: No tasks found in perf data\n");
        return 1;
    }
    if (deps_path.empty()) {
        fmt::print(stderr,
                   "Error: scheduler-overhead analysis needs the task DAG (deps.json). Capture it in a SEPARATE run "
                   "with --enable-dep-gen (not co-run with --enable-chip-swimlane), then pass --deps-json.\n");
        return 1;
    }
    sw::deps_graph deps;
    try {
        deps = sw::load_deps_graph(deps_path, stderr, sw::deps_policy::required);
    } catch (const std::exception& e) {
        fmt::print(stderr, "Error: failed to read deps.json {}: {}\n", deps_path, without_path(e.what(), deps_path));
        return 1;
    }
    const int rc = sw::print_sched_overhead(stdout, stderr, pd, deps);
    std::fflush(stdout);
    return rc;
}

}  // namespace

void add_sched_overhead(CLI::App& app) {
    auto args = std::make_shared<sched_args>();
    auto* cmd = app.add_subcommand("sched-overhead", "Scheduler overhead analysis (needs level >= 2 records and deps.json)");
    cmd->alias("sched_overhead_analysis");
    cmd->add_option("--chip-swimlane-records-json,records", args->records,
                    "chip_swimlane_records.json (default: the newest outputs/*/chip_swimlane_records.json)");
    cmd->add_option("--deps-json", args->deps, "deps.json of a dep_gen run (default: sibling deps.json)");
    cmd->callback([args] { exit_code = run(*args); });
}

}  // namespace dfx::cli
