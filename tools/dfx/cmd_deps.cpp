// dfx deps (alias deps_viewer): deps.json -> text summary or pan/zoom HTML graph.
// The converter lives in include/dfx/convert/deps; this file only maps the
// command line onto deps_viewer_options, with the reference tool's checks and
// exit codes (2 for usage errors, 1 for a missing or bad input, both printed by main).
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "cli_common.hpp"
#include "commands.hpp"
#include "progress.hpp"
#include "reuse_freed_memory.hpp"
#include "dfx/convert/deps/deps_viewer.hpp"
#include "dfx/schema/artefact_names.hpp"

namespace dfx::cli {

namespace {

struct deps_args {
    std::string input, output, format = "text", edge_mode = "full", engine = "dot", direction = "LR", func_names;
    bool show_tensor_info = false;
    bool lenient = false;
    std::size_t max_nodes = dfx::convert::deps::html_options{}.max_nodes;
};

// DFX_SORT_MEMORY_KB=N (decimal digits only, 64 KiB to 64 GiB): the memory
// the text view of the full graph sorts in before it spills to $TMPDIR
// (docs/converters.md, "Bounded memory: `dfx deps` text"); any other value
// leaves the default, as the other DFX_* knobs do.
std::size_t sort_memory_bytes(const char* text, std::size_t default_bytes) {
    if (text == nullptr) return default_bytes;
    std::uint64_t kb = 0;
    const char* end = text + std::strlen(text);
    const auto [stop, error] = std::from_chars(text, end, kb);
    if (error != std::errc{} || stop != end || text == end || kb < 64 || kb > (std::uint64_t{64} << 20)) return default_bytes;
    return static_cast<std::size_t>(kb) << 10;
}

void run(CLI::App& cmd, const deps_args& a) {
    namespace deps = dfx::convert::deps;
    const progress_reporter progress("deps");
    if (a.format != "html") {
        for (const char* opt : {"--engine", "--direction", "--show-tensor-info", "--max-nodes"})
            if (cmd.count(opt) > 0) throw usage_error(std::string(opt) + " is only valid with --format html");
    }
    reuse_freed_memory();
    deps::deps_viewer_options o;
    if (cmd.count("input") > 0) o.input = file_in(a.input, {dfx::schema::deps_file});
    if (cmd.count("--output") > 0) o.output = a.output;
    if (cmd.count("--func-names") > 0) o.func_names = a.func_names;
    o.html = a.format == "html";
    o.mode = *deps::parse_edge_mode(a.edge_mode);
    o.engine = a.engine;
    o.direction = a.direction;
    o.show_tensor_info = a.show_tensor_info;
    o.max_nodes = a.max_nodes;
    o.lenient = a.lenient;
    o.sort_memory_bytes = sort_memory_bytes(std::getenv("DFX_SORT_MEMORY_KB"), o.sort_memory_bytes);
    if (a.output == "-") o.console = stderr;  // stdout is the output
    exit_code = deps::run_deps_viewer(o);
}

}  // namespace

void add_deps(CLI::App& app) {
    auto args = std::make_shared<deps_args>();
    auto* cmd = app.add_subcommand("deps", "Dependency graph (deps.json): text summary or pan/zoom HTML via Graphviz");
    cmd->alias("deps_viewer");
    cmd->add_option("input", args->input, "deps.json, or the directory holding it (default: the newest under ./outputs/)");
    cmd->add_option("-o,--output", args->output,
                    "Output file, - for stdout (default: deps_viewer[_<edge-mode>].txt|.html beside the input)");
    cmd->add_option("--format", args->format, "Output format (default text)")->check(CLI::IsMember({"text", "html"}));
    cmd->add_option("--edge-mode", args->edge_mode, "Edges shown (default full)")
        ->check(CLI::IsMember({"full", "reduced", "omitted", "reduced_dataflow", "omitted_dataflow"}));
    cmd->add_option("--engine", args->engine, "HTML: Graphviz engine (default dot)")
        ->check(CLI::IsMember({"dot", "neato", "sfdp", "fdp", "circo", "twopi"}));
    cmd->add_option("--direction", args->direction, "HTML: rank direction (default LR)")
        ->check(CLI::IsMember({"TB", "LR", "BT", "RL"}));
    cmd->add_option("--max-nodes", args->max_nodes,
                    fmt::format("HTML: above this many tasks draw only the critical path and its neighbours; 0 draws "
                                "every task (default {})",
                                args->max_nodes))
        ->check(CLI::Range(std::size_t{0}, std::size_t{100000000}));
    cmd->add_option("--func-names", args->func_names, "Name map JSON (default: name_map*.json beside the input)");
    cmd->add_flag("--show-tensor-info", args->show_tensor_info, "HTML: per-arg tensor rows, edges routed to arg ports");
    cmd->add_flag("--lenient", args->lenient,
                  "Read as the reference viewer does: unusable deps.json entries are dropped (with a warning), a "
                  "corrupt name map or chip_swimlane_records.json beside the input is a warning (default: an error)");
    cmd->footer("Memory: the text view of the full graph (the default) sorts in DFX_SORT_MEMORY_KB KiB (192 MiB by "
                "default) and spills the rest to $TMPDIR (else /tmp); the other views hold the graph.");
    cmd->callback([cmd, args] { run(*cmd, *args); });
}

}  // namespace dfx::cli
