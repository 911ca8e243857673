// The merged trace for the spec's example (chip-swimlane.md §4.11) and for
// SPMD / no-deps variants: processes, labels, slices, flows and bind ids.
#include <doctest/doctest.h>

#include <simdjson.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_set>
#include <vector>

#include "dfx/convert/common/json_writer.hpp"
#include "dfx/convert/swimlane/deps_graph.hpp"
#include "dfx/convert/swimlane/func_ids.hpp"
#include "dfx/convert/swimlane/name_map.hpp"
#include "dfx/convert/swimlane/perf_data.hpp"
#include "dfx/convert/swimlane/trace_writer.hpp"
#include "perfetto_decode.hpp"
#include "../support/scratch_dir.hpp"

namespace sw = dfx::convert::swimlane;
using test_support::scratch_dir;

namespace {

constexpr const char* records = R"({
  "chip_swimlane_level": 4,
  "metadata": {"clock_freq_hz": 50000000, "num_cores": 2, "core_types": ["aic", "aiv"], "core_to_thread": [0, 0]},
  "aicore_tasks": [[0, 4294967296, 1, 1000120, 1000620, 5], [1, 4294967297, 1, 1000660, 1001160, 4]],
  "aicpu_tasks": [[0, 1, 1000108, 1000630], [1, 1, 1000648, 1001170]],
  "aicpu_scheduler_phases": [
    [
      {"kind": "dispatch", "start_cycles": 1000100, "end_cycles": 1000110, "loop_iter": 1, "tasks_processed": 1, "pop_hit": 1, "pop_miss": 0, "shared_at_start": [1,0,0], "shared_at_end": [0,0,0]},
      {"kind": "complete", "start_cycles": 1000625, "end_cycles": 1000640, "loop_iter": 40, "tasks_processed": 1, "shared_at_start": [0,0,0], "shared_at_end": [0,1,0]},
      {"kind": "dispatch", "start_cycles": 1000640, "end_cycles": 1000650, "loop_iter": 41, "tasks_processed": 1, "pop_hit": 1, "pop_miss": 3, "shared_at_start": [0,1,0], "shared_at_end": [0,0,0]},
      {"kind": "complete", "start_cycles": 1001165, "end_cycles": 1001180, "loop_iter": 80, "tasks_processed": 1, "shared_at_start": [0,0,0], "shared_at_end": [0,0,0]}
    ],
    [], [], []
  ],
  "aicpu_orchestrator_phases": [[
    {"submit_idx": 0, "task_id": 4294967296, "start_cycles": 1000000, "end_cycles": 1000050},
    {"submit_idx": 1, "task_id": 4294967297, "start_cycles": 1000060, "end_cycles": 1000100}
  ]]
})";
constexpr const char* deps_json = R"({"tasks": [
    {"task_id": "4294967296", "kernel_ids": [0, -1, -1], "block_num": 1},
    {"task_id": "4294967297", "kernel_ids": [-1, 1, -1], "block_num": 1}],
  "edges": [{"pred": "4294967296", "succ": "4294967297"}, {"pred": 4294967296, "succ": 4294967297}]})";
constexpr const char* name_map_json = R"({"level": 2, "orchestrator_name": "Demo", "callable_id_to_name": {"0": "QK", "1": "SF"}})";

// Converts and keeps the parsed trace.
struct converted {
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    std::vector<simdjson::dom::element> events;

    // `named_tasks`: trace_options::named_tasks (a CPM trace), or null.
    converted(const scratch_dir& dir, std::string_view records_text, const char* deps_text, const char* names_text,
              const std::unordered_set<std::uint64_t>* named_tasks = nullptr) {
        auto pd = sw::load_perf_data(dir.write("records.json", records_text));
        sw::deps_graph deps;
        if (deps_text) deps = sw::load_deps_graph(dir.write("deps.json", deps_text), nullptr);
        sw::name_map names;
        if (names_text) names = sw::load_name_map(dir.write("name_map_demo.json", names_text));
        sw::resolve_func_ids(pd, deps);  // as dfx swimlane does before writing
        const std::string out = dir.file("trace.json");
        {
            dfx::convert::json_file_writer w(out);
            sw::trace_options opt;
            opt.warnings = nullptr;
            opt.named_tasks = named_tasks;
            sw::write_trace(pd, deps, names, w, opt);
            w.commit();
        }
        doc = parser.load(out);
        for (auto ev : doc["traceEvents"].get_array()) events.push_back(ev);
    }

