// dfx scope-stats (alias scope_stats_plot): scope_stats.jsonl -> a
// self-contained HTML report, next to the input unless --out-dir says
// otherwise. Never opens a browser.
#include <cstdio>
#include <filesystem>
#include <string>

#include "commands.hpp"
#include "dfx/convert/scope_stats/scope_stats_html.hpp"
#include "dfx/output/atomic_file.hpp"

namespace dfx::cli {

void add_scope_stats(CLI::App& app) {
    auto* cmd = app.add_subcommand("scope-stats", "Scope stats (scope_stats.jsonl) -> self-contained HTML report");
    cmd->alias("scope_stats_plot");
    static std::string input;
    static std::string out_dir;
    cmd->add_option("jsonl", input, "scope_stats/scope_stats.jsonl")->required();
    cmd->add_option("--out-dir", out_dir, "Where to write scope_stats.html (default: next to the input)");
    cmd->callback([] {
        namespace fs = std::filesystem;
        const auto file = dfx::convert::read_scope_stats(input);
        const fs::path dir = out_dir.empty() ? fs::path(input).parent_path() : fs::path(out_dir);
        const fs::path out = dir / "scope_stats.html";
        const std::string html = dfx::convert::render_scope_stats_html(file, fs::path(input).filename().string());
        dfx::write_atomically(out, [&](std::FILE* f) { return std::fwrite(html.data(), 1, html.size(), f) == html.size(); });
        std::printf("wrote %s\n", out.string().c_str());
        exit_code = 0;
    });
}

}  // namespace dfx::cli
