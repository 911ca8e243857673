// dfx scope-stats (alias scope_stats_plot): scope_stats.jsonl -> a
// self-contained HTML report, scope_stats.html next to the input unless
// -o/--output (a file, - for stdout) or --out-dir (a directory) says
// otherwise. Never opens a browser.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "cli_common.hpp"
#include "commands.hpp"
#include "progress.hpp"
#include "dfx/convert/common/json_writer.hpp"
#include "dfx/convert/scope_stats/scope_stats_html.hpp"
#include "dfx/schema/artefact_names.hpp"
#include "dfx/schema/converter_outputs.hpp"

namespace dfx::cli {

namespace {

struct scope_stats_args {
    std::string input, output, out_dir;
};

void run(const scope_stats_args& a) {
    namespace fs = std::filesystem;
    const progress_reporter progress("scope-stats");
    if (!a.output.empty() && !a.out_dir.empty()) throw usage_error("-o/--output and --out-dir exclude each other");
    const std::string input = file_in(a.input, {dfx::schema::scope_stats_path, dfx::schema::scope_stats_file});
    // Paired as read: the records (72 bytes each, more than the pairs on a
    // long run) are never all held, only the begins still open.
    dfx::convert::scope_pairer pairer;
    const auto file = dfx::convert::read_scope_stats(input, [&](const dfx::convert::scope_boundary& b) { pairer.add(b); });
    const auto pairs = std::move(pairer).finish();
    const fs::path dir = a.out_dir.empty() ? fs::path(input).parent_path() : fs::path(a.out_dir);
    const std::string out = !a.output.empty() ? a.output : (dir / dfx::schema::scope_stats_report_file).string();
    std::error_code ec;
    if (out != "-" && fs::path(out).has_parent_path()) fs::create_directories(fs::path(out).parent_path(), ec);
    // Written straight into the writer's blocks: the page is never held whole.
    dfx::convert::json_file_writer writer(out);
    dfx::convert::write_scope_stats_html(writer, file, pairs, fs::path(input).filename().string());
    writer.commit();
    if (out != "-") fmt::print("wrote {}\n", out);
    exit_code = 0;
}

}  // namespace

void add_scope_stats(CLI::App& app) {
    auto a = std::make_shared<scope_stats_args>();
    auto* cmd = app.add_subcommand("scope-stats", "Scope stats (scope_stats.jsonl) -> self-contained HTML report");
    cmd->alias("scope_stats_plot");
    cmd->add_option("jsonl", a->input, "scope_stats/scope_stats.jsonl, or a dfx_outputs directory holding it")->required();
    cmd->add_option("-o,--output", a->output, "The report file, - for stdout (default: scope_stats.html beside the input)");
    cmd->add_option("--out-dir", a->out_dir, "Write scope_stats.html into this directory instead");
    cmd->callback([a] { run(*a); });
}

}  // namespace dfx::cli