    std::vector<simdjson::dom::element> where(const std::function<bool(simdjson::dom::element)>& pred) const {
        std::vector<simdjson::dom::element> out;
        for (const auto& ev : events) {
            if (pred(ev)) out.push_back(ev);
        }
        return out;
    }
    std::vector<simdjson::dom::element> named(std::string_view name, std::string_view ph) const {
        return where([&](simdjson::dom::element e) {
            return std::string_view(e["name"].get_string().value()) == name &&
                   std::string_view(e["ph"].get_string().value()) == ph;
        });
    }
    // The X slice a flow event binds to.
    simdjson::dom::element bound(simdjson::dom::element flow) const {
        const std::int64_t id = flow["bind_id"].get_int64().value();
        auto hits = where([&](simdjson::dom::element e) {
            std::int64_t eid = -1;
            return std::string_view(e["ph"].get_string().value()) == "X" && !e["id"].get(eid) && eid == id;
        });
        REQUIRE(hits.size() == 1);
        return hits[0];
    }
};

double num(simdjson::dom::element e, const char* key) { return e[key].get_double().value(); }
std::int64_t integer(simdjson::dom::element e, const char* key) { return e[key].get_int64().value(); }
std::string_view str(simdjson::dom::element e, const char* key) { return e[key].get_string().value(); }

}  // namespace

TEST_CASE("spec example: views, labels and slices") {
    scratch_dir dir;
    converted t(dir, records, deps_json, name_map_json);

    auto qk = t.named("QK(r1t0)", "X");
    REQUIRE(qk.size() == 2);  // Worker View + Scheduler View
    auto worker = integer(qk[0], "pid") == 4 ? qk[0] : qk[1];
    auto sched = integer(qk[0], "pid") == 3 ? qk[0] : qk[1];
    CHECK(integer(worker, "tid") == 10000);
    CHECK(num(worker, "ts") == doctest::Approx(2.3));
    CHECK(num(worker, "dur") == doctest::Approx(10.1));
    CHECK(str(worker["args"], "fanout-hint") == "1: [r1t1]");  // the duplicated edge counts once
    CHECK(str(worker["args"], "fanin-hint") == "0: []");
    CHECK(str(worker["args"], "event-hint") == "Task:r1t0, FuncId:0, CoreId:0");
    CHECK(num(sched, "ts") == doctest::Approx(2.16));
    CHECK(num(sched, "dur") == doctest::Approx(10.44));
    CHECK(t.named("SF(r1t1)", "X").size() == 2);

    auto complete = t.named("complete(1)", "X");
    REQUIRE(complete.size() == 2);
    CHECK(integer(complete[0]["args"], "finish_rows_attributed") == 1);
    CHECK(num(complete[0], "ts") == doctest::Approx(12.5));
    auto queue = t.named("shared_ready_queue", "C");
    REQUIRE(queue.size() == 4);
    CHECK(integer(queue[1]["args"], "AIV") == 1);

    auto submit = t.named("submit(r1t0)", "X");
    REQUIRE(submit.size() == 1);
    CHECK(integer(submit[0], "tid") == 4000);
    CHECK(num(submit[0], "dur") == doctest::Approx(1.0));

    auto process = t.where([](simdjson::dom::element e) {
        return str(e, "name") == "process_name" && integer(e, "pid") == 1;
    });
    REQUIRE(process.size() == 1);
    CHECK(str(process[0]["args"], "name") == "AICPU Demo");
    auto lanes = t.where([](simdjson::dom::element e) {
        return str(e, "name") == "thread_name" && integer(e, "pid") == 4 && integer(e, "tid") >= 19000;
    });
    CHECK(lanes.size() == 2);  // AICPU_0 (scheduler thread 0) + AICPU_1 (orchestrator lane)
    CHECK(t.where([](simdjson::dom::element e) { return str(e, "name") == "thread_name" && integer(e, "pid") == 2; })
              .size() == 5);  // Sched_0..3 + the shared queue
}

