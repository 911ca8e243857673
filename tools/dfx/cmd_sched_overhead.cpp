// dfx sched-overhead (alias sched_overhead_analysis): is the scheduler the
// bottleneck? Reads the records file (level >= 2; level >= 3 for the loop
// breakdown) and the task DAG from deps.json, and prints the reference report
// (spec chip-swimlane.md §5).
//
//   dfx sched-overhead RUN                                the reference's text
//   dfx sched-overhead RUN --stats json|csv [--stats-output F]
//                                                         the same numbers machine-readable
//                                                         (swimlane/sched_overhead_output.hpp)
#include <cstddef>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "cli_common.hpp"
#include "commands.hpp"
#include "progress.hpp"
#include "swimlane_once.hpp"
#include "dfx/convert/swimlane/deps_graph.hpp"
#include "dfx/convert/swimlane/input_paths.hpp"
#include "dfx/convert/swimlane/perf_data.hpp"
#include "dfx/convert/common/io_progress.hpp"
#include "dfx/convert/common/json_writer.hpp"
#include "dfx/convert/swimlane/sched_overhead.hpp"
#include "dfx/convert/swimlane/sched_overhead_output.hpp"
#include "dfx/schema/artefact_names.hpp"

namespace dfx::cli {

namespace {

namespace sw = dfx::convert::swimlane;

// Part 5 (the scheduler loop) reads the scheduler phases, recorded from level 3 on.
constexpr int min_level = 3;

struct sched_args {
    std::string records;
    std::string deps;
    bool lenient = false;
    std::string stats = "text";  // text (the reference's), json or csv
    std::string stats_output;    // "" or "-": stdout
};

// "<path>: what" -> "what" when the message already names the path we print.
std::string_view without_path(std::string_view msg, std::string_view path) {
    if (msg.size() > path.size() + 2 && msg.substr(0, path.size()) == path && msg.substr(path.size(), 2) == ": ") {
        msg.remove_prefix(path.size() + 2);
    }
    return msg;
}

int run(const sched_args& a) {
    using dfx::convert::input_error;
    const progress_reporter progress("sched-overhead");
    std::string records;
    if (!a.records.empty()) {
        records = sw::normalize_path(file_in(a.records, {dfx::schema::records_file, dfx::schema::legacy_records_file}));
    } else if (auto newest = sw::newest_records_file()) {
        records = *newest;
    } else {
        std::error_code ec;
        throw input_error(fmt::format("No chip_swimlane_records.json found under {}/outputs",
                                      std::filesystem::current_path(ec).string()));
    }
    std::error_code ec;
    if (!std::filesystem::exists(records, ec)) throw input_error("Perf JSON not found: " + records);
    sw::perf_data pd;
    try {
        pd = read_swimlane_records(records, stderr, a.lenient, sw::phase_records::loop);  // Part 5 reads the loop phases only
    } catch (const std::exception& e) {
        throw input_error(fmt::format("failed to read perf JSON {}: {}", records, without_path(e.what(), records)));
    }
    // deps.json defaults to the sibling of the records file, when it exists.
    std::string deps_path;
    if (!a.deps.empty()) {
        deps_path = sw::normalize_path(a.deps);
    } else {
        const std::string sibling = sw::sibling_path(records, dfx::schema::deps_file);
        if (std::filesystem::exists(sibling, ec)) deps_path = sibling;
    }
    // Part 5's per-thread loops now (load_perf_data summed the work phases
    // before the join), and the lanes and any full records freed.
    const std::vector<sw::thread_loop> loops = sw::thread_loops(pd);
    std::vector<sw::loop_lane>().swap(pd.loop);
    std::vector<sw::sched_lane>().swap(pd.sched);
    if (pd.level < min_level)
        throw input_error(fmt::format(
            "{}: chip_swimlane_level {}: the scheduler loop breakdown needs level >= {} (scheduler phases); capture "
            "with chip_swimlane_level = {} in the run config (dfx-sim --enable-chip-swimlane={})",
            records, pd.level, min_level, min_level, min_level));
    // The text's preamble goes to stdout; with --stats json|csv on stdout, to stderr.
    const bool to_stdout = a.stats_output.empty() || a.stats_output == "-";
    std::FILE* const console = a.stats != "text" && to_stdout ? stderr : stdout;
    {
        const dfx::convert::io_progress::console_output hold;  // not after the progress line
        fmt::print(console, "Perf data:  {}\n", records);
        if (!deps_path.empty()) fmt::print(console, "Deps JSON:  {}\n", deps_path);
        std::fflush(console);
    }
    if (pd.tasks.empty()) throw input_error(records + ": No tasks found in perf data");
    if (deps_path.empty()) {
        throw input_error(
            "scheduler-overhead analysis needs the task DAG (deps.json). Capture it in a SEPARATE run with dep_gen on "
            "(dfx-sim --enable-dep-gen, or dep_gen in the run config; not co-run with the chip swimlane), then pass "
            "--deps-json");
    }
    sw::deps_graph deps;
    try {
        deps = read_swimlane_deps(deps_path, stderr, sw::deps_policy::required, a.lenient,
                                  dfx::convert::reader_threads::one_thread, /*task_maps=*/false);
    } catch (const std::exception& e) {
        throw input_error(fmt::format("failed to read deps.json {}: {}", deps_path, without_path(e.what(), deps_path)));
    }
    if (a.stats == "text" && to_stdout) {
        const sw::sched_overhead_report report = [&] {
            const dfx::convert::io_progress::stage_scope stage("the overhead analysis");  // for the progress display
            return sw::compute_sched_overhead(pd, std::move(deps), &loops);
        }();
        const dfx::convert::io_progress::console_output hold;
        const int rc = sw::print_sched_overhead_report(stdout, stderr, pd, report);
        std::fflush(stdout);
        return rc;
    }
    const dfx::convert::io_progress::stage_scope stage("the overhead analysis");
    std::string body;
    int rc = 0;
    if (a.stats == "text") {
        std::unique_ptr<std::FILE, int (*)(std::FILE*)> tmp(std::tmpfile(), &std::fclose);
        if (!tmp) throw input_error("--stats-output: cannot create a temporary file");
        rc = sw::print_sched_overhead_report(tmp.get(), stderr, pd, sw::compute_sched_overhead(pd, std::move(deps), &loops));
        std::rewind(tmp.get());
        char chunk[4096];
        std::size_t n = 0;
        while ((n = std::fread(chunk, 1, sizeof chunk, tmp.get())) > 0) body.append(chunk, n);
    } else {
        const sw::sched_overhead_report report = sw::compute_sched_overhead(pd, std::move(deps), &loops);
        const auto measures = sw::sched_overhead_records(pd, report);
        body = a.stats == "json" ? sw::render_sched_overhead_json(measures) : sw::render_sched_overhead_csv(measures);
        if (report.loops.threads.empty()) rc = 1;  // said below, once the console is held
    }
    const dfx::convert::io_progress::console_output hold;
    if (rc != 0 && a.stats != "text") {
        fmt::print(stderr,
                   "Error: No JSON phase data found (aicpu_scheduler_phases) — rerun with --enable-chip-swimlane at "
                   "level >= 3 so the scheduler phases are captured.\n");
    }
    if (to_stdout) {
        fmt::print("{}", body);
    } else {
        dfx::convert::json_file_writer out(a.stats_output);
        out.append(body);
        out.commit();
        fmt::print(console, "Statistics ({}) written to: {}\n", a.stats, a.stats_output);
    }
    std::fflush(stdout);
    return rc;
}

}  // namespace

void add_sched_overhead(CLI::App& app) {
    auto args = std::make_shared<sched_args>();
    auto* cmd = app.add_subcommand("sched-overhead", "Scheduler overhead analysis (needs level >= 3 records and deps.json)");
    cmd->alias("sched_overhead_analysis");
    cmd->add_option("--chip-swimlane-records-json,records", args->records,
                    "chip_swimlane_records.json, or the directory holding it (default: the newest "
                    "outputs/*/chip_swimlane_records.json)");
    cmd->add_option("--deps-json", args->deps, "deps.json of a dep_gen run (default: sibling deps.json)");
    cmd->add_option("--stats", args->stats,
                    "Output format: text (the reference's, default), json or csv (the same numbers; see docs/converters.md)")
        ->check(CLI::IsMember({"text", "json", "csv"}));
    cmd->add_option("--stats-output", args->stats_output, "Write the report to this file instead of stdout (- is stdout)");
    cmd->add_flag("--lenient", args->lenient,
                  "Read as the reference does: deps.json entries that are not usable are skipped, a missing "
                  "`edges` is no edges, negative times and ids are taken as they are (default: an error)");
    cmd->callback([args] { exit_code = run(*args); });
}

}  // namespace dfx::cli
