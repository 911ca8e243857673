// dfx compare: what changed between two runs (the "measure again" step of the
// tuning loop): the report's measures of A and B side by side, with delta,
// ratio and a significance mark (docs/converters.md, "dfx compare").
//
//   dfx compare A B                         aligned text table on stdout
//   dfx compare A B --format json|csv       the same rows, machine-readable
//   dfx compare A B --format html [-o F]    B/dfx_compare.html (or F), the table on stdout
//   dfx compare A B --fail-if 'makespan>+5%' --fail-if 'kernel:*.p50>+10%'
//   dfx compare A B --min-change 20         makespan / critical path significant past 20 %
//
// Exit: 0 done; 1 an unreadable input; 2 a usage error (a missing
// directory, a malformed or unknown --fail-if); 3 a --fail-if violated.
// A and B are dfx_outputs directories, or two L3 trees: matching
// rank<r>/d<k> sections are compared, a section only one side has is named.
// The measures live in include/dfx/convert/report/ (the same as dfx report);
// the rows, significance, gates and formats in include/dfx/convert/compare/.
#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "cli_common.hpp"
#include "commands.hpp"
#include "progress.hpp"
#include "dfx/convert/common/io_progress.hpp"
#include "report_once.hpp"
#include "text_output.hpp"
#include "dfx/convert/compare/compare_html.hpp"
#include "dfx/convert/compare/compare_render.hpp"
#include "dfx/convert/compare/compare_table.hpp"
#include "dfx/convert/compare/fail_if.hpp"
#include "dfx/convert/report/run_units.hpp"
#include "dfx/convert/report/unit_measures.hpp"
#include "dfx/schema/converter_outputs.hpp"

namespace dfx::cli {

namespace {

namespace rep = dfx::convert::report;
namespace cmp = dfx::convert::compare;

inline constexpr int fail_if_exit = 3;

struct compare_args {
    std::string a, b;
    std::string format;  // "" = text, or html when -o ends in .html
    std::string output;
    std::vector<std::string> fail_if;
    double min_change_pct = cmp::relative_floor * 100;
};

// The measured sections of one side, in run_units_of's order ("." first,
// ranks by name, dispatches by number); a directory without any artefact
// in any section is not a dfx_outputs directory.
using side_units = std::vector<std::pair<std::string, rep::unit_measures>>;

const rep::unit_measures* find_section(const side_units& units, const std::string& label) {
    for (const auto& [l, m] : units)
        if (l == label) return &m;
    return nullptr;
}

side_units measure_side(const std::string& dir, const char* side) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::exists(dir, ec)) throw usage_error(fmt::format("{} {}: no such directory", side, dir));
    if (!fs::is_directory(dir, ec))
        throw usage_error(fmt::format("{} {}: not a directory (dfx compare reads two dfx_outputs directories)", side, dir));
    side_units out;
    for (const rep::run_unit& u : rep::run_units_of(dir)) {
        if (!rep::find_artefacts(u.dir).any()) continue;
        out.emplace_back(u.label, measure_run_unit(u, stderr, 120, /*keep_digest=*/true));
    }
    if (out.empty()) {
        std::string flags;
        for (const auto& m : rep::run_artefacts{}.missing()) flags += fmt::format(", {} ({})", m.file, m.flag);
        throw dfx::convert::input_error(
            fmt::format("{}: not a dfx_outputs directory: no artefact to compare; expected any of{}", dir, flags.substr(1)));
    }
    return out;
}

void run(const compare_args& args) {
    const progress_reporter progress("compare");
    std::vector<cmp::fail_condition> conditions;
    for (const auto& e : args.fail_if) {
        try {
            conditions.push_back(cmp::parse_fail_if(e));
        } catch (const cmp::fail_if_error& err) {
            throw usage_error(std::string("--fail-if ") + err.what());
        }
    }
    std::string format = args.format;
    if (format.empty()) format = ends_with(args.output, ".html") ? "html" : "text";

    const auto a = measure_side(args.a, "A");
    const auto b = measure_side(args.b, "B");
    std::vector<cmp::compare_row> rows;
    // Sections in A's order ("." first, then rank/dispatch), then those only in B.
    const auto only = [&](const std::string& label, const char* side, const std::string& dir) {
        cmp::compare_row r;
        r.section = label;
        r.measure = "section";
        r.absent = fmt::format("{}: no {} section in {}", side, label, dir);
        rows.push_back(std::move(r));
    };
    for (const auto& [label, ma] : a) {
        const rep::unit_measures* mb = find_section(b, label);
        if (!mb) {
            only(label, "B", args.b);
            continue;
        }
        auto unit_rows = cmp::compare_units(ma, *mb, args.min_change_pct / 100);
        rows.insert(rows.end(), std::make_move_iterator(unit_rows.begin()), std::make_move_iterator(unit_rows.end()));
    }
    for (const auto& [label, mb] : b)
        if (!find_section(a, label)) only(label, "A", args.a);

    std::vector<cmp::fail_verdict> verdicts;
    for (const auto& c : conditions) {
        try {
            for (auto& v : cmp::evaluate(c, rows)) verdicts.push_back(std::move(v));
        } catch (const cmp::fail_if_error& err) {
            throw usage_error(std::string("--fail-if ") + err.what());
        }
    }

    const std::string text = cmp::render_compare_text(args.a, args.b, rows, verdicts);
    const dfx::convert::io_progress::console_output hold;  // the report on lines of its own
    if (format == "json") {
        write_text_output(args.output, cmp::render_compare_json(args.a, args.b, rows, verdicts));
    } else if (format == "csv") {
        write_text_output(args.output, cmp::render_compare_csv(rows));
    } else if (format == "html") {
        namespace fs = std::filesystem;
        const std::string page =
            args.output.empty() ? (fs::path(args.b) / std::string(dfx::schema::compare_page_file)).string() : args.output;
        write_text_output(page, cmp::render_compare_html(args.a, args.b, rows, verdicts));
        if (page != "-") fmt::print("{}Wrote {}\n", text, page);
    } else {
        write_text_output(args.output, text);
        if (!args.output.empty() && args.output != "-") fmt::print("Wrote {}\n", args.output);
    }
    exit_code = 0;
    std::size_t violated = 0;
    for (const auto& v : verdicts) {
        if (!v.violated) continue;
        ++violated;
        fmt::print(stderr, "dfx compare: --fail-if violated: {}\n", v.why);
    }
    if (violated) exit_code = fail_if_exit;
}

}  // namespace

void add_compare(CLI::App& app) {
    auto a = std::make_shared<compare_args>();
    auto* cmd = app.add_subcommand("compare", "What changed between two runs: the report's measures side by side, with significance");
    cmd->add_option("a", a->a, "The baseline dfx_outputs directory (or L3 tree)")->required();
    cmd->add_option("b", a->b, "The dfx_outputs directory to compare with it")->required();
    cmd->add_option("--format", a->format, "Output format (default text; html when -o ends in .html)")
        ->check(CLI::IsMember({"text", "json", "csv", "html"}));
    cmd->add_option("-o,--output", a->output, "Write to this file (- is stdout); html default: B/dfx_compare.html");
    cmd->add_option("--fail-if", a->fail_if,
                    "Exit 3 when MEASURE OP VALUE holds, e.g. 'makespan>+5%', 'kernel:*.p50>+10%' (repeatable)")
        ->allow_extra_args(false);
    cmd->add_option("--min-change", a->min_change_pct,
                    "Makespan and critical path: a change is significant past this % of A (default 5)")
        ->check(CLI::Range(0.0, 1000.0));
    cmd->callback([a] { run(*a); });
}

}  // namespace dfx::cli
