// dfx-sim end to end: run the simulated chip with collectors on and off,
// read every artefact back with simdjson and hold it against what the chip
// itself did (--sim-graph: its tasks, its inferred dependency edges, its
// dispatch count, each task's arguments and dump marks), and check the
// kernel results, the flag errors, the ring knobs, two-pass capture and the
// L3 layout.
#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <simdjson.h>

#include "sim_run.hpp"

namespace fs = std::filesystem;

namespace {

using sim_test::contains;
using sim_test::quote;
using sim_test::read_text;
using sim_test::run_sim;
using sim_test::scratch;
using sim_test::sim_run;

std::uint64_t u64_of(std::string_view decimal) { return std::stoull(std::string(decimal)); }

// ---- the chip's own account of the run (--sim-graph) ----

struct edge {
    std::uint64_t pred, succ;
    std::string source;
    std::int64_t arg;
    auto key() const { return std::tie(pred, succ, source, arg); }
    bool operator<(const edge& o) const { return key() < o.key(); }
    bool operator==(const edge& o) const { return key() == o.key(); }
};

struct sim_task {
    std::uint64_t id;
    std::int64_t func_id;
    std::uint64_t block_num;
    std::vector<std::int64_t> arg_types;  // dfx::arg_type: 0 input, 1 output, 2 inout, 3 output_existing
    std::uint64_t scalars;
    std::vector<std::int64_t> dumps;      // level-1 marks
};

struct sim_graph {
    std::uint64_t tasks_run = 0, dispatches = 0;
    std::vector<sim_task> tasks;
    std::vector<edge> edges;
};

sim_graph read_sim_graph(const fs::path& path) {
    simdjson::dom::parser parser;
    simdjson::dom::element doc = parser.load(path.string());
    sim_graph g;
    g.tasks_run = std::uint64_t(doc["tasks_run"]);
    g.dispatches = std::uint64_t(doc["dispatches"]);
    for (simdjson::dom::element t : doc["tasks"].get_array()) {
        sim_task task{u64_of(std::string_view(t["task_id"])), std::int64_t(t["func_id"]), std::uint64_t(t["block_num"]),
                      {}, std::uint64_t(t["scalars"]), {}};
        for (simdjson::dom::element a : t["arg_types"].get_array()) task.arg_types.push_back(std::int64_t(a));
        for (simdjson::dom::element d : t["dumps"].get_array()) task.dumps.push_back(std::int64_t(d));
        g.tasks.push_back(std::move(task));
    }
    for (simdjson::dom::element e : doc["edges"].get_array())
        g.edges.push_back({u64_of(std::string_view(e["pred"])), u64_of(std::string_view(e["succ"])),
                           std::string(std::string_view(e["source"])), std::int64_t(e["arg"])});
    return g;
}

// ---- the collectors' account ----

// "<title>: N records produced, N collected, N dropped" from the summary.
void check_accounting(const std::string& out, const std::string& title) {
    CAPTURE(title);
    const auto at = out.find("\n" + title + ": ");
    REQUIRE(at != std::string::npos);
    unsigned long long produced = 0, collected = 0, dropped = 0;
    REQUIRE(std::sscanf(out.c_str() + at + title.size() + 3, "%llu records produced, %llu collected, %llu dropped",
                        &produced, &collected, &dropped) == 3);
    CHECK(produced > 0);
    CHECK(collected == produced);
    CHECK(dropped == 0);
}

void check_swimlane(const fs::path& file, int level, const sim_graph& g) {
    CAPTURE(level);
    simdjson::dom::parser parser;
    simdjson::dom::element doc = parser.load(file.string());
    CHECK(std::int64_t(doc["chip_swimlane_level"]) == level);
    // One AICore row per dispatch (an SPMD task has one per block), every task there.
    simdjson::dom::array rows = doc["aicore_tasks"];
    CHECK(rows.size() == g.dispatches);
    std::map<std::uint64_t, std::uint64_t> rows_per_task;
    std::set<std::pair<std::uint64_t, std::uint64_t>> core_reg;
    for (simdjson::dom::element row : rows) {
        ++rows_per_task[std::uint64_t(row.at(1))];
        core_reg.insert({std::uint64_t(row.at(0)), std::uint64_t(row.at(2))});
        CHECK(std::uint64_t(row.at(4)) >= std::uint64_t(row.at(3)));  // end >= start
    }
    CHECK(core_reg.size() == g.dispatches);  // (core, dispatch token) is a unique join key
    CHECK(rows_per_task.size() == g.tasks.size());
    for (const auto& t : g.tasks) CHECK(rows_per_task[t.id] == t.block_num);

    simdjson::dom::array aicpu = doc["aicpu_tasks"];
    CHECK(aicpu.size() == (level >= 2 ? g.dispatches : 0u));
    for (simdjson::dom::element row : aicpu) {
        CHECK(core_reg.count({std::uint64_t(row.at(0)), std::uint64_t(row.at(1))}) == 1);
        CHECK(std::uint64_t(row.at(3)) >= std::uint64_t(row.at(2)));  // finish >= dispatch
    }

    simdjson::dom::array pools;
    const bool has_phases = doc["aicpu_scheduler_phases"].get(pools) == simdjson::SUCCESS;
    CHECK(has_phases == (level >= 3));
    if (has_phases) {
        std::uint64_t dispatched = 0;
        for (simdjson::dom::element pool : pools)
            for (simdjson::dom::element p : pool.get_array())
                if (std::string_view(p["kind"]) == "dispatch") dispatched += std::uint64_t(p["tasks_processed"]);
        CHECK(dispatched == g.dispatches);
    }
    simdjson::dom::array lanes;
    const bool has_orch = doc["aicpu_orchestrator_phases"].get(lanes) == simdjson::SUCCESS;
    CHECK(has_orch == (level >= 4));
    if (has_orch) {
        std::vector<std::uint64_t> submitted;
        for (simdjson::dom::element lane : lanes)
            for (simdjson::dom::element p : lane.get_array()) submitted.push_back(std::uint64_t(p["task_id"]));
        std::vector<std::uint64_t> expected;
        for (const auto& t : g.tasks) expected.push_back(t.id);
        CHECK(submitted == expected);  // one record per submit, in submit order
    }
}

void check_deps(const fs::path& file, const sim_graph& g) {
    simdjson::dom::parser parser;
    simdjson::dom::element doc = parser.load(file.string());
    simdjson::dom::array tasks = doc["tasks"];
    REQUIRE(tasks.size() == g.tasks.size());
    std::size_t i = 0;
    for (simdjson::dom::element t : tasks) {
        const sim_task& want = g.tasks[i++];
        CHECK(u64_of(std::string_view(t["task_id"])) == want.id);
        CHECK(std::uint64_t(t["block_num"]) == want.block_num);
        std::int64_t func = -1;
        for (simdjson::dom::element k : t["kernel_ids"].get_array())
            if (std::int64_t(k) >= 0) func = std::int64_t(k);
        CHECK(func == want.func_id);
    }
    // The replayed edges are exactly the ones the chip inferred and scheduled with.
    std::vector<edge> edges;
    for (simdjson::dom::element e : doc["edges"].get_array())
        edges.push_back({u64_of(std::string_view(e["pred"])), u64_of(std::string_view(e["succ"])),
                         std::string(std::string_view(e["source"])), std::int64_t(e["arg"])});
    std::vector<edge> want = g.edges;
    std::sort(edges.begin(), edges.end());
    std::sort(want.begin(), want.end());
    CHECK(edges.size() == want.size());
    CHECK(edges == want);
}

void check_name_map(const fs::path& file) {
    simdjson::dom::parser parser;
    simdjson::dom::element doc = parser.load(file.string());
    CHECK(std::int64_t(doc["level"]) == 2);
    CHECK(doc["orchestrator_name"].is_null());
    simdjson::dom::object names = doc["callable_id_to_name"];
    CHECK(names.size() == 9);
    CHECK(std::string_view(names["0"]) == "matmul");
    CHECK(std::string_view(names["6"]) == "QK");
}

// Begin/end pair up like brackets, with the same site, depth and ring.
void check_scope_stats(const fs::path& file, std::size_t scopes, bool fatal = false) {
    std::istringstream lines(read_text(file));
    std::string line;
    REQUIRE(std::getline(lines, line));
    simdjson::dom::parser meta_parser;
    simdjson::dom::element meta = meta_parser.parse(line);
    CHECK(std::int64_t(meta["version"]) == 6);
    CHECK(bool(meta["fatal"]) == fatal);
    CHECK(std::int64_t(meta["dropped"]) == 0);
    std::vector<std::int64_t> windows;
    for (simdjson::dom::element w : meta["task_window_max"].get_array()) windows.push_back(std::int64_t(w));
    REQUIRE(windows.size() == 4);

    simdjson::dom::parser parser;
    std::vector<std::tuple<std::string, std::int64_t, std::int64_t>> open;
    std::size_t records = 0, begins = 0;
    bool paired = true;
    while (std::getline(lines, line)) {
        ++records;
        simdjson::dom::element e = parser.parse(line);
        const std::string site{std::string_view(e["site"])};
        const std::int64_t depth = e["depth"], ring = e["ring"];
        CHECK(ring == std::min<std::int64_t>(depth, 3));
        const std::int64_t in_flight = std::int64_t(e["task_window_end"]) - std::int64_t(e["task_window_start"]);
        CHECK(in_flight >= 0);
        CHECK(in_flight <= windows[static_cast<std::size_t>(ring)]);  // the window is honoured
        if (std::string_view(e["phase"]) == "begin") {
            ++begins;
            open.emplace_back(site, depth, ring);
        } else {
            paired = paired && !open.empty() && open.back() == std::make_tuple(site, depth, ring);
            if (!open.empty()) open.pop_back();
        }
    }
    CHECK(std::int64_t(meta["total"]) == std::int64_t(records));
    CHECK(begins == scopes);
    if (!fatal) {
        CHECK(paired);
        CHECK(open.empty());
        CHECK(records == 2 * scopes);
    }
}

std::string hex_id(std::uint64_t id) {
    char text[32];
    std::snprintf(text, sizeof text, "0x%016llx", static_cast<unsigned long long>(id));
    return text;
}

// Level 2: every argument (inputs, inouts and scalars before each block's
// dispatch; outputs and inouts once after completion). Level 1: the same,
// restricted to the marked arguments, for the tasks that marked any.
void check_args_dump(const fs::path& dir, int level, const sim_graph& g) {
    CAPTURE(level);
    std::uint64_t expected = 0;
    std::map<std::string, const sim_task*> by_hex;
    for (const auto& t : g.tasks) {
        by_hex[hex_id(t.id)] = &t;
        if (level == 1 && t.dumps.empty()) continue;
        std::uint64_t before = level == 2 ? t.scalars : 0, after = 0;
        for (std::size_t i = 0; i < t.arg_types.size(); ++i) {
            if (level == 1 && std::find(t.dumps.begin(), t.dumps.end(), std::int64_t(i)) == t.dumps.end()) continue;
            const std::int64_t type = t.arg_types[i];
            before += type == 0 || type == 2;
            after += type != 0;
        }
        expected += t.block_num * before + after;
    }
    simdjson::dom::parser parser;
    simdjson::dom::element doc = parser.load((dir / "args_dump.json").string());
    CHECK(std::int64_t(doc["dump_args_level"]) == level);
    CHECK(std::uint64_t(doc["total_args"]) == expected);
    CHECK(std::uint64_t(doc["dropped_records"]) == 0);
    CHECK(std::uint64_t(doc["truncated_args"]) == 0);
    const std::uint64_t bin = fs::file_size(dir / "args.bin");
    std::uint64_t bytes = 0, entries = 0;
    for (simdjson::dom::element a : doc["args"].get_array()) {
        ++entries;
        const std::string id{std::string_view(a["task_id"])};
        REQUIRE(by_hex.count(id) == 1);
        CHECK(std::int64_t(a["func_id"].at(0)) == by_hex[id]->func_id);
        if (std::string_view(a["kind"]) != "tensor") continue;
        CHECK(std::uint64_t(a["bin_size"]) == std::uint64_t(a["numel"]) * 4);  // FLOAT32, whole
        CHECK(std::uint64_t(a["bin_offset"]) + std::uint64_t(a["bin_size"]) <= bin);
        bytes += std::uint64_t(a["bin_size"]);
    }
    CHECK(entries == expected);
    CHECK(bytes == bin);
}

// One row per kernel execution (per SPMD block), on the core's owning thread.
void check_pmu(const fs::path& file, const sim_graph& g) {
    std::istringstream lines(read_text(file));
    std::string line;
    REQUIRE(std::getline(lines, line));
    CHECK(line.rfind("thread_id,core_id,task_id,func_id,core_type,pmu_total_cycles,", 0) == 0);
    std::map<std::string, const sim_task*> by_hex;
    for (const auto& t : g.tasks) by_hex[hex_id(t.id)] = &t;
    std::uint64_t rows = 0;
    std::map<std::string, std::uint64_t> per_task;
    while (std::getline(lines, line)) {
        ++rows;
        unsigned thread = 0, core = 0;
        char id[32] = {};
        long long func = -1;
        REQUIRE(std::sscanf(line.c_str(), "%u,%u,%18[0-9a-fx],%lld,", &thread, &core, id, &func) == 4);
        CHECK(thread == core % 2);  // two scheduler threads, cores dealt round-robin
        REQUIRE(by_hex.count(id) == 1);
        CHECK(by_hex[id]->func_id == func);
        ++per_task[id];
    }
    CHECK(rows == g.dispatches);
    for (const auto& t : g.tasks) CHECK(per_task[hex_id(t.id)] == t.block_num);
}

struct collectors {
    int swimlane = 0;
    bool dep_gen = false, scope_stats = false;
    int dump = 0, pmu = 0;
};

std::vector<std::string> flags_of(const collectors& c) {
    std::vector<std::string> f;
    if (c.swimlane) f.insert(f.end(), {"--chip-swimlane-level", std::to_string(c.swimlane)});
    if (c.dep_gen) f.push_back("--enable-dep-gen");
    if (c.scope_stats) f.push_back("--enable-scope-stats");
    if (c.dump) f.insert(f.end(), {"--dump-args", std::to_string(c.dump)});
    if (c.pmu) f.insert(f.end(), {"--enable-pmu", std::to_string(c.pmu)});
    return f;
}

// The scopes each workload opens (the root scope included).
std::size_t scopes_of(const std::string& workload) {
    if (workload == "chain") return 1 + 12 * 2;
    if (workload == "fanout") return 1 + 3 * (1 + 16);
    if (workload == "spmd") return 1 + 6 * 2;
    return 1 + 8 * 3;  // paged_attention
}

void run_and_check(const std::string& workload, const collectors& c, const std::string& label) {
    CAPTURE(workload);
    CAPTURE(label);
    std::vector<std::string> args = {"--workload", workload, "--seed", "7", "--sim-graph", "GRAPH"};
    const auto extra = flags_of(c);
    args.insert(args.end(), extra.begin(), extra.end());
    const std::string name = workload + "_" + label;
    args[5] = (scratch() / name / "sim_graph.json").string();
    const sim_run r = run_sim(name, args);
    CAPTURE(r.out);
    CAPTURE(r.err);
    REQUIRE(r.status == 0);
    CHECK(contains(r.out, "kernel check: OK"));
    const sim_graph g = read_sim_graph(r.work / "sim_graph.json");
    CHECK(g.tasks_run == g.tasks.size());
    CHECK(!g.tasks.empty());
    std::uint64_t blocks = 0;
    for (const auto& t : g.tasks) blocks += t.block_num;
    CHECK(g.dispatches == blocks);

    const bool any = c.swimlane || c.dep_gen || c.scope_stats || c.dump || c.pmu;
    CHECK(fs::exists(r.outputs()) == any);  // no collector, no directory
    CHECK(fs::exists(r.outputs() / "chip_swimlane_records.json") == (c.swimlane > 0));
    CHECK(fs::exists(r.outputs() / "deps.json") == c.dep_gen);
    CHECK(fs::exists(r.outputs() / "scope_stats" / "scope_stats.jsonl") == c.scope_stats);
    CHECK(fs::exists(r.outputs() / ("name_map_" + workload + ".json")) == (c.swimlane > 0 || c.dep_gen));
    CHECK(fs::exists(r.outputs() / "args_dump" / "args_dump.json") == (c.dump > 0));
    CHECK(fs::exists(r.outputs() / "pmu.csv") == (c.pmu > 0));

    if (c.swimlane) {
        check_accounting(r.out, "chip swimlane");
        check_swimlane(r.outputs() / "chip_swimlane_records.json", c.swimlane, g);
        CHECK(contains(r.out, "dfx swimlane " + (r.outputs() / "chip_swimlane_records.json").string()));
    }
    if (c.dep_gen) {
        check_accounting(r.out, "dep_gen");
        check_deps(r.outputs() / "deps.json", g);
        const std::string deps = (r.outputs() / "deps.json").string();
        CHECK(contains(r.out, "dfx deps " + deps + "\n"));
        CHECK(contains(r.out, "dfx deps " + deps + " --format html --engine sfdp"));
    }
    if (c.swimlane || c.dep_gen) check_name_map(r.outputs() / ("name_map_" + workload + ".json"));
    if (c.scope_stats) {
        check_accounting(r.out, "scope stats");
        check_scope_stats(r.outputs() / "scope_stats" / "scope_stats.jsonl", scopes_of(workload));
        CHECK(contains(r.out, "dfx scope-stats " + (r.outputs() / "scope_stats" / "scope_stats.jsonl").string()));
    }
    if (c.dump) {
        check_accounting(r.out, "args dump");
        check_args_dump(r.outputs() / "args_dump", c.dump, g);
        CHECK(contains(r.out, "dfx dump " + (r.outputs() / "args_dump").string()));
    }
    if (c.pmu) {
        check_accounting(r.out, "PMU");
        check_pmu(r.outputs() / "pmu.csv", g);
        CHECK(contains(r.out, "dfx pmu " + (r.outputs() / "pmu.csv").string()));
    }
    if (!any) CHECK(!contains(r.out, "dfx "));  // no artefact, no hint
}

void check_workload(const std::string& workload) {
    run_and_check(workload, {}, "off");
    run_and_check(workload, {4, false, false}, "swimlane");
    run_and_check(workload, {0, true, false}, "dep_gen");
    run_and_check(workload, {0, false, true}, "scope_stats");
    run_and_check(workload, {0, false, false, 2, 0}, "dump_full");
    run_and_check(workload, {0, false, false, 1, 0}, "dump_marked");
    run_and_check(workload, {0, false, false, 0, 2}, "pmu");
    run_and_check(workload, {4, true, true, 2, 4}, "all");
}

}  // namespace

