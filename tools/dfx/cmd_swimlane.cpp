// dfx swimlane (alias swimlane_converter): chip_swimlane_records.json (+ the
// sibling deps.json and name map) -> merged Perfetto / Chrome trace, then the
// per-function statistics table. Behaviour and console output follow the
// reference swimlane_converter (spec chip-swimlane.md §4).
//
//   dfx swimlane RUN                                 trace, then the statistics table (the reference's text)
//   dfx swimlane RUN --stats json|csv [--top N]      the statistics machine-readable on stdout (the
//                                                    console report moves to stderr), with the top-N kernels
//   dfx swimlane RUN --stats json --stats-output F   ... into F instead
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <future>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "big_trace_note.hpp"
#include "cli_common.hpp"
#include "commands.hpp"
#include "progress.hpp"
#include "reuse_freed_memory.hpp"
#include "swimlane_once.hpp"
#include "dfx/convert/common/input_error.hpp"
#include "dfx/convert/common/io_progress.hpp"
#include "dfx/convert/common/json_writer.hpp"
#include "dfx/convert/deps/critical_path_perfetto.hpp"
#include "dfx/convert/swimlane/deps_graph.hpp"
#include "dfx/convert/swimlane/func_ids.hpp"
#include "dfx/convert/swimlane/input_paths.hpp"
#include "dfx/convert/swimlane/name_map.hpp"
#include "dfx/convert/swimlane/perf_data.hpp"
#include "dfx/convert/report/kernel_table.hpp"
#include "dfx/convert/swimlane/statistics.hpp"
#include "dfx/convert/swimlane/statistics_output.hpp"
#include "dfx/convert/swimlane/time_window.hpp"
#include "dfx/convert/swimlane/trace_writer.hpp"
#include "dfx/schema/artefact_names.hpp"
#include "dfx/schema/converter_outputs.hpp"

