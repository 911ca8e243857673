// dfx deps (alias deps_viewer): deps.json -> text summary or pan/zoom HTML graph.
// The converter lives in include/dfx/convert/deps; this file only maps the
// command line onto deps_viewer_options, with the reference tool's checks and
// exit codes (2 for usage errors, 1 for a missing or bad input).
#include <cstdio>
#include <exception>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "commands.hpp"
#include "reuse_freed_memory.hpp"
#include "dfx/convert/deps/deps_viewer.hpp"

namespace dfx::cli {

namespace {

struct deps_args {
    std::string input, output, format = "text", edge_mode = "full", engine = "dot", direction = "LR", func_names;
    bool show_tensor_info = false;
};

// argparse-style choice check: prints the reference's message, returns false.
bool check_choice(const char* option, const std::string& value, std::initializer_list<const char*> choices) {
    for (const char* c : choices)
        if (value == c) return true;
    std::string list;
    for (const char* c : choices) list += (list.empty() ? "'" : ", '") + std::string(c) + "'";
    std::fprintf(stderr, "error: argument %s: invalid choice: '%s' (choose from %s)\n", option, value.c_str(), list.c_str());
    return false;
}

int run(CLI::App& cmd, const deps_args& a) {
    namespace deps = dfx::convert::deps;
    if (!check_choice("--format", a.format, {"text", "html"}) ||
        !check_choice("--edge-mode", a.edge_mode, {"full", "reduced", "omitted", "reduced_dataflow", "omitted_dataflow"}) ||
        !check_choice("--engine", a.engine, {"dot", "neato", "sfdp", "fdp", "circo", "twopi"}) ||
        !check_choice("--direction", a.direction, {"TB", "LR", "BT", "RL"}))
        return 2;
    if (a.format != "html") {
        for (const char* opt : {"--engine", "--direction", "--show-tensor-info"}) {
            if (cmd.count(opt) > 0) {
                std::fprintf(stderr, "error: %s is only valid with --format html\n", opt);
                return 2;
            }
        }
    }
    reuse_freed_memory();
    deps::deps_viewer_options o;
    if (cmd.count("input") > 0) o.input = a.input;
    if (cmd.count("--output") > 0) o.output = a.output;
    if (cmd.count("--func-names") > 0) o.func_names = a.func_names;
    o.html = a.format == "html";
    o.mode = *deps::parse_edge_mode(a.edge_mode);
    o.engine = a.engine;
    o.direction = a.direction;
    o.show_tensor_info = a.show_tensor_info;
    try {
        return deps::run_deps_viewer(o);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "dfx deps: error: %s\n", e.what());
        return 1;
    }
}

}  // namespace

void add_deps(CLI::App& app) {
    auto args = std::make_shared<deps_args>();
    auto* cmd = app.add_subcommand("deps", "Dependency graph (deps.json): text summary or pan/zoom HTML via Graphviz");
    cmd->alias("deps_viewer");
    cmd->add_option("input", args->input, "deps.json (default: the newest under ./outputs/)");
    cmd->add_option("-o,--output", args->output, "Output file (default: deps_viewer[_<edge-mode>].txt|.html beside the input)");
    cmd->add_option("--format", args->format, "text (default) or html");
    cmd->add_option("--edge-mode", args->edge_mode, "full (default), reduced, omitted, reduced_dataflow, omitted_dataflow");
    cmd->add_option("--engine", args->engine, "HTML: Graphviz engine dot (default), neato, sfdp, fdp, circo, twopi");
    cmd->add_option("--direction", args->direction, "HTML: rank direction LR (default), TB, BT, RL");
    cmd->add_option("--func-names", args->func_names, "Name map JSON (default: name_map*.json beside the input)");
    cmd->add_flag("--show-tensor-info", args->show_tensor_info, "HTML: per-arg tensor rows, edges routed to arg ports");
    cmd->callback([cmd, args] { exit_code = run(*cmd, *args); });
}

}  // namespace dfx::cli