TEST_CASE("chain: each collector alone and all together") { check_workload("chain"); }
TEST_CASE("fanout: each collector alone and all together") { check_workload("fanout"); }
TEST_CASE("spmd: each collector alone and all together") { check_workload("spmd"); }
TEST_CASE("paged_attention: each collector alone and all together") { check_workload("paged_attention"); }

TEST_CASE("swimlane levels 1-3 stamp exactly their level's data") {
    for (int level = 1; level <= 3; ++level) run_and_check("spmd", {level, false, false}, "level" + std::to_string(level));
}

TEST_CASE("flag errors name the flag and exit 2") {
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"--workload", "banana"}, "--workload"},
        {{"--chip-swimlane-level", "7"}, "--chip-swimlane-level: must be a collection level in [0, 4]"},
        {{"--ring-task-window", "6"}, "--ring-task-window: must be a power of 2"},
        {{"--ring-heap", "1,2,3"}, "--ring-heap: must have exactly 4 entries"},
        {{"--aicore-num", "0,3"}, "--aicore-num"},
        {{"--aicore-num", "lots"}, "--aicore-num"},
        {{"--aicpu-thread-num", "9"}, "--aicpu-thread-num: must be 0 (auto) or in [2, 4]"},
        {{"--chips", "0"}, "--chips"},
        {{"--no-such-flag"}, "--no-such-flag"},
        {{"--two-pass"}, "--two-pass: needs the chip swimlane on"},
        {{"--enable-chip-swimlane", "--enable-l2-swimlane"}, "--enable-l2-swimlane"},
        {{"--dump-args", "3"}, "--dump-args: must be a dump level in [0, 2]"},
        {{"--enable-pmu", "3"}, "--enable-pmu: must be 0 (off) or a PMU event type"},
        {{"--seed", "-1"}, "--seed: expected an unsigned integer"},
        {{"--seed", "18446744073709551616"}, "--seed: expected an unsigned integer"},
        {{"--seed", ""}, "--seed: expected an unsigned integer"},
        {{"--enable-chip-swimlane=5"}, "--enable-chip-swimlane: takes no value"},
        {{"--enable-dep-gen=0"}, "--enable-dep-gen: takes no value"},
        {{"--chip-swimlane-level", ""}, "--chip-swimlane-level"},
        {{"--slow-kernel", "softmax"}, "--slow-kernel: expected NAME:US"},
        {{"--slow-kernel", "nosuch:5"}, "--slow-kernel: expected NAME:US"},
        {{"--slow-kernel", "softmax:0"}, "--slow-kernel: expected NAME:US"},
    };
    int i = 0;
    for (const auto& flag_case : cases) {
        const std::vector<std::string>& args = flag_case.first;
        const std::string& message = flag_case.second;
        CAPTURE(message);
        const sim_run r = run_sim("flags_" + std::to_string(i++), args);
        CHECK(r.status == 2);
        CHECK(contains(r.err, "dfx-sim: error: "));
        // One line, the last (a deprecation warning may come before it).
        const std::size_t at = r.err.find("dfx-sim: error: ");
        CHECK((at != std::string::npos && r.err.find('\n', at) == r.err.size() - 1));
        CHECK(contains(r.err, message));
        CHECK(r.out.empty());  // nothing ran
        CHECK(!fs::exists(r.outputs()));
    }
}

