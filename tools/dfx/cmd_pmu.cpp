// dfx pmu: per-kernel and per-core summary of a pmu.csv (the reference ships
// no PMU viewer; the format is documented in include/dfx/convert/pmu/pmu_summary.hpp).
//
//   dfx pmu DIR                      the text tables
//   dfx pmu DIR --format json|csv    the same numbers machine-readable (pmu/pmu_output.hpp)
#include <cstdio>
#include <exception>
#include <filesystem>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "cli_common.hpp"
#include "commands.hpp"
#include "progress.hpp"
#include "dfx/convert/common/io_progress.hpp"
#include "dfx/convert/common/json_writer.hpp"
#include "dfx/convert/common/py_path.hpp"
#include "dfx/convert/deps/name_map.hpp"
#include "dfx/convert/pmu/pmu_output.hpp"
#include "dfx/convert/pmu/pmu_summary.hpp"
#include "dfx/schema/artefact_names.hpp"

namespace dfx::cli {

namespace {

struct pmu_args {
    std::string input = std::string(dfx::schema::pmu_csv_file), func_names, by = "all", output;
    std::string format = "text";  // text, json or csv
    bool lenient = false;
};

void run(CLI::App& cmd, const pmu_args& a) {
    namespace fs = std::filesystem;
    namespace conv = dfx::convert;
    const progress_reporter progress("pmu");
    const std::string input = conv::py_path(file_in(a.input, {dfx::schema::pmu_csv_file}));
    std::error_code ec;
    if (!fs::exists(input, ec)) throw conv::input_error(input + " not found.");
    conv::deps::name_map names;
    if (cmd.count("--func-names") > 0) {
        names = conv::deps::load_name_map(a.func_names, a.lenient);
    } else {
        const std::string dir = conv::py_path_parent(input);
        if (const auto found = conv::deps::discover_name_map(dir == "." ? fs::path() : fs::path(dir)))
            names = conv::deps::load_name_map(found->string(), a.lenient);
    }
    const conv::pmu::pmu_summary s = conv::pmu::summarize_pmu_csv(input);
    const bool kernels = a.by != "core", cores = a.by != "kernel";
    const std::string text = a.format == "json" ? conv::pmu::render_pmu_json(s, input, names, kernels, cores)
                           : a.format == "csv"  ? conv::pmu::render_pmu_csv(s, names, kernels, cores)
                                                : conv::pmu::render_pmu_summary(s, input, names, kernels, cores);
    const dfx::convert::io_progress::console_output hold;  // the report on lines of its own
    if (cmd.count("--output") > 0 && a.output != "-") {
        conv::json_file_writer out(a.output);
        out.append(text);
        out.commit();
        fmt::print("Wrote {} ({} rows, {} kernels, {} cores)\n", a.output, s.rows, s.by_kernel.size(), s.by_core.size());
    } else {
        fmt::print("{}", text);
    }
    exit_code = 0;
}

}  // namespace

void add_pmu(CLI::App& app) {
    auto a = std::make_shared<pmu_args>();
    auto* cmd = app.add_subcommand("pmu", "Per-kernel and per-core summary of pmu.csv");
    cmd->add_option("input", a->input, "pmu.csv, or the directory holding it (default: ./pmu.csv)");
    cmd->add_option("--func-names", a->func_names, "Name map JSON (default: name_map*.json beside the input)");
    cmd->add_option("--format", a->format, "Output format: text (default), json or csv (docs/converters.md)")
        ->check(CLI::IsMember({"text", "json", "csv"}));
    cmd->add_option("--by", a->by, "Tables to print (default all)")->check(CLI::IsMember({"all", "kernel", "core"}));
    cmd->add_option("-o,--output", a->output, "Write the summary to this file instead of stdout (- is stdout)");
    cmd->add_flag("--lenient", a->lenient, "A corrupt name map is a warning (no names), as in the reference (default: an error)");
    cmd->callback([cmd, a] { run(*cmd, *a); });
}

}  // namespace dfx::cli