TEST_CASE("named_tasks (CPM traces): the other tasks' Worker View bars are anonymous, nothing else changes") {
    scratch_dir dir;
    const std::unordered_set<std::uint64_t> on_path{4294967296};  // r1t0 on the path, r1t1 off it
    converted full(dir, records, deps_json, name_map_json);
    converted cpm(dir, records, deps_json, name_map_json, &on_path);
    CHECK(cpm.named("QK(r1t0)", "X").size() == 2);  // on the path: both views keep the label
    const auto off = cpm.named("\u00B7(r1t1)", "X");
    REQUIRE(off.size() == 1);
    CHECK(integer(off[0], "pid") == 4);  // the Worker View bar ...
    const auto sf = cpm.named("SF(r1t1)", "X");
    REQUIRE(sf.size() == 1);
    CHECK(integer(sf[0], "pid") == 3);  // ... not the Scheduler View's
    REQUIRE(cpm.events.size() == full.events.size());
    for (std::size_t i = 0; i < cpm.events.size(); ++i) {  // event for event, only that name differs
        const bool renamed = str(cpm.events[i], "name") == "\u00B7(r1t1)";
        CHECK(str(full.events[i], "name") == (renamed ? "SF(r1t1)" : str(cpm.events[i], "name")));
        if (renamed) CHECK(str(full.events[i]["args"], "event-hint") == str(cpm.events[i]["args"], "event-hint"));
    }
}

TEST_CASE("spec example: flow arrows and what they bind to") {
    scratch_dir dir;
    converted t(dir, records, deps_json, name_map_json);

    auto dep = t.named("dependency", "s");
    REQUIRE(dep.size() == 2);  // Worker View + Scheduler View mirror
    auto worker_s = integer(dep[0], "pid") == 4 ? dep[0] : dep[1];
    CHECK(num(worker_s, "ts") == doctest::Approx(2.3));
    CHECK(str(t.bound(worker_s), "name") == "QK(r1t0)");
    CHECK(integer(worker_s, "input_task_count") == 1);
    auto dep_f = t.named("dependency", "f");
    auto worker_f = integer(dep_f[0], "pid") == 4 ? dep_f[0] : dep_f[1];
    CHECK(integer(worker_f, "tid") == 10010);
    CHECK(num(worker_f, "ts") == doctest::Approx(13.12));
    CHECK(str(worker_f, "bp") == "e");
    CHECK(str(t.bound(worker_f), "name") == "SF(r1t1)");
    CHECK(t.named("hb_violation", "s").empty());

    auto complete_s = t.named("complete", "s");
    REQUIRE(complete_s.size() == 4);  // 2 tasks x (Worker + Scheduler View)
    CHECK(num(complete_s[0], "ts") == doctest::Approx(12.39));
    auto complete_f = t.named("complete", "f");
    CHECK(num(complete_f[0], "ts") == doctest::Approx(12.6));  // the finish, inside the complete phase

    auto ready_s = t.named("complete→ready", "s");
    REQUIRE(ready_s.size() == 1);
    CHECK(num(ready_s[0], "ts") == doctest::Approx(12.79));
    CHECK(num(t.named("complete→ready", "f")[0], "ts") == doctest::Approx(12.96));

    CHECK(t.named("dispatch", "s").size() == 4);  // to Worker View and to Scheduler View, per task
    auto submit_s = t.named("submit→dispatch", "s");
    REQUIRE(submit_s.size() == 2);
    CHECK(num(submit_s[0], "ts") == doctest::Approx(1.0));
    CHECK(num(t.named("submit→dispatch", "f")[0], "ts") == doctest::Approx(2.16));
}

TEST_CASE("without deps.json: anonymous labels, no dependency arrows, other flows stay") {
    scratch_dir dir;
    converted t(dir, records, nullptr, nullptr);
    CHECK(t.named("task(r1t0)", "X").size() == 2);
    CHECK(str(t.named("task(r1t0)", "X")[0]["args"], "event-hint") == "Task:r1t0, FuncId:-1, CoreId:0");
    CHECK(t.named("dependency", "s").empty());
    CHECK(t.named("complete→ready", "s").empty());
    CHECK(t.named("complete", "s").size() == 4);
    CHECK(t.named("dispatch", "s").size() == 4);
    CHECK(t.named("submit→dispatch", "s").size() == 2);
    auto process = t.where([](simdjson::dom::element e) { return str(e, "name") == "process_name" && integer(e, "pid") == 1; });
    CHECK(str(process[0]["args"], "name") == "AICPU Orchestrator");
}

