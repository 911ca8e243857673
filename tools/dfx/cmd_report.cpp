// dfx report: the four questions of the tuning loop (is the graph the one you
// meant, did tasks overlap, is a ring near full, which pipe is the limit)
// answered on one page from whatever artefacts a dfx_outputs directory holds
// (an L3 tree: one section per rank<r>/d<k>), as ranked findings, each one
// sentence with its number and what to try (docs/report.md).
//
//   dfx report DIR                      text summary on stdout
//   dfx report DIR --format json        the same, machine-readable
//   dfx report DIR --format csv         the top-N kernels table of every section
//   dfx report DIR --format html        DIR/dfx_report.html (or -o FILE), summary on stdout
//   dfx report DIR -o x.html            html, chosen by the extension
//
// The measures live in include/dfx/convert/report/, one header per concept;
// this file only picks the units, the format and the output.
#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include "cli_common.hpp"
#include "commands.hpp"
#include "progress.hpp"
#include "dfx/convert/common/io_progress.hpp"
#include "report_once.hpp"
#include "text_output.hpp"
#include "dfx/convert/report/findings.hpp"
#include "dfx/convert/report/report_csv.hpp"
#include "dfx/convert/report/report_html.hpp"
#include "dfx/convert/report/report_json.hpp"
#include "dfx/convert/report/report_text.hpp"
#include "dfx/convert/report/run_units.hpp"
#include "dfx/convert/report/unit_measures.hpp"
#include "dfx/schema/converter_outputs.hpp"

namespace dfx::cli {

namespace {

namespace rep = dfx::convert::report;

struct report_args {
    std::string dir;
    std::string format;  // "" = text, or html when -o ends in .html
    std::string output;
    std::size_t top = 10;  // 0: all kernels
};

void run(const report_args& a) {
    namespace fs = std::filesystem;
    const progress_reporter progress("report");
    std::error_code ec;
    if (!fs::exists(a.dir, ec)) throw usage_error(a.dir + ": no such directory");
    if (!fs::is_directory(a.dir, ec))
        throw usage_error(a.dir + ": not a directory (dfx report reads a dfx_outputs directory)");
    std::string format = a.format;
    if (format.empty()) format = ends_with(a.output, ".html") ? "html" : "text";

    std::vector<rep::unit_measures> units;
    std::vector<rep::report_findings> findings;
    for (const rep::run_unit& u : rep::run_units_of(a.dir)) {
        if (!rep::find_artefacts(u.dir).any()) continue;  // an L3 root holds only the rank directories
        units.push_back(rep::measure_unit(u, stderr));
        findings.push_back(rep::find_issues(units.back()));
    }
    if (units.empty()) {
        std::string flags;
        for (const auto& m : rep::run_artefacts{}.missing()) flags += fmt::format(", {} ({})", m.file, m.flag);
        throw dfx::convert::input_error(
            fmt::format("{}: no artefact to report on; expected any of{}", a.dir, flags.substr(1)));
    }
    std::string text;
    for (std::size_t i = 0; i < units.size(); ++i) text += (i ? "\n" : "") + rep::render_unit_text(units[i], findings[i], a.top);
    const dfx::convert::io_progress::console_output hold;  // the report on lines of its own
    if (format == "json") {
        std::string json = "{\"units\": [";
        for (std::size_t i = 0; i < units.size(); ++i) json += (i ? ", " : "") + rep::render_unit_json(units[i], findings[i], a.top);
        write_text_output(a.output, json + "]}\n");
    } else if (format == "csv") {
        write_text_output(a.output, rep::render_report_csv(units, a.top));
    } else if (format == "html") {
        const std::string page_path =
            a.output.empty() ? (fs::path(a.dir) / std::string(dfx::schema::report_page_file)).string() : a.output;
        write_text_output(page_path, rep::render_html(units, findings, a.top));
        if (page_path != "-") fmt::print("{}\nWrote {}\n", text, page_path);
    } else {
        write_text_output(a.output, text);
        if (!a.output.empty() && a.output != "-") fmt::print("Wrote {} ({} sections)\n", a.output, units.size());
    }
    exit_code = 0;
}

}  // namespace

// report_once.hpp: compiled here for dfx compare.
dfx::convert::report::unit_measures measure_run_unit(const dfx::convert::report::run_unit& unit, std::FILE* warnings,
                                                     std::size_t timeline_bins, bool keep_digest) {
    return dfx::convert::report::measure_unit(unit, warnings, timeline_bins, keep_digest);
}

void add_report(CLI::App& app) {
    auto a = std::make_shared<report_args>();
    auto* cmd = app.add_subcommand("report", "Ranked findings over a dfx_outputs directory: graph, concurrency, rings, PMU");
    cmd->add_option("dir", a->dir, "A dfx_outputs directory (L3: with rank<r>/d<k>/ below it)")->required();
    cmd->add_option("--format", a->format, "Output format (default text; html when -o ends in .html)")
        ->check(CLI::IsMember({"text", "json", "csv", "html"}));
    cmd->add_option("-o,--output", a->output, "Write to this file (- is stdout); html default: DIR/dfx_report.html");
    cmd->add_option("--top", a->top, "Kernels in the top-N table (default 10, 0 = all)")->check(CLI::Range(std::size_t{0}, std::size_t{1} << 20));
    cmd->callback([a] { run(*a); });
}

}  // namespace dfx::cli
