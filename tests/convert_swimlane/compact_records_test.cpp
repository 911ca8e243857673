// The records reader's compact modes give the answers the full records give:
// the scheduler loop breakdown of `dfx sched-overhead` from loop lanes
// (phase_records::loop, delta-coded work phases) equals the one from every
// scheduler record (phase_records::keep), and AICPU rows read but not kept
// (keep_aicpu_rows(false), `dfx critical-path`) are still checked and still
// set the time base.
#include <doctest/doctest.h>

#include <cstddef>
#include <string>
#include <vector>

#include "dfx/convert/common/input_error.hpp"
#include "dfx/convert/swimlane/deps_graph.hpp"
#include "dfx/convert/swimlane/overhead_model.hpp"
#include "dfx/convert/swimlane/perf_data.hpp"
#include "dfx/convert/swimlane/records_reader.hpp"
#include "dfx/convert/swimlane/sched_overhead_parts.hpp"
#include "../support/scratch_dir.hpp"

namespace sw = dfx::convert::swimlane;
using test_support::scratch_dir;

namespace {

// Two scheduler threads with every case the breakdown distinguishes: the
// three work kinds, kinds it ignores (release, dummy_task), equal starts
// (the stable sort keeps file order), overlapping and out-of-order phases,
// a loop_iter that is not monotonic, tasks_processed on a dispatch and pop
// counters on an async_poll (not counted), an empty thread and a null one.
constexpr const char* loops_doc = R"({
  "chip_swimlane_level": 4,
  "metadata": {"clock_freq_hz": 50000000, "core_types": ["aic", "aiv"], "core_to_thread": [0, 1]},
  "aicore_tasks": [[0, 4294967296, 1, 1000120, 1000620, 5], [1, 4294967297, 1, 1000660, 1001160, 4]],
  "aicpu_tasks": [[0, 1, 1000108, 1000630], [1, 1, 1000648, 1001170]],
  "aicpu_scheduler_phases": [
    [
      {"kind": "dispatch", "start_cycles": 1000100, "end_cycles": 1000110, "loop_iter": 7, "tasks_processed": 5, "pop_hit": 3, "pop_miss": 2},
      {"kind": "complete", "start_cycles": 1000625, "end_cycles": 1000640, "loop_iter": 40, "tasks_processed": 2},
      {"kind": "async_poll", "start_cycles": 1000300, "end_cycles": 1000333, "loop_iter": 12, "pop_hit": 100, "pop_miss": 100},
      {"kind": "release", "start_cycles": 1000001, "end_cycles": 1000900, "loop_iter": 99, "tasks_processed": 9},
      {"kind": "dispatch", "start_cycles": 1000300, "end_cycles": 1000301, "loop_iter": 3, "pop_hit": 1, "pop_miss": 9000000000000000000},
      {"kind": "complete", "start_cycles": 1000630, "end_cycles": 1000631, "loop_iter": 41, "tasks_processed": 9000000000000000000}
    ],
    [
      {"kind": "dummy_task", "start_cycles": 1000650, "end_cycles": 1000650, "loop_iter": 1, "tasks_processed": 1, "task_id": 5},
      {"kind": "complete", "start_cycles": 1001165, "end_cycles": 1001190, "loop_iter": 2, "tasks_processed": 1},
      {"kind": "dispatch", "start_cycles": 1000640, "end_cycles": 1000655, "loop_iter": 1, "pop_hit": 1, "pop_miss": 0}
    ],
    [],
    null
  ],
  "aicpu_orchestrator_phases": [[{"submit_idx": 0, "task_id": 4294967296, "start_cycles": 1000000, "end_cycles": 1000050}]]
})";

sw::loop_breakdown loops_of(const sw::perf_data& pd) {
    const sw::deps_graph no_deps;
    return sw::compute_loop_breakdown(pd, no_deps, sw::task_id_index(pd.tasks));
}

}  // namespace