namespace dfx::cli {

namespace {

namespace sw = dfx::convert::swimlane;

struct swimlane_args {
    std::string input;
    std::string output;
    std::string kernel_config;
    std::string func_names;
    std::string deps_json;
    bool verbose = false;
    bool overhead = false;
    bool lenient = false;
    std::string format;  // "json", "perfetto", or empty: from the output name
    std::string window;  // --window START:END (µs), or empty
    std::string tasks;   // --tasks FIRST:LAST (task ids), or empty
    bool window_given = false, tasks_given = false;  // even empty
    std::string stats = "text";  // the statistics table: text (the reference's), json or csv
    std::string stats_output;    // "" or "-": stdout
    std::size_t top = 10;        // kernels in the top-N table of --stats json|csv (0: all)
};

bool stats_to_stdout(const swimlane_args& a) { return a.stats_output.empty() || a.stats_output == "-"; }

// --format, else the output's name: .pftrace / .perfetto-trace pick the
// protobuf, anything else JSON.
sw::trace_format format_of(const swimlane_args& a) {
    if (a.format == "perfetto") return sw::trace_format::perfetto;
    if (a.format == "json") return sw::trace_format::json;
    auto ends_with = [&](std::string_view suffix) {
        return a.output.size() >= suffix.size() && a.output.compare(a.output.size() - suffix.size(), suffix.size(), suffix) == 0;
    };
    return ends_with(".pftrace") || ends_with(".perfetto-trace") ? sw::trace_format::perfetto : sw::trace_format::json;
}

void print_data_summary(std::FILE* console, const sw::perf_data& pd) {
    fmt::print(console, "\n=== Performance Data ===\n");
    fmt::print(console, "  L2 perf level: {}\n  Task Count: {}\n", pd.level, pd.tasks.size());
    if (!pd.tasks.empty()) {
        double lo = pd.tasks.front().start_us, hi = pd.tasks.front().end_us;
        for (const auto& t : pd.tasks) {
            lo = std::min(lo, t.start_us);
            hi = std::max(hi, t.end_us);
        }
        fmt::print(console, "  Time Range: {:.3f} us - {:.3f} us (span: {:.3f} us)\n", lo, hi, hi - lo);
    }
    fmt::print(console, "\n");
    if (!pd.sched.empty()) {
        std::size_t n = 0;
        for (const auto& lane : pd.sched) n += lane.size();
        fmt::print(console, "  Scheduler threads: {}\n  Total phase records: {}\n", pd.sched.size(), n);
    }
    if (!pd.orch.empty()) {
        std::size_t n = 0;
        for (const auto& lane : pd.orch) n += lane.size();
        fmt::print(console, "  Orchestrator threads: {}\n  Total orchestrator phase records: {}\n", pd.orch.size(), n);
        if (n) fmt::print(console, "  Orchestrator: {} tasks submitted\n", n);
    }
    if (!pd.core_to_thread.empty()) fmt::print(console, "  Core-to-thread mapping: {} cores\n", pd.core_to_thread.size());
}

void print_names(std::FILE* console, const sw::name_map& names) {
    fmt::print(console, "  Loaded {} function name mappings:\n", names.names.size());
    auto sorted = names.names;
    auto key = [](const std::string& s) {
        long long v = 0;
        std::from_chars(s.data(), s.data() + s.size(), v);
        return v;
    };
    std::stable_sort(sorted.begin(), sorted.end(), [&](const auto& a, const auto& b) { return key(a.first) < key(b.first); });
    for (const auto& [id, name] : sorted) fmt::print(console, "    func_id={}: {}\n", id, name);
    if (names.orchestrator_name) fmt::print(console, "  Orchestrator: {}\n", *names.orchestrator_name);
    fmt::print(console, "\n");
}

// The statistics table: the reference's text on the console, or --stats
// json|csv (statistics_output.hpp) / text into --stats-output.
void write_statistics(const swimlane_args& a, std::FILE* console, const sw::perf_data& pd, const sw::name_map& names) {
    namespace rep = dfx::convert::report;
    const sw::task_statistics st = sw::compute_task_statistics(pd, names);
    if (a.stats == "text" && stats_to_stdout(a)) {
        sw::print_task_statistics(console, st);
        return;
    }
    std::string body;
    if (a.stats == "text") {
        std::unique_ptr<std::FILE, int (*)(std::FILE*)> tmp(std::tmpfile(), &std::fclose);
        if (!tmp) throw dfx::convert::input_error("--stats-output: cannot create a temporary file");
        sw::print_task_statistics(tmp.get(), st);
        std::rewind(tmp.get());
        char chunk[4096];
        std::size_t n = 0;
        while ((n = std::fread(chunk, 1, sizeof chunk, tmp.get())) > 0) body.append(chunk, n);
    } else {
        const double makespan = rep::task_makespan_us(pd);
        const auto kernels = rep::kernel_table(pd, names, makespan);
        body = a.stats == "json" ? sw::render_statistics_json(st, kernels, makespan, a.top)
                                 : sw::render_statistics_csv(st, kernels, a.top);
    }
    if (stats_to_stdout(a)) {
        std::fflush(console);
        fmt::print(stdout, "{}", body);
        return;
    }
    dfx::convert::json_file_writer out(a.stats_output);
    out.append(body);
    out.commit();
    fmt::print(console, "\nStatistics ({}) written to: {}\n", a.stats, a.stats_output);
}

int run(const swimlane_args& a) {
    // Bad --window / --tasks values fail before anything is read.
    std::optional<sw::time_window> window;
    std::optional<sw::task_range> task_ids;
    try {
        if (a.window_given) window = sw::parse_time_window(a.window);
        if (a.tasks_given) task_ids = sw::parse_task_range(a.tasks);
    } catch (const sw::window_error& e) {
        throw usage_error(e.what());
    }
    const bool machine_stats = a.stats != "text";
    if (machine_stats && a.output == "-" && stats_to_stdout(a))
        throw usage_error(fmt::format("--stats {} and -o - would both write stdout; pass --stats-output FILE", a.stats));
    const progress_reporter progress("swimlane");
    // With -o - the trace is stdout, and with --stats json|csv the statistics
    // are, so the console report goes to stderr.
    std::FILE* const console = a.output == "-" || (machine_stats && stats_to_stdout(a)) ? stderr : stdout;
    std::string input;
    if (!a.input.empty()) {
        input = sw::normalize_path(file_in(a.input, {dfx::schema::records_file, dfx::schema::legacy_records_file}));
        std::error_code ec;
        if (!std::filesystem::exists(input, ec)) throw dfx::convert::input_error("Input file not found: " + input);
    } else if (auto newest = sw::newest_records_file()) {
        input = *newest;
        if (a.verbose) fmt::print(console, "Auto-selected latest file: {}\n", input);
    } else {
        std::error_code ec;
        throw dfx::convert::input_error(fmt::format(
            "No outputs/*/chip_swimlane_records.json found under {}/outputs; run a capture with the chip swimlane on "
            "(dfx-sim --enable-chip-swimlane, or chip_swimlane_level >= 1 in the run config), or name the input",
            std::filesystem::current_path(ec).string()));
    }
    if (!a.kernel_config.empty() && a.func_names.empty()) {
        throw dfx::convert::input_error(fmt::format(
            "{}: -k/--kernel-config is not supported: reading KERNELS from a kernel_config.py means executing "
            "Python; pass the names as a name map JSON with --func-names instead",
            a.kernel_config));
    }
    // A small run's time is a third page faults: keep freed buffers for reuse
    // (10^4 tasks: 0.93-0.97x the wall time). A big one keeps its peak memory
    // down instead (5x10^4-2x10^5 tasks: 0.86-0.96x the wall time but
    // 1.04-1.09x the peak RSS, docs/converters.md), with only blocks up to
    // 8 MiB reused (keep_blocks_in_heap(), set for every command).
    if (sw::is_small_records_file(input)) reuse_freed_memory();
    // deps.json is independent of the records: read it on a second thread
    // while the records are read. Its warnings are held back and printed
    // after the records' own, in the reference's order.
    const std::string deps_path = a.deps_json.empty() ? sw::sibling_path(input, dfx::schema::deps_file)
                                                      : sw::normalize_path(a.deps_json);
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> deps_warnings(std::tmpfile(), &std::fclose);
    auto deps_future = std::async(std::launch::async, [&deps_path, w = deps_warnings.get(), lenient = a.lenient] {
        return sw::load_deps_graph(deps_path, w ? w : stderr, sw::deps_policy::optional, lenient);
    });
    if (a.verbose) fmt::print(console, "Reading performance data from: {}\n", input);
    sw::perf_data pd = sw::load_perf_data(input, stderr, a.lenient);
    if (a.verbose) print_data_summary(console, pd);

    sw::name_map names;
    std::optional<std::string> names_path;
    if (!a.func_names.empty()) {
        names_path = sw::normalize_path(a.func_names);
    } else if (a.kernel_config.empty()) {
        names_path = sw::find_sibling_name_map(input, stderr);
    }
    if (names_path) {
        if (a.verbose) fmt::print(console, "{} func names from: {}\n", a.func_names.empty() ? "Auto-discovered" : "Loading", *names_path);
        try {
            names = sw::load_name_map(*names_path);
        } catch (const dfx::convert::input_error& e) {
            // A corrupt name map is an error; leniently, the reference's warn-and-continue (no names).
            if (!a.lenient) throw;
            const dfx::convert::io_progress::console_output hold;
            fmt::print(stderr, "Warning: ignoring the name map: {}\n", e.what());
            names = sw::name_map{};
        }
        if (a.verbose) print_names(console, names);
    }

    const sw::trace_format format = format_of(a);
    const std::string output = a.output.empty() ? sw::sibling_path(input, format == sw::trace_format::perfetto
                                                                              ? dfx::schema::merged_perfetto_trace_file
                                                                              : dfx::schema::merged_trace_file)
                             : a.output == "-"  ? a.output
                                                : sw::normalize_path(a.output);
    if (!stats_to_stdout(a) && output != "-" && sw::normalize_path(a.stats_output) == output)
        throw usage_error(fmt::format("--stats-output {}: is the trace output too; choose another file", a.stats_output));
    const sw::deps_graph deps = deps_future.get();
    {
        const dfx::convert::io_progress::console_output hold;  // not after the progress line
        if (deps_warnings) {
            std::rewind(deps_warnings.get());
            char line[4096];
            while (std::fgets(line, sizeof line, deps_warnings.get())) std::fputs(line, stderr);
        }
        if (deps.edges_usable) {
            if (a.verbose) {
                fmt::print(console, "  Using deps.json edges ({} total) from {}\n", deps.edges.size(), deps_path);
                if (!deps.kernels.empty()) {
                    fmt::print(console, "  Using deps.json kernel_ids for {} tasks (level=1 name recovery)\n",
                               deps.kernels.size());
                }
            }
        } else {
            fmt::print(stderr,
                       "Warning: no usable deps.json at {}; Perfetto trace will have no dependency arrows. Run a "
                       "dep_gen capture (--enable-dep-gen) and pass --deps-json <path> to add them.\n",
                       deps_path);
        }
        std::fflush(console);
    }

    // Func ids the records left unresolved come from deps.json's kernel ids;
    // both the trace's labels and the statistics table show them.
    sw::resolve_func_ids(pd, deps);

    std::fflush(console);
    sw::trace_options opt;
    opt.overhead = a.overhead;
    opt.format = format;
    opt.verbose = a.verbose ? console : nullptr;
    opt.warnings = stderr;
    bool noted = false;
    if (task_ids) {
        window = sw::window_of_tasks(pd, *task_ids);
        if (!window) {
            noted = true;
            fmt::print(stderr, "Note: --tasks {}: the capture has no task in this range; the trace holds only the "
                       "process and thread names\n", a.tasks);
            const double never = -std::numeric_limits<double>::infinity();
            window = sw::time_window{never, never};  // overlaps nothing, holds nothing
        } else if (a.verbose) {
            fmt::print(console, "  --tasks {}: window {:.3f}:{:.3f} us\n", a.tasks, window->start_us, window->end_us);
        }
    }
    opt.window = window;
    sw::trace_summary summary;
    {
        dfx::convert::json_file_writer out(output);
        summary = sw::write_trace(pd, deps, names, out, opt);
        out.commit();
    }
    // The rest is the console report: on lines of their own, not after the
    // progress line (which stays erased until the command returns).
    const dfx::convert::io_progress::console_output hold;
    if (window && !noted && summary.window_slices == 0) {
        fmt::print(stderr, "Note: --{} {}: no slice of the capture overlaps {:.3f}:{:.3f} us; the trace holds only the "
                   "process and thread names (and the counters' values in force at the start)\n",
                   task_ids ? "tasks" : "window", task_ids ? a.tasks : a.window, window->start_us, window->end_us);
    }
    if (a.verbose) fmt::print(console, "{} written to: {}\n", format == sw::trace_format::json ? "JSON" : "Perfetto trace", output);
    if (a.overhead && !deps.edges_usable) {
        fmt::print(stderr,
                   "Warning: --overhead needs deps.json for task readiness; no deps found, Overhead Analysis "
                   "track skipped.\n");
    }

    fmt::print(console, "\n✓ Conversion complete\n  Input:  {}\n  Output: {}\n", input, output);
    fmt::print(console, "\nTo visualize: Open https://ui.perfetto.dev/ and drag in {}\n", output);
    std::fflush(console);
    if (dfx::cli::big_trace_size(output)) {
        // The span to cut, on the trace's own time base (what --window takes),
        // widened to whole ns so that a window of it holds every task.
        std::string span;
        if (const auto w = sw::window_of_tasks(pd, {0, std::numeric_limits<std::uint64_t>::max()}))
            span = fmt::format("{:.3f}:{:.3f}", std::max(0.0, std::floor(w->start_us * 1000) / 1000),
                               std::max(0.0, std::ceil(w->end_us * 1000) / 1000));
        dfx::cli::note_big_traces(
            {output}, {.window = true, .perfetto_format = format == sw::trace_format::json, .window_span = span},
            stderr);
    }
    write_statistics(a, console, pd, names);
    fmt::print(console, "\nScheduler-overhead deep-dive: run sched_overhead_analysis manually with a separately-captured "
               "deps.json (--enable-dep-gen).\n");
    return 0;
}

}  // namespace

// swimlane_once.hpp: compiled here for the other commands.
sw::perf_data read_swimlane_records(const std::string& path, std::FILE* warnings, bool lenient,
                                    sw::phase_records phases) {
    return sw::load_perf_data(path, warnings, lenient, phases);
}
sw::deps_graph read_swimlane_deps(const std::string& path, std::FILE* warnings, sw::deps_policy policy, bool lenient,
                                  dfx::convert::reader_threads threads, bool task_maps) {
    return sw::load_deps_graph(path, warnings, policy, lenient, threads, task_maps);
}
std::vector<std::string> perfetto_cpm_traces(const std::filesystem::path& dir, const std::filesystem::path& records,
                                             const std::filesystem::path& name_map,
                                             const dfx::convert::deps::cp_result& r, bool lenient) {
    return dfx::convert::deps::write_cpm_perfetto_traces(dir, records, name_map, r, lenient);
}

void add_swimlane(CLI::App& app) {
    auto args = std::make_shared<swimlane_args>();
    auto* cmd = app.add_subcommand("swimlane", "Chip swimlane records -> merged Perfetto trace + task statistics");
    cmd->alias("swimlane_converter");
    cmd->add_option("input", args->input,
                    "chip_swimlane_records.json, or the directory holding it (default: the newest "
                    "outputs/*/chip_swimlane_records.json)");
    cmd->add_option("-o,--output", args->output,
                    "Output trace, - for stdout (the report then goes to stderr) (default: <input_dir>/merged_swimlane.json)");
    cmd->add_option("-k,--kernel-config", args->kernel_config,
                    "kernel_config.py name source (not supported: it requires executing Python; use --func-names)");
    cmd->add_option("--func-names", args->func_names,
                    "name_map*.json for func_id -> name (default: the unique sibling name_map*.json)");
    cmd->add_option("--deps-json", args->deps_json, "deps.json of a dep_gen run (default: sibling deps.json)");
    cmd->add_option("--format", args->format,
                    "Trace format: json (Chrome trace JSON, the reference's) or perfetto (Perfetto's native protobuf, "
                    "several times smaller; default when the output ends in .pftrace or .perfetto-trace)")
        ->check(CLI::IsMember({"json", "perfetto"}));
    auto* window = cmd->add_option(
        "--window", args->window,
        "START:END in us on the trace's time base (its ts values, e.g. 1500:2500.5): write only that stretch of "
        "time: the slices that overlap it (whole), the flows with both ends in it, every counter's value at START "
        "and its points in it, and all process / thread names (see docs/converters.md, cutting a big run)");
    auto* tasks = cmd->add_option("--tasks", args->tasks,
                    "FIRST:LAST task ids: --window over the time those tasks span (other tasks running then are "
                    "kept too)")
        ->excludes(window);
    cmd->add_option("--stats", args->stats,
                    "Statistics table format: text (the reference's, default), json or csv (with the top-N kernels "
                    "table; on stdout, the console report then on stderr; see docs/converters.md)")
        ->check(CLI::IsMember({"text", "json", "csv"}));
    cmd->add_option("--stats-output", args->stats_output, "Write the statistics to this file instead of stdout (- is stdout)");
    cmd->add_option("--top", args->top, "Kernels in the top-N table of --stats json|csv (default 10, 0 = all)")
        ->check(CLI::Range(std::size_t{0}, std::size_t{1} << 20));
    cmd->add_flag("-v,--verbose", args->verbose, "Verbose output");
    cmd->add_flag("--lenient", args->lenient,
                  "Read as the reference does: a corrupt deps.json or name map is a warning (no arrows / no names), "
                  "negative times and ids are taken as they are (default: an error)");
    cmd->add_flag("--overhead", args->overhead,
                  "Add the 8 overhead counter tracks (per-engine idle/ready/overhead, all/has overhead); needs deps.json");
    cmd->callback([args, window, tasks] {
        args->window_given = window->count() > 0;
        args->tasks_given = tasks->count() > 0;
        exit_code = run(*args);
    });
}

}  // namespace dfx::cli
