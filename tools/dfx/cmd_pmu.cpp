// dfx pmu: per-kernel and per-core summary of a pmu.csv (the reference ships
// no PMU viewer; the format is documented in include/dfx/convert/pmu/pmu_summary.hpp).
#include <cstdio>
#include <exception>
#include <filesystem>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "commands.hpp"
#include "dfx/convert/common/json_writer.hpp"
#include "dfx/convert/common/py_path.hpp"
#include "dfx/convert/deps/name_map.hpp"
#include "dfx/convert/pmu/pmu_summary.hpp"

namespace dfx::cli {

namespace {

struct pmu_args {
    std::string input = "pmu.csv", func_names, by = "all", output;
};

int run(CLI::App& cmd, const pmu_args& a) {
    namespace fs = std::filesystem;
    namespace conv = dfx::convert;
    if (a.by != "all" && a.by != "kernel" && a.by != "core") {
        std::fprintf(stderr, "error: argument --by: invalid choice: '%s' (choose from 'all', 'kernel', 'core')\n", a.by.c_str());
        return 2;
    }
    const std::string input = conv::py_path(a.input);
    std::error_code ec;
    if (!fs::exists(input, ec)) {
        std::fprintf(stderr, "%s not found.\n", input.c_str());
        return 1;
    }
    conv::deps::name_map names;
    if (cmd.count("--func-names") > 0) {
        names = conv::deps::load_name_map(a.func_names);
    } else {
        const std::string dir = conv::py_path_parent(input);
        if (const auto found = conv::deps::discover_name_map(dir == "." ? fs::path() : fs::path(dir)))
            names = conv::deps::load_name_map(found->string());
    }
    const conv::pmu::pmu_summary s = conv::pmu::summarize_pmu_csv(input);
    const std::string text = conv::pmu::render_pmu_summary(s, input, names, a.by != "core", a.by != "kernel");
    if (cmd.count("--output") > 0) {
        conv::json_file_writer out(a.output);
        out.append(text);
        out.commit();
        fmt::print("Wrote {} ({} rows, {} kernels, {} cores)\n", a.output, s.rows, s.by_kernel.size(), s.by_core.size());
    } else {
        fmt::print("{}", text);
    }
    return 0;
}

}  // namespace

void add_pmu(CLI::App& app) {
    auto a = std::make_shared<pmu_args>();
    auto* cmd = app.add_subcommand("pmu", "Per-kernel and per-core summary of pmu.csv");
    cmd->add_option("input", a->input, "pmu.csv (default: ./pmu.csv)");
    cmd->add_option("--func-names", a->func_names, "Name map JSON (default: name_map*.json beside the input)");
    cmd->add_option("--by", a->by, "Tables to print: all (default), kernel, core");
    cmd->add_option("-o,--output", a->output, "Write the summary to this file instead of stdout");
    cmd->callback([cmd, a] {
        try {
            exit_code = run(*cmd, *a);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "dfx pmu: error: %s\n", e.what());
            exit_code = 1;
        }
    });
}

}  // namespace dfx::cli
