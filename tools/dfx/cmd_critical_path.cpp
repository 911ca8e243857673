// dfx critical-path: static CPM and observed critical path of each run
// directory under a root (chip_swimlane_records.json + deps.json + name map),
// with a Markdown report per directory and Perfetto traces highlighting each
// path: copies of the merged JSON trace when one is there (CPM_*.json), or with
// --format perfetto, protobuf traces drawn from the capture (CPM_*.pftrace).
// See include/dfx/convert/deps/critical_path.hpp and critical_path_perfetto.hpp.
#include <cstdio>
#include <exception>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "big_trace_note.hpp"
#include "cli_common.hpp"
#include "commands.hpp"
#include "progress.hpp"
#include "dfx/convert/common/io_progress.hpp"
#include "swimlane_once.hpp"
#include "dfx/convert/common/json_writer.hpp"
#include "dfx/convert/deps/critical_path.hpp"
#include "dfx/schema/artefact_names.hpp"
#include "dfx/schema/converter_outputs.hpp"

namespace dfx::cli {

namespace {

namespace fs = std::filesystem;
namespace deps = dfx::convert::deps;

struct cp_args {
    std::string build_dir, report = std::string(dfx::schema::critical_path_markdown_file);
    long long top = 25, tol = 2;
    bool to_stdout = false;
    bool lenient = false;
    std::string format = "json";  // the CPM traces': json or perfetto
};

constexpr std::string_view record_names[] = {dfx::schema::records_file, dfx::schema::legacy_records_file};

// Newest <prefix>*.json regular file in `d`, by (mtime, name).
std::optional<fs::path> newest(const fs::path& d, std::string_view prefix) {
    std::optional<fs::path> best;
    fs::file_time_type best_t{};
    std::error_code ec;
    for (fs::directory_iterator it(d, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string n = it->path().filename().string();
        // Not only regular files: a name map that is a directory, a FIFO or a
        // symlink loop is a corrupt input, which reading it reports.
        if (n.rfind(prefix, 0) != 0 || n.size() < 5 || n.substr(n.size() - 5) != ".json") continue;
        std::error_code tec;
        auto t = fs::last_write_time(it->path(), tec);
        if (tec) t = fs::file_time_type::max();
        if (!best || t > best_t || (t == best_t && n > best->filename().string())) {
            best = it->path();
            best_t = t;
        }
    }
    return best;
}

// A run directory's inputs, as found by name: the records path is kept even
// when it does not resolve (a dangling symlink), so reading it names it.
struct run_dir {
    fs::path records, name_map;
};

void run(const cp_args& a) {
    const progress_reporter progress("critical-path");
    std::error_code ec;
    fs::path root = fs::absolute(a.build_dir, ec).lexically_normal();
    if (!fs::exists(root, ec)) throw usage_error("path not found: " + root.string());
    if (!fs::is_directory(root, ec)) {
        if (!fs::is_regular_file(root, ec)) throw usage_error(root.string() + ": neither a directory nor a file");
        root = root.parent_path();  // a file means its directory
    }
    if (root.filename().empty()) root = root.parent_path();  // drop a trailing '/'
    const bool report_to_stdout = a.report == "-";
    if (a.report.empty() || (!report_to_stdout && a.report.find('/') != std::string::npos) || a.report == "." ||
        a.report == "..")
        throw usage_error("--report/-o must be a filename (or - for stdout), not a path");
    std::map<fs::path, run_dir> dirs;
    for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string n = it->path().filename().string();
        if (n != record_names[0] && n != record_names[1]) continue;
        const fs::path d = it->path().parent_path();
        if (dirs.count(d) > 0 || !fs::exists(d / dfx::schema::deps_file, ec)) continue;
        if (auto names = newest(d, dfx::schema::name_map_stem)) dirs.emplace(d, run_dir{it->path(), *names});
    }
    if (dirs.empty())
        throw usage_error("no chip_swimlane_records.json (+deps.json+name_map*.json) found under " + root.string() +
                          ". Did the run record the chip swimlane (dfx-sim --enable-chip-swimlane, or "
                          "chip_swimlane_level >= 1 in the run config) and dep_gen (--enable-dep-gen)?");
    std::vector<deps::cp_result> results;
    std::vector<std::string> reports, traces;
    bool trace_errors = false;
    for (const auto& [d, in] : dirs) {
        const std::string label = d == root ? d.filename().string() : fs::relative(d, root).string();
        results.push_back(deps::analyze_critical_path(d, in.records, in.name_map, label, a.tol, a.lenient));
        if (!report_to_stdout) {
            const std::string report_path = (d / a.report).string();
            dfx::convert::json_file_writer out(report_path);
            out.append(deps::render_cp_report({results.back()}, static_cast<std::size_t>(std::max(0LL, a.top))));
            out.commit();
            reports.push_back(report_path);
        }
        if (a.format == "perfetto") {
            try {
                for (const std::string& t : perfetto_cpm_traces(d, in.records, in.name_map, results.back(), a.lenient))
                    traces.push_back(t);
            } catch (const std::exception& e) {
                std::fprintf(stderr, "dfx critical-path: error: no Perfetto critical-path traces for %s: %s\n", d.c_str(), e.what());
                trace_errors = true;
            }
            continue;
        }
        const auto merged = newest(d, dfx::schema::merged_trace_stem);
        if (!merged) {
            std::fprintf(stderr, "Warning: no merged_swimlane*.json in %s; skipped Perfetto critical-path traces\n", d.c_str());
            continue;
        }
        try {
            for (const std::string& t : deps::write_cpm_traces(merged->string(), d.string(), results.back())) traces.push_back(t);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "dfx critical-path: error: invalid merged_swimlane*.json in %s: %s\n", d.c_str(), e.what());
            trace_errors = true;
        }
    }
    const dfx::convert::io_progress::console_output hold;  // the report on lines of its own
    fmt::print("Analyzed {} rank(s) under {}\n", results.size(), root.string());
    for (const auto& r : results) fmt::print("{}\n", deps::render_cp_summary(r));
    for (const auto& p : reports) fmt::print("Report written to: {}\n", p);
    for (const auto& p : traces) fmt::print("Perfetto trace written to: {}\n", p);
    std::fflush(stdout);
    dfx::cli::note_big_traces(traces, {.perfetto_format = a.format == "json"}, stderr);
    if (a.to_stdout || report_to_stdout)
        fmt::print("\n{}\n", deps::render_cp_report(results, static_cast<std::size_t>(std::max(0LL, a.top))));
    // A merged trace that cannot be highlighted is bad input, after the rest was done.
    exit_code = trace_errors ? 1 : 0;
}

}  // namespace