TEST_CASE("SPMD tasks: _spmd label and one arrow from the earliest slice per function") {
    // Task t1 (block_num 3) runs on cores 1, 2, 3 (all aiv) after t0 on core 0.
    constexpr const char* spmd_records = R"({"chip_swimlane_level": 2,
      "metadata": {"clock_freq_hz": 50000000, "core_types": ["aic", "aiv", "aiv", "aiv"]},
      "aicore_tasks": [[0, 0, 1, 1000, 1100, 0], [1, 1, 1, 1230, 1300, 0], [2, 1, 1, 1210, 1300, 0], [3, 1, 1, 1210, 1300, 0]],
      "aicpu_tasks": [[0, 1, 990, 1110], [1, 1, 1200, 1310], [2, 1, 1200, 1310], [3, 1, 1200, 1310]]})";
    constexpr const char* spmd_deps = R"({"tasks": [
        {"task_id": 0, "kernel_ids": [2, -1, -1]}, {"task_id": 1, "kernel_ids": [-1, 10, -1], "block_num": 3}],
      "edges": [{"pred": 0, "succ": 1}]})";
    scratch_dir dir;
    converted t(dir, spmd_records, spmd_deps, name_map_json);
    CHECK(t.named("func_10_k_spmd(t1)", "X").size() == 6);
    auto dep = t.where([](simdjson::dom::element e) {
        return str(e, "name") == "dependency" && str(e, "ph") == "f" && integer(e, "pid") == 4;
    });
    REQUIRE(dep.size() == 1);
    CHECK(integer(dep[0], "tid") == 10020);  // earliest receive (1210), lower core id of the tie
    CHECK(integer(dep[0], "input_task_count") == 3);  // the block_num
    CHECK(integer(dep[0], "output_task_count") == 1);
}

TEST_CASE("the conformance traces are the same bytes whatever the chunk size, in either format") {
    // Sections are formatted in chunks on two threads (for the protobuf
    // backend: recorded so and handed in in chunk order, in both passes,
    // the first pass's flows placed on their slices where they run);
    // chunks of 1 and 3 items put every boundary between threads (and under
    // TSan, every shared read), and must not change a byte. In Perfetto's
    // format every slice closes and no flow is dropped.
    for (const sw::trace_format format : {sw::trace_format::json, sw::trace_format::perfetto}) {
        for (const char* name : {"l1_small", "l2_nodeps", "l3_deps", "l4_deps", "l4_host"}) {
            CAPTURE(name);
            CAPTURE(format == sw::trace_format::perfetto);
            const std::string dir = std::string(DFX_CONFORMANCE_DIR) + "/" + name;
            scratch_dir out;
            std::vector<std::string> traces;
            for (const std::size_t chunk : {std::size_t{1024}, std::size_t{1}, std::size_t{3}}) {
                auto pd = sw::load_perf_data(dir + "/chip_swimlane_records.json");
                sw::deps_graph deps = sw::load_deps_graph(dir + "/deps.json", nullptr);
                sw::resolve_func_ids(pd, deps);
                const auto names = sw::load_name_map(std::string(dir + "/name_map_" + name + ".json"));
                const std::string path = out.file(std::to_string(chunk));
                {
                    dfx::convert::json_file_writer w(path);
                    sw::trace_options opt;
                    opt.warnings = nullptr;
                    opt.overhead = true;
                    opt.chunk_items = chunk;
                    opt.format = format;
                    sw::write_trace(pd, deps, names, w, opt);
                    w.commit();
                }
                traces.push_back(test_support::slurp(path));
            }
            REQUIRE(traces[0].size() > 1000);
            CHECK(traces[1] == traces[0]);
            CHECK(traces[2] == traces[0]);
            if (format != sw::trace_format::perfetto) continue;
            const perfetto_decode::decoded_trace d = perfetto_decode::decode_trace(traces[0]);
            CHECK(d.problems.empty());
            CHECK(d.slices.size() > 50);
            CHECK(d.dropped_flows.empty());
        }
    }
}