TEST_CASE("flag errors: an empty --work-dir is one line naming the flag") {
    const fs::path err = scratch() / "empty_work_dir.err";
    fs::create_directories(scratch());
    const int status = std::system((quote(DFX_SIM_EXE) + " --work-dir '' > /dev/null 2> " + quote(err.string())).c_str());
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 2);
    CHECK(read_text(err) == "dfx-sim: error: --work-dir: must not be empty (use . for the current directory)\n");
}

TEST_CASE("flag errors: --version prints the project version") {
    const sim_run r = run_sim("version", {"--version"});
    CHECK(r.status == 0);
    CHECK(r.out.rfind("dfx-sim ", 0) == 0);
    CHECK(std::count(r.out.begin(), r.out.end(), '.') == 2);
}

TEST_CASE("a small task window stalls the orchestrator; scope stats shows the window") {
    const sim_run r = run_sim("ring_stall", {"--workload", "fanout", "--ring-task-window", "0,0,4,0", "--enable-scope-stats"});
    CAPTURE(r.out);
    REQUIRE(r.status == 0);
    CHECK(contains(r.out, "kernel check: OK"));
    CHECK(contains(r.out, "orchestrator stalled on ring 2 ring_task_window"));
    const std::string jsonl = read_text(r.outputs() / "scope_stats" / "scope_stats.jsonl");
    CHECK(contains(jsonl, "\"task_window_max\": [64, 64, 4, 64]"));
    check_scope_stats(r.outputs() / "scope_stats" / "scope_stats.jsonl", scopes_of("fanout"));
}

