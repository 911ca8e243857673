// dfx dump (alias dump_viewer): list, filter and export an args dump
// (args_dump/args_dump.json + args.bin). The viewer lives in
// include/dfx/convert/dump; this maps the command line onto its options.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "cli_common.hpp"
#include "commands.hpp"
#include "progress.hpp"
#include "dfx/convert/dump/dump_viewer.hpp"
#include "dfx/schema/artefact_names.hpp"

namespace dfx::cli {

namespace {

struct dump_args {
    std::string dump_dir, task, stage, role;
    long long arg = 0, index = 0;
    bool do_export = false;
};

}  // namespace

void add_dump(CLI::App& app) {
    auto a = std::make_shared<dump_args>();
    auto* cmd = app.add_subcommand("dump", "List, filter and export args dumps (args_dump.json + args.bin)");
    cmd->alias("dump_viewer");
    cmd->add_option("dump_dir", a->dump_dir,
                    "args_dump directory, or the dfx_outputs directory holding it (default: the newest "
                    "./outputs/*/args_dump)");
    cmd->add_option("-t,--task", a->task, "Only this task_id (e.g. 0x0000000100000003)");
    cmd->add_option("-s,--stage", a->stage, "Only this stage")->check(CLI::IsMember({"before", "after"}));
    cmd->add_option("-r,--role", a->role, "Only this role")->check(CLI::IsMember({"input", "output", "inout"}));
    cmd->add_option("-a,--arg", a->arg, "Only this arg_index");
    cmd->add_option("-i,--index", a->index, "The entry at this manifest index (always exported)");
    cmd->add_flag("-e,--export", a->do_export, "Export the selection to <dump_dir>/txt/*.txt");
    cmd->callback([cmd, a] {
        dfx::convert::dump::dump_viewer_options o;
        const progress_reporter progress("dump");
        if (cmd->count("dump_dir") > 0) {
            std::error_code ec;
            const std::filesystem::path dir(a->dump_dir);
            const bool outputs_dir = std::filesystem::exists(dir / dfx::schema::args_dump_manifest_path, ec);
            o.dump_dir = outputs_dir ? (dir / dfx::schema::args_dump_dir).string() : a->dump_dir;
        }
        if (cmd->count("--task") > 0) o.task = a->task;
        if (cmd->count("--stage") > 0) o.stage = a->stage;
        if (cmd->count("--role") > 0) o.role = a->role;
        if (cmd->count("--arg") > 0) o.arg = a->arg;
        if (cmd->count("--index") > 0) o.index = a->index;
        o.do_export = a->do_export;
        exit_code = dfx::convert::dump::run_dump_viewer(o);
    });
}

}  // namespace dfx::cli