TEST_CASE("the loop breakdown from compact loop lanes equals the one from the full scheduler records") {
    scratch_dir dir;
    const std::string path = dir.write("r.json", loops_doc);
    const sw::perf_data full = sw::load_perf_data(path, nullptr, false, sw::phase_records::keep);
    const sw::perf_data compact = sw::load_perf_data(path, nullptr, false, sw::phase_records::loop);
    // What the compact read keeps: work phases only, no full records, no orchestrator records.
    REQUIRE(compact.loop.size() == 4);
    CHECK(compact.loop[0].work_phases == 5);  // the release phase is not work
    CHECK(compact.loop[1].work_phases == 2);
    CHECK(compact.loop[2].work_phases == 0);
    // Summed as soon as the time base was known, and the phases freed.
    for (const sw::loop_lane& lane : compact.loop) CHECK(lane.phases.empty());
    CHECK(compact.loop[0].sums.has_value());
    CHECK(!compact.loop[2].sums.has_value());  // an empty lane has no loop
    CHECK(compact.sched.empty());
    REQUIRE(compact.orch.size() == 1);  // the lane counted (it makes the capture AICPU-orchestrated), its records not kept
    CHECK(compact.orch[0].empty());
    REQUIRE(full.orch.size() == 1);
    CHECK(full.orch[0].size() == 1);
    CHECK(compact.orchestrator_source == full.orchestrator_source);
    // The full lanes keep their dispatch phases' pop counters as sums.
    REQUIRE(full.sched.size() == 4);
    CHECK(full.sched[0].pop_hit == 4);
    CHECK(full.sched[0].pop_miss == dfx::convert::int128{9000000000000000002});
    CHECK(full.sched[1].pop_hit == 1);
    CHECK(full.sched[1].pop_miss == 0);

    const sw::loop_breakdown a = loops_of(full), b = loops_of(compact);
    REQUIRE(a.threads.size() == 2);
    REQUIRE(b.threads.size() == a.threads.size());
    for (std::size_t i = 0; i < a.threads.size(); ++i) {
        const sw::thread_loop &x = a.threads[i], &y = b.threads[i];
        CHECK(x.thread == y.thread);
        CHECK(x.complete_us == y.complete_us);  // exactly: the same sums in the same order
        CHECK(x.async_poll_us == y.async_poll_us);
        CHECK(x.dispatch_us == y.dispatch_us);
        CHECK(x.idle_us == y.idle_us);
        CHECK(x.total_us == y.total_us);
        CHECK(x.finishes == y.finishes);
        CHECK(x.loops == y.loops);
        CHECK(x.pop_hit == y.pop_hit);
        CHECK(x.pop_miss == y.pop_miss);
        CHECK(x.completed == y.completed);
    }
    CHECK(a.total_us == b.total_us);
    CHECK(a.total_completed == b.total_completed);

    // And the values themselves (50 cycles a µs): thread 0's work phases by
    // start are dispatch [100, 110), dispatch [300, 301), async_poll [300, 333),
    // complete [625, 640), complete [630, 631) (cycles past 10^6).
    const sw::thread_loop& t0 = b.threads[0];
    CHECK(t0.dispatch_us == doctest::Approx((10 + 1) / 50.0));
    CHECK(t0.async_poll_us == doctest::Approx(33 / 50.0));
    CHECK(t0.complete_us == doctest::Approx((15 + 1) / 50.0));
    CHECK(t0.idle_us == doctest::Approx((190 + 292) / 50.0));
    CHECK(t0.loops == 41);
    CHECK(t0.finishes == dfx::convert::int128{9000000000000000002});
    CHECK(t0.pop_hit == 4);
    CHECK(t0.pop_miss == dfx::convert::int128{9000000000000000002});
    const sw::thread_loop& t1 = b.threads[1];
    CHECK(t1.loops == 2);
    CHECK(t1.finishes == 1);
    CHECK(t1.idle_us == doctest::Approx((1165 - 655) / 50.0));
}

TEST_CASE("AICPU rows read but not kept are still checked and still set the time base") {
    scratch_dir dir;
    const std::string path = dir.write("r.json", loops_doc);
    const sw::records_file kept = sw::records_reader(path).read();
    const sw::records_file dropped = sw::records_reader(path).keep_aicpu_rows(false).keep_phases(false).read();
    CHECK(kept.aicpu.size() == 2);
    CHECK(dropped.aicpu.empty());
    CHECK(dropped.aicore.size() == 2);
    CHECK(dropped.base_cycles == kept.base_cycles);
    CHECK(dropped.min_device_cycles == kept.min_device_cycles);
    CHECK(dropped.max_device_cycles == kept.max_device_cycles);
    CHECK(dropped.sched.size() == 4);  // lanes counted, records not kept
    CHECK(dropped.sched[0].empty());

    // An AICPU row whose only early timestamp sets the time base.
    const std::string early = dir.write(
        "early.json", R"({"chip_swimlane_level": 2, "metadata": {"clock_freq_hz": 50000000},
        "aicore_tasks": [[0, 1, 1, 2000, 3000, 5]], "aicpu_tasks": [[0, 1, 1500, 3100]]})");
    CHECK(sw::records_reader(early).keep_aicpu_rows(false).read().base_cycles == 1500);

    const std::string bad = dir.write(
        "bad.json", R"({"chip_swimlane_level": 2, "metadata": {"clock_freq_hz": 50000000},
        "aicore_tasks": [[0, 1, 1, 2000, 3000, 5]], "aicpu_tasks": [[0, 1, -7, 3100]]})");
    CHECK_THROWS_AS(sw::records_reader(bad).keep_aicpu_rows(false).read(), dfx::convert::input_error);
}