TEST_CASE("a ring too small for what an open scope holds is fatal, and scope stats latches") {
    // paged_attention's QK scope holds up to 8 tasks in ring 2.
    const sim_run r = run_sim("ring_fatal", {"--ring-task-window", "4", "--enable-scope-stats", "--enable-dep-gen"});
    CAPTURE(r.out);
    CHECK(r.status == 1);
    CAPTURE(r.err);
    // FATAL is an error: on stderr, not in the report on stdout.
    CHECK(contains(r.err, "FATAL: ring_task_window of ring 2 (4) is too small"));
    CHECK(contains(r.err, "Raise --ring-task-window"));
    CHECK(!contains(r.out, "FATAL"));
    CHECK(contains(r.out, "kernel check: not run"));
    check_accounting(r.out, "scope stats");
    check_scope_stats(r.outputs() / "scope_stats" / "scope_stats.jsonl", 3, /*fatal=*/true);
    // The heap knob is honoured the same way: a 16 KiB output cannot fit 1 KiB.
    const sim_run h = run_sim("heap_fatal", {"--workload", "spmd", "--ring-heap", "1024"});
    CHECK(h.status == 1);
    CHECK(contains(h.err, "FATAL: ring_heap of ring 1 (1024) is too small"));
}

TEST_CASE("two-pass: the graph from a child process, the timing with dep_gen off, same dfx_outputs") {
    const sim_run r = run_sim("two_pass", {"--workload", "chain", "--chip-swimlane-level", "2", "--enable-dep-gen",
                                           "--two-pass", "--sim-graph", (scratch() / "two_pass_graph.json").string()});
    CAPTURE(r.out);
    CAPTURE(r.err);
    REQUIRE(r.status == 0);
    const auto run1 = r.out.find("[swimlane] run 1/2");
    const auto child = r.out.find("[swimlane:dep_gen subprocess]");
    const auto run2 = r.out.find("[swimlane] run 2/2");
    REQUIRE(run1 != std::string::npos);
    REQUIRE(child != std::string::npos);
    REQUIRE(run2 != std::string::npos);
    CHECK(run1 < child);
    CHECK(child < run2);
    const sim_graph g = read_sim_graph(scratch() / "two_pass_graph.json");
    check_deps(r.outputs() / "deps.json", g);
    check_swimlane(r.outputs() / "chip_swimlane_records.json", 2, g);
    // The timing pass ran without dep_gen: its summary has no dep_gen line after run 2/2.
    CHECK(!contains(r.out.substr(run2), "\ndep_gen: "));
    CHECK(contains(r.out.substr(run2), "dfx deps "));  // asked for explicitly: the hint is printed

    const sim_run failed = run_sim("two_pass_failed", {"--workload", "chain", "--enable-chip-swimlane", "--two-pass",
                                                        "--fail-graph-pass"});
    CAPTURE(failed.err);
    CHECK(failed.status == 0);  // a failed graph pass is a warning
    CHECK(contains(failed.err, "warning: dep_gen graph capture subprocess failed (exit 3)"));
    CHECK(!fs::exists(failed.outputs() / "deps.json"));
    CHECK(fs::exists(failed.outputs() / "chip_swimlane_records.json"));
    CHECK(contains(failed.out, "kernel check: OK"));
}

