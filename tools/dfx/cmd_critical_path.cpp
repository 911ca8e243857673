// dfx critical-path: static CPM and observed critical path of each run
// directory under a root (chip_swimlane_records.json + deps.json + name map),
// with a Markdown report per directory and, when a merged trace is there,
// Perfetto copies highlighting each path. See include/dfx/convert/deps/critical_path.hpp.
#include <cstdio>
#include <exception>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "commands.hpp"
#include "dfx/convert/common/json_writer.hpp"
#include "dfx/convert/deps/critical_path.hpp"

namespace dfx::cli {

namespace {

namespace fs = std::filesystem;
namespace deps = dfx::convert::deps;

struct cp_args {
    std::string build_dir, report = "critical_path_report.md";
    long long top = 25, tol = 2;
    bool to_stdout = false;
};

const char* const record_names[] = {"chip_swimlane_records.json", "l2_perf_records.json"};

std::optional<fs::path> records_in(const fs::path& d) {
    for (const char* n : record_names)
        if (fs::exists(d / n)) return d / n;
    return std::nullopt;
}

// Newest <prefix>*.json regular file in `d`, by (mtime, name).
std::optional<fs::path> newest(const fs::path& d, const std::string& prefix) {
    std::optional<fs::path> best;
    fs::file_time_type best_t{};
    std::error_code ec;
    for (fs::directory_iterator it(d, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string n = it->path().filename().string();
        if (n.rfind(prefix, 0) != 0 || n.size() < 5 || n.substr(n.size() - 5) != ".json" || !it->is_regular_file()) continue;
        const auto t = fs::last_write_time(it->path());
        if (!best || t > best_t || (t == best_t && n > best->filename().string())) {
            best = it->path();
            best_t = t;
        }
    }
    return best;
}

int run(const cp_args& a) {
    std::error_code ec;
    fs::path root = fs::absolute(a.build_dir, ec).lexically_normal();
    if (!fs::exists(root, ec)) {
        std::fprintf(stderr, "error: path not found: %s\n", root.c_str());
        return 2;
    }
    if (fs::is_regular_file(root)) root = root.parent_path();
    if (root.filename().empty()) root = root.parent_path();  // drop a trailing '/'
    if (a.report.empty() || a.report.find('/') != std::string::npos || a.report == "." || a.report == "..") {
        std::fprintf(stderr, "error: --report must be a filename, not a path\n");
        return 2;
    }
    std::set<fs::path> dirs;
    for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string n = it->path().filename().string();
        if (n != record_names[0] && n != record_names[1]) continue;
        const fs::path d = it->path().parent_path();
        if (fs::exists(d / "deps.json") && newest(d, "name_map")) dirs.insert(d);
    }
    if (dirs.empty()) {
        std::fprintf(stderr,
                     "error: no chip_swimlane_records.json (+deps.json+name_map*.json) found under %s. "
                     "Did the run use --enable-chip-swimlane?\n",
                     root.c_str());
        return 2;
    }
    std::vector<deps::cp_result> results;
    std::vector<std::string> reports, traces;
    bool trace_errors = false;
    for (const fs::path& d : dirs) {
        const std::string label = d == root ? d.filename().string() : fs::relative(d, root).string();
        results.push_back(deps::analyze_critical_path(d, *records_in(d), *newest(d, "name_map"), label, a.tol));
        const std::string report_path = (d / a.report).string();
        dfx::convert::json_file_writer out(report_path);
        out.append(deps::render_cp_report({results.back()}, static_cast<std::size_t>(std::max(0LL, a.top))));
        out.commit();
        reports.push_back(report_path);
        const auto merged = newest(d, "merged_swimlane");
        if (!merged) {
            std::fprintf(stderr, "Warning: no merged_swimlane*.json in %s; skipped Perfetto critical-path traces\n", d.c_str());
            continue;
        }
        try {
            for (const std::string& t : deps::write_cpm_traces(merged->string(), d.string(), results.back())) traces.push_back(t);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "error: invalid merged_swimlane*.json in %s: %s\n", d.c_str(), e.what());
            trace_errors = true;
        }
    }
    fmt::print("Analyzed {} rank(s) under {}\n", results.size(), root.string());
    for (const auto& r : results) fmt::print("{}\n", deps::render_cp_summary(r));
    for (const auto& p : reports) fmt::print("Report written to: {}\n", p);
    for (const auto& p : traces) fmt::print("Perfetto trace written to: {}\n", p);
    if (a.to_stdout) fmt::print("\n{}\n", deps::render_cp_report(results, static_cast<std::size_t>(std::max(0LL, a.top))));
    return trace_errors ? 2 : 0;
}

}  // namespace

void add_critical_path(CLI::App& app) {
    auto a = std::make_shared<cp_args>();
    auto* cmd = app.add_subcommand("critical-path", "Static CPM and observed critical path of each run directory");
    cmd->add_option("build_dir", a->build_dir, "Run directory (searched recursively); a file means its directory")->required();
    cmd->add_option("--report", a->report, "Report file name, written beside each records file (default critical_path_report.md)");
    cmd->add_option("--top", a->top, "Rows in the kernel-family table (default 25)");
    cmd->add_option("--tol", a->tol, "Tick tolerance for 'finished before' (default 2)");
    cmd->add_flag("--stdout", a->to_stdout, "Also print the full report");
    cmd->callback([a] {
        try {
            exit_code = run(*a);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "dfx critical-path: error: %s\n", e.what());
            exit_code = 1;
        }
    });
}

}  // namespace dfx::cli