TEST_CASE("AICore rows handed to a sink are the rows kept, in file order, and are still checked") {
    scratch_dir dir;
    const std::string path = dir.write("r.json", loops_doc);
    const sw::records_file kept = sw::records_reader(path).read();
    std::vector<sw::aicore_row> seen;
    const sw::records_file streamed =
        sw::records_reader(path).on_aicore_row([&](const sw::aicore_row& r) { seen.push_back(r); }).read();
    CHECK(streamed.aicore.empty());
    REQUIRE(seen.size() == kept.aicore.size());
    for (std::size_t i = 0; i < seen.size(); ++i) {
        CAPTURE(i);
        CHECK(seen[i].core == kept.aicore[i].core);
        CHECK(seen[i].token == kept.aicore[i].token);
        CHECK(seen[i].reg == kept.aicore[i].reg);
        CHECK(seen[i].start == kept.aicore[i].start);
        CHECK(seen[i].end == kept.aicore[i].end);
        CHECK(seen[i].r2s == kept.aicore[i].r2s);
    }
    CHECK(streamed.base_cycles == kept.base_cycles);  // the rows still set the time base
    CHECK(streamed.min_device_cycles == kept.min_device_cycles);

    const std::string bad = dir.write(
        "bad.json", R"({"chip_swimlane_level": 2, "metadata": {"clock_freq_hz": 50000000},
        "aicore_tasks": [[0, 1, 1, 2000, -3000, 5]], "aicpu_tasks": [[0, 1, 1500, 3100]]})");
    std::size_t calls = 0;
    CHECK_THROWS_AS(sw::records_reader(bad).on_aicore_row([&](const sw::aicore_row&) { ++calls; }).read(),
                    dfx::convert::input_error);
    CHECK(calls == 0);  // a bad row is rejected before it reaches the sink
}

// dfx sched-overhead takes Part 5's thread loops right after reading and
// frees the phases: the breakdown from those is the one from the phases.
TEST_CASE("the loop breakdown from thread loops taken early is the one from the phases") {
    scratch_dir dir;
    const std::string path = dir.write("r.json", loops_doc);
    sw::perf_data pd = sw::load_perf_data(path, nullptr, false, sw::phase_records::loop);
    const sw::loop_breakdown from_phases = loops_of(pd);
    const std::vector<sw::thread_loop> early = sw::thread_loops(pd);
    std::vector<sw::loop_lane>().swap(pd.loop);
    const sw::deps_graph no_deps;
    const sw::loop_breakdown b = sw::compute_loop_breakdown(pd, no_deps, sw::task_id_index(pd.tasks), &early);
    REQUIRE(b.threads.size() == from_phases.threads.size());
    REQUIRE(b.threads.size() == 2);
    for (std::size_t i = 0; i < b.threads.size(); ++i) {
        CAPTURE(i);
        CHECK(b.threads[i].thread == from_phases.threads[i].thread);
        CHECK(b.threads[i].total_us == from_phases.threads[i].total_us);
        CHECK(b.threads[i].idle_us == from_phases.threads[i].idle_us);
        CHECK(b.threads[i].completed == from_phases.threads[i].completed);
        CHECK(b.threads[i].loops == from_phases.threads[i].loops);
    }
    CHECK(b.total_us == from_phases.total_us);
    CHECK(b.total_completed == from_phases.total_completed);
}

TEST_CASE("a lane's work phases are summed by start, also when they were read out of order") {
    sw::device_clock clock;  // 1 µs a cycle from cycle 0
    clock.factor = 1.0;
    sw::loop_phase_list in_order, shuffled;
    const sw::loop_phase dispatch{5, 8, sw::phase_kind::dispatch}, complete{10, 20, sw::phase_kind::complete},
        poll{30, 35, sw::phase_kind::async_poll};
    for (const sw::loop_phase& p : {dispatch, complete, poll}) in_order.push_back(p);
    for (const sw::loop_phase& p : {complete, dispatch, poll}) shuffled.push_back(p);
    for (const sw::loop_phase_list* phases : {&in_order, &shuffled}) {
        const sw::loop_sums s = sw::sum_work_phases(*phases, clock);
        CHECK(s.dispatch_us == 3.0);
        CHECK(s.complete_us == 10.0);
        CHECK(s.async_poll_us == 5.0);
        CHECK(s.idle_us == 12.0);  // 8 -> 10 and 20 -> 30
    }
}