TEST_CASE("L3: per-dispatch directories, round-robin placement, program markers, stale ones cleared") {
    const fs::path work = scratch() / "l3";
    fs::remove_all(work);
    fs::create_directories(work / "dfx_outputs" / "rank0" / "d7");
    fs::create_directories(work / "dfx_outputs" / "rank5" / "d0");
    fs::create_directories(work / "dfx_outputs" / "rank0" / "notes");
    const sim_run r = run_sim("l3", {"--chips", "2", "--seed", "11", "--chip-swimlane-level", "1", "--enable-scope-stats",
                                     "--dump-args", "1", "--enable-pmu", "4"},
                              /*keep=*/true);
    CAPTURE(r.out);
    CAPTURE(r.err);
    REQUIRE(r.status == 0);
    CHECK(!fs::exists(r.outputs() / "rank0" / "d7"));  // stale dispatch dirs removed...
    CHECK(!fs::exists(r.outputs() / "rank5" / "d0"));
    CHECK(fs::exists(r.outputs() / "rank5"));          // ...rank dirs and other dirs kept
    CHECK(fs::exists(r.outputs() / "rank0" / "notes"));

    // Dispatch seq (seed 11 + seq) lands on rank seq % 2, as that rank's (seq / 2)-th dispatch.
    for (unsigned seq = 0; seq < 4; ++seq) {
        CAPTURE(seq);
        const fs::path dir = r.outputs() / fs::path("rank").concat(std::to_string(seq % 2)) /
                             fs::path("d").concat(std::to_string(seq / 2));
        CHECK(read_text(dir / "dispatch_program.json") == "{\"program\": \"paged_attention\"}");
        check_name_map(dir / "name_map.json");
        check_scope_stats(dir / "scope_stats" / "scope_stats.jsonl", scopes_of("paged_attention"));
        // The same dispatch on one chip, for its graph: the seed decides the routing.
        const sim_run one = run_sim("l3_ref_" + std::to_string(seq),
                                    {"--seed", std::to_string(11 + seq), "--sim-graph",
                                     (scratch() / ("l3_ref_" + std::to_string(seq) + ".json")).string()});
        REQUIRE(one.status == 0);
        const sim_graph g = read_sim_graph(scratch() / ("l3_ref_" + std::to_string(seq) + ".json"));
        check_swimlane(dir / "chip_swimlane_records.json", 1, g);
        check_deps(dir / "deps.json", g);  // the swimlane brings dep_gen along on the simulator
        check_args_dump(dir / "args_dump", 1, g);
        check_pmu(dir / "pmu.csv", g);
    }
    CHECK(!fs::exists(r.outputs() / "rank0" / "d2"));
    CHECK(!fs::exists(r.outputs() / "deps.json"));  // nothing at the top level

    // Two passes in process: the sentinels bracket each pass on stderr.
    const sim_run two = run_sim("l3_two_pass", {"--chips", "2", "--workload", "chain", "--chip-swimlane-level", "1", "--two-pass"});
    CAPTURE(two.err);
    REQUIRE(two.status == 0);
    std::size_t at = 0;
    for (const char* s : {"[pypto] l3_swimlane_pass=graph event=begin", "[pypto] l3_swimlane_pass=graph event=end",
                          "[pypto] l3_swimlane_pass=timing event=begin", "[pypto] l3_swimlane_pass=timing event=end"}) {
        const auto found = two.err.find(s, at);
        CHECK(found != std::string::npos);
        at = found == std::string::npos ? at : found;
    }
    for (const char* dir : {"rank0/d0", "rank0/d1", "rank1/d0", "rank1/d1"}) {
        CAPTURE(dir);
        CHECK(fs::exists(two.outputs() / dir / "deps.json"));
        CHECK(fs::exists(two.outputs() / dir / "chip_swimlane_records.json"));
    }
}
