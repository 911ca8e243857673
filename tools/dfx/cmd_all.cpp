// dfx all <dir>: every applicable converter over a dfx_outputs tree, L3
// rank<r>/d<k> dispatch directories included, run in parallel (one `dfx`
// process per conversion, so one bad artefact cannot take the others down),
// with a progress line on a terminal and a summary at the end.
//
// A converter whose inputs are absent or below the level it needs is skipped
// with the reason (sched-overhead needs deps.json and chip_swimlane_level >= 3;
// critical-path needs records, deps.json and a name map in one directory), and
// the exit status is 0 when every conversion that applied succeeded.
// critical-path runs last, over the whole tree, so it finds the merged traces
// the swimlane conversions wrote.
//
// --format perfetto: every trace is Perfetto's protobuf (merged_swimlane.pftrace,
// CPM_static.pftrace, CPM_observed.pftrace; critical-path then draws its traces
// from the capture), and the summary names each trace under its conversion.
// The default (json) output is what it always was.
//
// In an L3 tree each dispatch is labelled through its own program: the
// dispatch's dispatch_program.json names it, and that dispatch's name map
// (written for that program) gives the names. A dispatch whose program
// cannot be resolved is converted with anonymous labels, never with a map
// that might belong to another program (func ids restart in every program;
// convert/common/dispatch_name_map.hpp, which critical-path's protobuf
// traces follow too).
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>


#include "big_trace_note.hpp"
#include "commands.hpp"
#include "dfx/convert/common/dispatch_name_map.hpp"
#include "dfx/convert/common/input_error.hpp"
#include "dfx/schema/artefact_names.hpp"
#include "dfx/schema/converter_outputs.hpp"
#include "dfx/schema/l3_layout.hpp"
#include "dfx/schema/records_fields.hpp"

extern char** environ;

namespace dfx::cli {

namespace {

namespace fs = std::filesystem;

struct job {
    job(std::string what, std::vector<std::string> arguments, fs::path out = {})
        : label(std::move(what)), args(std::move(arguments)), stdout_file(std::move(out)) {}