TEST_CASE("a generic scheduler phase is drawn on its thread's lane; an unknown kind is not") {
    // A scheduler that is not Simpler's: one generic phase on thread 1, and a
    // legacy kind the reference dropped, which stays undrawn.
    constexpr const char* generic_records = R"({
  "chip_swimlane_level": 3,
  "metadata": {"clock_freq_hz": 50000000, "num_cores": 1, "core_types": ["aiv"], "core_to_thread": [1]},
  "aicore_tasks": [[0, 7, 1, 1000120, 1000620, 5]],
  "aicpu_tasks": [[0, 1, 1000108, 1000630]],
  "aicpu_scheduler_phases": [
    [],
    [
      {"kind": "generic", "start_cycles": 1000050, "end_cycles": 1000100, "loop_iter": 2, "tasks_processed": 3, "shared_at_start": [0,4,0], "shared_at_end": [0,1,0]},
      {"kind": "scan", "start_cycles": 1000100, "end_cycles": 1000105, "loop_iter": 2, "tasks_processed": 1, "shared_at_start": [0,0,0], "shared_at_end": [0,0,0]}
    ],
    [], []
  ]
})";
    scratch_dir dir;
    converted t(dir, generic_records, nullptr, nullptr);
    auto generic = t.named("generic(3)", "X");
    REQUIRE(generic.size() == 1);
    CHECK(integer(generic[0], "pid") == 2);
    CHECK(integer(generic[0], "tid") == 30010);  // Sched_1, lane 0
    CHECK(str(generic[0], "cat") == "scheduler");
    CHECK(str(generic[0], "cname") == "generic_work");
    CHECK(num(generic[0], "dur") == doctest::Approx(1.0));
    CHECK(str(generic[0]["args"], "phase") == "generic");
    CHECK(integer(generic[0]["args"], "loop_iter") == 2);
    CHECK(t.named("shared_ready_queue", "C").empty());  // queue counters follow complete / dispatch only
    CHECK(t.where([](simdjson::dom::element e) {
               std::string_view name;
               return !e["name"].get(name) && name.substr(0, 4) == "scan";
           }).empty());
}

TEST_CASE("complete phases out of start order: each task's finish goes to the complete phase that holds it") {
    // The spec example with its two complete phases swapped in the file:
    // the trace index orders them by start, their ends with them.
    std::string swapped = records;
    const std::string first = R"({"kind": "complete", "start_cycles": 1000625)";
    const std::string second = R"({"kind": "complete", "start_cycles": 1001165)";
    const std::size_t a = swapped.find(first), b = swapped.find(second);
    REQUIRE(a != std::string::npos);
    REQUIRE(b != std::string::npos);
    const std::size_t a_end = swapped.find('}', a) + 1, b_end = swapped.find('}', b) + 1;
    const std::string first_phase = swapped.substr(a, a_end - a), second_phase = swapped.substr(b, b_end - b);
    swapped.replace(b, b_end - b, first_phase);  // the later one first, so the offsets before it hold
    swapped.replace(a, a_end - a, second_phase);
    REQUIRE(swapped.find(second) < swapped.find(first));
    scratch_dir dir;
    converted t(dir, swapped, deps_json, name_map_json);
    auto complete = t.named("complete(1)", "X");
    REQUIRE(complete.size() == 2);
    // Each holds one task's finish (unsorted ends would leave the later
    // one none); the times only say which phase is which.
    std::sort(complete.begin(), complete.end(), [](auto x, auto y) { return num(x, "ts") < num(y, "ts"); });
    CHECK(num(complete[0], "ts") == doctest::Approx(12.5));
    CHECK(num(complete[1], "ts") == doctest::Approx(23.3));
    for (const auto& c : complete) CHECK(integer(c["args"], "finish_rows_attributed") == 1);
    // The complete arrows (from each task's Worker and Scheduler View
    // slices) end in the phase, at the finish: 12.6 and 23.4 us.
    auto arrows = t.where([](simdjson::dom::element e) {
        std::string_view name, ph;
        return !e["name"].get(name) && name == "complete" && !e["ph"].get(ph) && ph == "f" && integer(e, "pid") == 2;
    });
    REQUIRE(arrows.size() == 4);
    std::sort(arrows.begin(), arrows.end(), [](auto x, auto y) { return num(x, "ts") < num(y, "ts"); });
    for (const std::size_t k : {std::size_t{0}, std::size_t{1}}) CHECK(num(arrows[k], "ts") == doctest::Approx(12.6));
    for (const std::size_t k : {std::size_t{2}, std::size_t{3}}) CHECK(num(arrows[k], "ts") == doctest::Approx(23.4));
}