void add_critical_path(CLI::App& app) {
    auto a = std::make_shared<cp_args>();
    auto* cmd = app.add_subcommand("critical-path", "Static CPM and observed critical path of each run directory");
    cmd->add_option("build_dir", a->build_dir, "Run directory (searched recursively); a file means its directory")->required();
    cmd->add_option("-o,--output,--report", a->report,
                    "Report file name, written beside each records file (default critical_path_report.md); - prints "
                    "the report to stdout instead");
    cmd->add_option("--top", a->top, "Rows in the kernel-family table (default 25)");
    cmd->add_option("--tol", a->tol, "Tick tolerance for 'finished before' (default 2)");
    cmd->add_option("--format", a->format,
                    "Format of the critical-path traces: json (CPM_static.json / CPM_observed.json, copies of the "
                    "newest merged_swimlane*.json) or perfetto (CPM_static.pftrace / CPM_observed.pftrace, Perfetto's "
                    "protobuf drawn from the capture; no merged trace needed)")
        ->check(CLI::IsMember({"json", "perfetto"}));
    cmd->add_flag("--stdout", a->to_stdout, "Also print the full report");
    cmd->add_flag("--lenient", a->lenient,
                  "Read as the reference does: unusable deps.json entries are dropped, a corrupt name map is a "
                  "warning, negative times and ids are taken as they are (default: an error)");
    cmd->callback([a] { run(*a); });
}

}  // namespace dfx::cli