    std::string label;              // what the progress line and the summary show
    std::vector<std::string> args;  // dfx arguments (without argv[0])
    fs::path stdout_file;           // where its stdout goes (empty: discarded)
    std::string skipped;            // why it does not apply (then it is not run)
    int exit_code = -1;
    std::string errors;             // its stderr
    std::vector<std::string> traces;  // the traces it wrote (named in the summary with --format perfetto)
};

// chip_swimlane_level of a records file, when its first 64 KiB say it (the
// writers put it first). Unknown: let the converter itself judge the file.
std::optional<int> records_level(const fs::path& records) {
    std::ifstream in(records, std::ios::binary);
    std::string head(64 * 1024, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(in.gcount()));
    const std::string quoted = "\"" + std::string(dfx::schema::records_level_member) + "\"";
    const std::size_t key = head.find(quoted);
    if (key == std::string::npos) return std::nullopt;
    std::size_t i = head.find_first_not_of(" \t\r\n", key + quoted.size());
    if (i == std::string::npos || head[i] != ':') return std::nullopt;
    i = head.find_first_not_of(" \t\r\n", i + 1);
    if (i == std::string::npos || !std::isdigit(static_cast<unsigned char>(head[i]))) return std::nullopt;
    return head[i] - '0';
}

// The directories to convert: the tree itself and every rank<r>/d<k> below it
// (digits only, schema/l3_layout.hpp), dispatches in numeric order.
std::vector<fs::path> units_of(const fs::path& root) {
    std::vector<fs::path> units{root};
    std::error_code ec;
    std::vector<fs::path> ranks;
    for (const auto& e : fs::directory_iterator(root, ec))
        if (e.is_directory() && dfx::schema::is_rank_dir_name(e.path().filename().string())) ranks.push_back(e.path());
    std::sort(ranks.begin(), ranks.end());
    for (const auto& rank : ranks) {
        std::vector<fs::path> dispatches;
        for (const auto& e : fs::directory_iterator(rank, ec))
            if (e.is_directory() && dfx::schema::is_dispatch_dir_name(e.path().filename().string())) dispatches.push_back(e.path());
        std::sort(dispatches.begin(), dispatches.end(), [](const fs::path& a, const fs::path& b) {
            return dfx::schema::dispatch_index(a.filename().string()) < dfx::schema::dispatch_index(b.filename().string());
        });
        units.insert(units.end(), dispatches.begin(), dispatches.end());
    }
    return units;
}

// An empty name map: what an L3 dispatch with no resolvable program is
// converted with, so no sibling map can be picked up in its place.
fs::path anonymous_name_map(const fs::path& scratch) {
    const fs::path p = scratch / dfx::schema::anonymous_name_map_file;
    std::ofstream(p) << "{\"level\": 2, \"orchestrator_name\": null, \"callable_id_to_name\": {}}\n";
    return p;
}

// `perfetto`: the swimlane traces in Perfetto's protobuf (--format perfetto).
std::vector<job> jobs_for(const fs::path& unit, bool l3_dispatch, const fs::path& scratch, bool perfetto) {
    std::vector<job> jobs;
    const std::string where = unit.string();
    const fs::path records = unit / dfx::schema::records_file;
    if (fs::exists(records)) {
        const std::string trace =
            (unit / (perfetto ? dfx::schema::merged_perfetto_trace_file : dfx::schema::merged_trace_file)).string();
        job j("swimlane " + where, {"swimlane", records.string(), "-o", trace});
        if (perfetto) j.args.insert(j.args.end(), {"--format", "perfetto"});
        j.traces.push_back(fs::absolute(trace).lexically_normal().string());  // as critical-path names its own
        if (l3_dispatch) {
            if (const auto map = dfx::convert::dispatch_name_map(unit))
                j.args.insert(j.args.end(), {"--func-names", map->string()});
            else  // unresolved program: anonymous labels, never a guess
                j.args.insert(j.args.end(), {"--func-names", anonymous_name_map(scratch).string()});
        }
        jobs.push_back(j);
        job& sched = jobs.emplace_back("sched-overhead " + where, std::vector<std::string>{"sched-overhead", records.string()},
                                       unit / dfx::schema::sched_overhead_report_file);
        const auto level = records_level(records);
        if (!fs::exists(unit / dfx::schema::deps_file))
            sched.skipped = "no deps.json (capture one with dep_gen on: dfx-sim --enable-dep-gen)";
        else if (level && *level < 3)
            sched.skipped = "chip_swimlane_level " + std::to_string(*level) +
                            " (the scheduler phases it reads are recorded from level 3: --enable-chip-swimlane=3)";
    }
    if (fs::exists(unit / dfx::schema::deps_file))
        jobs.emplace_back("deps " + where, std::vector<std::string>{"deps", (unit / dfx::schema::deps_file).string()});
    if (fs::exists(unit / dfx::schema::scope_stats_path))
        jobs.emplace_back("scope-stats " + where,
                          std::vector<std::string>{"scope-stats", (unit / dfx::schema::scope_stats_path).string()});
    if (fs::exists(unit / dfx::schema::args_dump_manifest_path))
        jobs.emplace_back("dump " + where, std::vector<std::string>{"dump", (unit / dfx::schema::args_dump_dir).string()},
                          unit / dfx::schema::args_dump_dir / dfx::schema::dump_list_file);
    if (fs::exists(unit / dfx::schema::pmu_csv_file))
        jobs.emplace_back("pmu " + where, std::vector<std::string>{"pmu", (unit / dfx::schema::pmu_csv_file).string(), "-o",
                                                                   (unit / dfx::schema::pmu_summary_file).string()});
    return jobs;
}

// critical-path over the whole tree, or why it does not apply.
// `perfetto`: its traces in Perfetto's protobuf, drawn from the capture.
job critical_path_job(const fs::path& root, const std::vector<fs::path>& units, bool perfetto) {
    job j("critical-path " + root.string(), {"critical-path", root.string()}, root / dfx::schema::critical_path_report_file);
    if (perfetto) j.args.insert(j.args.end(), {"--format", "perfetto"});
    const bool applies = std::any_of(units.begin(), units.end(), [](const fs::path& u) {
        std::error_code ec;
        if (!fs::exists(u / dfx::schema::records_file, ec) || !fs::exists(u / dfx::schema::deps_file, ec)) return false;
        for (const auto& e : fs::directory_iterator(u, ec))
            if (dfx::schema::is_name_map_file_name(e.path().filename().string())) return true;
        return false;
    });
    if (!applies) j.skipped = "needs chip_swimlane_records.json, deps.json and a name_map*.json in one directory";
    return j;
}

std::string read_all(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// The traces critical-path names on its stdout ("Perfetto trace written to: <path>").
std::vector<std::string> traces_named_in(const fs::path& console) {
    constexpr std::string_view prefix = "Perfetto trace written to: ";
    std::vector<std::string> traces;
    std::istringstream lines(read_all(console));
    for (std::string line; std::getline(lines, line);)
        if (line.compare(0, prefix.size(), prefix) == 0) traces.push_back(line.substr(prefix.size()));
    return traces;
}

// Runs `dfx <args>` (this very executable), stdout to the job's file, stderr
// kept for the summary.
void run(job& j, const std::string& self, const fs::path& scratch) {
    const fs::path err = scratch / (std::to_string(reinterpret_cast<std::uintptr_t>(&j)) + ".err");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    const std::string out = j.stdout_file.empty() ? "/dev/null" : j.stdout_file.string();
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    std::vector<char*> argv{const_cast<char*>(self.c_str())};
    for (auto& a : j.args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    const int rc = posix_spawn(&pid, self.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) {
        j.exit_code = 127;
        j.errors = "cannot start " + self + ": " + std::strerror(rc);
        return;
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    j.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    j.errors = read_all(err);
    std::error_code ec;
    fs::remove(err, ec);
}

}  // namespace

void add_all(CLI::App& app) {
    auto* cmd = app.add_subcommand("all", "Every applicable converter over a dfx_outputs tree (L3 trees included), in parallel");
    static std::string root;
    static unsigned parallel = 0;
    static std::string format = "json";
    cmd->add_option("dir", root, "A dfx_outputs directory (L3: with rank<r>/d<k>/ below it)")
        ->required()
        ->check(CLI::ExistingDirectory);
    cmd->add_option("-j,--jobs", parallel, "Conversions run at once (default: the number of cores)");
    cmd->add_option("--format", format,
                    "Format of every trace: json (merged_swimlane.json, CPM_*.json) or perfetto (Perfetto's protobuf: "
                    "merged_swimlane.pftrace, CPM_*.pftrace drawn from the capture; the summary names each trace)")
        ->check(CLI::IsMember({"json", "perfetto"}));
    cmd->callback([] {
        const fs::path scratch = fs::temp_directory_path() / ("dfx-all-" + std::to_string(::getpid()));
        fs::create_directories(scratch);
        std::vector<job> jobs;
        const std::vector<fs::path> units = units_of(root);
        for (const auto& unit : units) {
            auto more = jobs_for(unit, unit != fs::path(root), scratch, format == "perfetto");
            jobs.insert(jobs.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
        }
        if (jobs.empty()) {
            std::error_code ignored;
            fs::remove_all(scratch, ignored);
            throw dfx::convert::input_error("nothing to convert under " + root + " (no chip_swimlane_records.json, "
                                            "deps.json, scope_stats/, args_dump/ or pmu.csv)");
        }
        // critical-path last: it reads the merged traces the swimlane jobs write.
        const bool perfetto = format == "perfetto";
        std::vector<job> last{critical_path_job(root, units, perfetto)};
        const std::string self = fs::read_symlink("/proc/self/exe").string();
        const bool terminal = ::isatty(STDERR_FILENO);
        const unsigned workers = std::max(1u, parallel ? parallel : std::thread::hardware_concurrency());
        std::size_t total = 0;
        for (const auto* batch : {&jobs, &last})
            total += static_cast<std::size_t>(std::count_if(batch->begin(), batch->end(), [](const job& j) { return j.skipped.empty(); }));
        std::atomic<std::size_t> done{0};
        std::mutex progress;
        for (auto* batch : {&jobs, &last}) {
            std::vector<job*> todo;
            for (job& j : *batch)
                if (j.skipped.empty()) todo.push_back(&j);
            std::atomic<std::size_t> next{0};
            std::vector<std::thread> pool;
            for (unsigned w = 0; w < std::min<std::size_t>(workers, todo.size()); ++w)
                pool.emplace_back([&] {
                    for (std::size_t i; (i = next++) < todo.size();) {
                        run(*todo[i], self, scratch);
                        const std::size_t finished = ++done;
                        if (terminal) {
                            std::lock_guard lock(progress);
                            std::fprintf(stderr, "\r\033[K[%zu/%zu] %s", finished, total, todo[i]->label.c_str());
                        }
                    }
                });
            for (auto& t : pool) t.join();
        }
        if (terminal) std::fprintf(stderr, "\r\033[K");
        std::error_code ec;
        fs::remove_all(scratch, ec);

        std::size_t failed = 0, skipped = 0;
        for (const auto* batch : {&jobs, &last})
            for (const auto& j : *batch) {
                if (!j.skipped.empty()) {
                    ++skipped;
                    std::printf("skipped %s: %s\n", j.label.c_str(), j.skipped.c_str());
                    continue;
                }
                std::printf("%-6s %s\n", j.exit_code == 0 ? "ok" : "FAILED", j.label.c_str());
                if (perfetto && j.exit_code == 0) {
                    std::vector<std::string> traces = j.traces;
                    if (j.args.front() == "critical-path") traces = traces_named_in(j.stdout_file);
                    for (const std::string& t : traces) std::printf("       trace: %s\n", t.c_str());
                }
                if (j.exit_code != 0) {
                    ++failed;
                    std::printf("       exit %d: %s", j.exit_code, j.errors.empty() ? "(no message)\n" : j.errors.c_str());
                    if (!j.errors.empty() && j.errors.back() != '\n') std::printf("\n");
                }
            }
        std::printf("%zu conversions, %zu failed, %zu skipped\n", total, failed, skipped);
        // The big traces' notes (each job's own stderr is shown only when it
        // fails): the swimlane traces, then critical-path's (which have no
        // --window of their own).
        std::vector<std::string> swimlane_traces, cpm_traces;
        for (const auto* batch : {&jobs, &last})
            for (const auto& j : *batch) {
                if (!j.skipped.empty() || j.exit_code != 0) continue;
                if (j.args.front() == "critical-path") {
                    for (std::string& t : traces_named_in(j.stdout_file)) cpm_traces.push_back(std::move(t));
                } else {
                    swimlane_traces.insert(swimlane_traces.end(), j.traces.begin(), j.traces.end());
                }
            }
        std::fflush(stdout);
        note_big_traces(swimlane_traces, {.window = true, .perfetto_format = !perfetto}, stderr);
        note_big_traces(cpm_traces, {.perfetto_format = !perfetto}, stderr);
        exit_code = failed ? 1 : 0;
    });
}

}  // namespace dfx::cli