TEST_CASE("writing the trace leaves the parsed tasks as read; func ids are resolved by their own step") {
    // Level 1 records carry no func ids; dfx swimlane recovers them from
    // deps.json's kernel ids before writing the trace and the statistics.
    const std::string dir = std::string(DFX_CONFORMANCE_DIR) + "/l1_small";
    auto pd = sw::load_perf_data(dir + "/chip_swimlane_records.json");
    const sw::deps_graph deps = sw::load_deps_graph(dir + "/deps.json", nullptr);
    const sw::name_map names;
    const auto func_ids = [&] {
        std::vector<std::int64_t> ids;
        for (const auto& t : pd.tasks) ids.push_back(t.func_id);
        return ids;
    };
    const std::vector<std::int64_t> as_read = func_ids();
    REQUIRE(std::count(as_read.begin(), as_read.end(), -1) > 0);

    scratch_dir out;
    const auto write = [&](const std::string& name) {
        const std::string path = out.file(name);
        dfx::convert::json_file_writer w(path);
        sw::trace_options opt;
        opt.warnings = nullptr;
        sw::write_trace(pd, deps, names, w, opt);
        w.commit();
        return test_support::slurp(path);
    };
    const std::string unresolved = write("unresolved.json");
    CHECK(func_ids() == as_read);
    CHECK(unresolved.find("\"task(t0)\"") != std::string::npos);

    sw::resolve_func_ids(pd, deps);
    const std::vector<std::int64_t> resolved = func_ids();
    CHECK(std::count(resolved.begin(), resolved.end(), -1) < std::count(as_read.begin(), as_read.end(), -1));
    const std::string labelled = write("resolved.json");
    CHECK(func_ids() == resolved);
    CHECK(labelled.find("\"task(t0)\"") == std::string::npos);
}

TEST_CASE("complete phases by end: merged per thread or sorted, always by (end, thread, start order)") {
    // What a sort of every phase by (end, thread, rank) gives.
    const auto by_sort = [](const std::vector<std::vector<double>>& ends) {
        std::vector<std::tuple<double, std::uint32_t, std::uint32_t>> all;
        for (std::uint32_t th = 0; th < ends.size(); ++th) {
            for (std::uint32_t k = 0; k < ends[th].size(); ++k) all.emplace_back(ends[th][k], th, k);
        }
        std::sort(all.begin(), all.end());
        return all;
    };
    const auto visited = [](const std::vector<std::vector<double>>& ends) {
        std::vector<std::tuple<double, std::uint32_t, std::uint32_t>> got;
        sw::trace::flow_detail::for_each_complete_by_end(
            ends, [&](const sw::trace::flow_detail::comp_ref& c) { got.emplace_back(c.end, c.thread, c.rank); });
        return got;
    };
    std::mt19937_64 rng(11);
    for (int round = 0; round < 200; ++round) {
        // 0-20 threads (the merge up to 16), ends at whole µs so they tie
        // within and across threads; every fourth round one thread's ends
        // out of order (a phase that outlasts the next: sorted instead).
        std::vector<std::vector<double>> ends(rng() % 21);
        for (auto& thread : ends) {
            double t = 0;
            for (std::size_t k = rng() % 30; k > 0; --k) thread.push_back(t += static_cast<double>(rng() % 3));
        }
        if (round % 4 == 3 && !ends.empty() && ends[0].size() >= 2) std::swap(ends[0].front(), ends[0].back());
        CHECK(visited(ends) == by_sort(ends));
    }
    CHECK(visited({}).empty());
    CHECK(visited({{}, {}}).empty());
}
