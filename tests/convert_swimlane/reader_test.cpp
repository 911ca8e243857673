// The records reader and the microsecond view (spec chip-swimlane.md §2.9),
// on small hand-built files.
#include <doctest/doctest.h>

#include <cstdio>
#include <string>

#include "dfx/convert/swimlane/clock_alignment.hpp"
#include "dfx/convert/swimlane/perf_data.hpp"
#include "../support/scratch_dir.hpp"

namespace sw = dfx::convert::swimlane;
using test_support::scratch_dir;

namespace {

// The spec's illustrative capture (§2.8): a2a3 clock, level 4, 2 cores, 2 tasks on ring 1.
constexpr const char* spec_example = R"({
  "chip_swimlane_level": 4,
  "metadata": {"clock_freq_hz": 50000000, "num_cores": 2, "core_types": ["aic", "aiv"], "core_to_thread": [0, 0]},
  "aicore_tasks": [
    [0, 4294967296, 1, 1000120, 1000620, 5],
    [1, 4294967297, 1, 1000660, 1001160, 4]
  ],
  "aicpu_tasks": [[0, 1, 1000108, 1000630], [1, 1, 1000648, 1001170]],
  "aicpu_scheduler_phases": [
    [
      {"kind": "dispatch", "start_cycles": 1000100, "end_cycles": 1000110, "loop_iter": 1, "tasks_processed": 1, "pop_hit": 1, "pop_miss": 0, "shared_at_start": [1,0,0], "shared_at_end": [0,0,0]},
      {"kind": "complete", "start_cycles": 1000625, "end_cycles": 1000640, "loop_iter": 40, "tasks_processed": 1, "shared_at_start": [0,0,0], "shared_at_end": [0,1,0]}
    ],
    [], [], []
  ],
  "aicpu_orchestrator_phases": [[
    {"submit_idx": 0, "task_id": 4294967296, "start_cycles": 1000000, "end_cycles": 1000050},
    {"submit_idx": 1, "task_id": 4294967297, "start_cycles": 1000060, "end_cycles": 1000100}
  ]]
})";

std::string level_doc(int level, const std::string& aicore, const std::string& aicpu) {
    return "{\"chip_swimlane_level\": " + std::to_string(level) +
           ", \"metadata\": {\"clock_freq_hz\": 50000000, \"core_types\": [\"aic\", \"aiv\", \"aiv\", \"aiv\"]},"
           " \"aicore_tasks\": " + aicore + ", \"aicpu_tasks\": " + aicpu + "}";
}

// Reads everything written to a tmpfile() (for warning checks).
std::string read_all(std::FILE* f) {
    std::rewind(f);
    std::string out;
    char buf[512];
    while (std::fgets(buf, sizeof buf, f)) out += buf;
    return out;
}

}  // namespace

TEST_CASE("the spec example reads to the documented microsecond values (§2.8)") {
    scratch_dir dir;
    const auto pd = sw::load_perf_data(dir.write("r.json", spec_example));
    REQUIRE(pd.tasks.size() == 2);
    const auto& t = pd.tasks[0];  // r1t0 on core 0; time base = 1000000 cycles
    CHECK(t.task_id == 4294967296u);
    CHECK(pd.core_type_name(t) == "aic");
    CHECK(t.receive_us == doctest::Approx(2.30));
    CHECK(t.start_us == doctest::Approx(2.40));
    CHECK(t.end_us == doctest::Approx(12.40));
    CHECK(t.dispatch_us == doctest::Approx(2.16));
    CHECK(t.finish_us == doctest::Approx(12.60));
    CHECK(t.local_setup_us() == doctest::Approx(0.10));
    CHECK(t.propagation_us() == doctest::Approx(0.14));
    CHECK(pd.orchestrator_source == "aicpu");
    REQUIRE(pd.sched.size() == 4);  // every thread list is kept, empty ones too
    CHECK(pd.sched[0][0].kind == sw::phase_kind::dispatch);
    CHECK(pd.sched[0].pop_hit == 1);  // summed over the lane's dispatch phases
    CHECK(pd.sched[0][1].depth_end[1] == 1);
    CHECK(pd.sched[0][1].depths_valid);
    CHECK(pd.orch_us(pd.orch[0].begin()->start) == 0.0);  // the earliest timestamp is the time base
    REQUIRE(pd.orch.size() == 1);
    const std::vector<sw::orch_record> submits(pd.orch[0].begin(), pd.orch[0].end());
    REQUIRE(submits.size() == 2);
    CHECK(pd.orch_us(submits[0].end) == doctest::Approx(1.0));  // 50 cycles at 50 MHz
    CHECK(pd.orch_us(submits[1].start) == doctest::Approx(1.2));
    CHECK(pd.orch_us(submits[1].end) == doctest::Approx(2.0));
    CHECK(submits[1].submit_idx == 1);
    CHECK(submits[1].task_id.value == 4294967297u);
    CHECK(pd.core_to_thread == std::vector<std::int64_t>{0, 0});
    CHECK(pd.timeline_metadata_json.empty());  // not host-orchestrated
}

TEST_CASE("AICore and AICPU rows join on (core, reg_task_id), never on the task token") {
    // One SPMD task (same token) dispatched twice to core 0 and once to core 1:
    // only the per-core dispatch token tells the dispatches apart.
    scratch_dir dir;
    const auto pd = sw::load_perf_data(dir.write(
        "r.json", level_doc(2,
                            "[[0, 7, 1, 2000, 2100, 0], [0, 7, 2, 3000, 3100, 0], [1, 7, 1, 4000, 4100, 0]]",
                            "[[0, 2, 2990, 3110], [1, 1, 3990, 4110], [0, 1, 1990, 2110]]")));
    REQUIRE(pd.tasks.size() == 3);
    for (const auto& t : pd.tasks) {
        CHECK(t.task_id == 7u);
        // Each dispatch is 10 cycles (0.2 us) before its own start, whatever the order.
        CHECK(t.start_us - t.dispatch_us == doctest::Approx(0.2));
    }
    // Stable sort by task id keeps the AICPU row order for equal ids.
    CHECK(pd.tasks[0].core_id == 0);
    CHECK(pd.tasks[0].start_us == doctest::Approx((3000 - 1990) * 0.02));
    CHECK(pd.tasks[1].core_id == 1);
    CHECK(pd.tasks[2].start_us == doctest::Approx((2000 - 1990) * 0.02));
}

TEST_CASE("a later AICore row with the same (core, reg_task_id) wins") {
    scratch_dir dir;
    const auto pd = sw::load_perf_data(
        dir.write("r.json", level_doc(2, "[[0, 1, 5, 1000, 1100, 0], [0, 2, 5, 1500, 1600, 0]]", "[[0, 5, 900, 1700]]")));
    REQUIRE(pd.tasks.size() == 1);
    CHECK(pd.tasks[0].task_id == 2u);
}

TEST_CASE("unmatched AICPU rows are dropped with one warning naming the worst cores") {
    scratch_dir dir;
    std::FILE* warnings = std::tmpfile();
    REQUIRE(warnings);
    const auto pd = sw::load_perf_data(
        dir.write("r.json", level_doc(2, "[[0, 1, 1, 1000, 1100, 0]]",
                                      "[[0, 1, 900, 1200], [3, 9, 900, 1200], [2, 9, 900, 1200], [3, 8, 900, 1200]]")),
        warnings);
    CHECK(pd.tasks.size() == 1);
    const std::string text = read_all(warnings);
    std::fclose(warnings);
    CHECK(text.rfind("Warning: 3 aicpu_task(s) had no matching AICore record (top offenders: core 3: 2, core 2: 1);", 0) == 0);
    CHECK(std::count(text.begin(), text.end(), '\n') == 1);
}

TEST_CASE("of cores with as many unmatched AICPU rows, the one first seen in the file is named first") {
    scratch_dir dir;
    std::FILE* warnings = std::tmpfile();
    REQUIRE(warnings);
    (void)sw::load_perf_data(dir.write("r.json", level_doc(2, "[[0, 1, 1, 1000, 1100, 0]]",
                                                           "[[5, 9, 900, 1200], [3, 9, 900, 1200], [0, 1, 900, 1200], "
                                                           "[2, 8, 900, 1200], [3, 8, 900, 1200], [2, 9, 900, 1200]]")),
                             warnings);
    const std::string text = read_all(warnings);
    std::fclose(warnings);
    CHECK(text.find("(top offenders: core 3: 2, core 2: 2, core 5: 1);") != std::string::npos);
}

TEST_CASE("the join's result does not depend on the rows being in (core, reg_task_id) order") {
    scratch_dir dir;
    // Core 1's rows before core 0's, regs descending, and (0, 5) twice: the
    // later one (token 3) wins though a row of another key lies between.
    const auto pd = sw::load_perf_data(dir.write(
        "r.json", level_doc(2, "[[1, 9, 2, 5000, 5100, 0], [0, 2, 5, 1500, 1600, 0], [1, 8, 1, 4000, 4100, 0], "
                               "[0, 3, 5, 2500, 2600, 0], [0, 4, 4, 3500, 3600, 0]]",
                            "[[1, 1, 3990, 4110], [0, 5, 2490, 2610], [0, 4, 3490, 3610], [1, 2, 4990, 5110]]")));
    REQUIRE(pd.tasks.size() == 4);
    CHECK(pd.tasks[0].task_id == 3u);
    CHECK(pd.tasks[0].start_us - pd.tasks[0].dispatch_us == doctest::Approx(0.2));
    CHECK(pd.tasks[1].task_id == 4u);
    CHECK(pd.tasks[2].task_id == 8u);
    CHECK(pd.tasks[3].task_id == 9u);
    for (const auto& t : pd.tasks) CHECK(t.func_id == -1);  // resolved later, from deps.json
}

TEST_CASE("AICore rows without AICPU rows: level 1 keeps them, level >= 2 has no tasks") {
    scratch_dir dir;
    const std::string aicore = "[[1, 5, 1, 1000, 1100, 10], [0, 4, 1, 1200, 1300, 0], [2, 4, 1, 1150, 1160, 0]]";
    const auto l1 = sw::load_perf_data(dir.write("l1.json", level_doc(1, aicore, "[]")));
    REQUIRE(l1.tasks.size() == 3);
    CHECK(l1.tasks[0].task_id == 4u);  // sorted by task id, equal ids in file order
    CHECK(l1.tasks[0].core_id == 0);
    CHECK(l1.tasks[1].core_id == 2);
    CHECK(l1.tasks[2].task_id == 5u);
    CHECK(l1.tasks[0].dispatch_us == 0.0);
    CHECK(l1.tasks[0].finish_us == 0.0);
    CHECK_FALSE(l1.tasks[0].joined);
    CHECK(l1.tasks[2].receive_us == 0.0);  // 1000 - 10 cycles is the time base
    CHECK(l1.tasks[2].start_us == doctest::Approx(0.2));
    const auto l2 = sw::load_perf_data(dir.write("l2.json", level_doc(2, aicore, "[]")));
    CHECK(l2.tasks.empty());
}

TEST_CASE("old 5-column aicore_tasks rows are accepted (receive time = start time)") {
    scratch_dir dir;
    const auto pd = sw::load_perf_data(
        dir.write("r.json", level_doc(2, "[[0, 1, 1, 1000, 1100], [1, 2, 1, 1010, 1100]]", "[[0, 1, 990, 1110], [1, 1, 995, 1110]]")));
    REQUIRE(pd.tasks.size() == 2);
    CHECK(pd.tasks[0].receive_us == pd.tasks[0].start_us);
    CHECK(pd.tasks[0].local_setup_us() == 0.0);
    CHECK(pd.tasks[1].start_us == doctest::Approx(0.4));
}

TEST_CASE("64-bit ids and cycle counts above 2^53 stay exact") {
    // 2^53 + 1 cycles as the time base: as doubles these would collapse.
    scratch_dir dir;
    const auto pd = sw::load_perf_data(dir.write(
        "r.json", level_doc(2, "[[0, 18446744073709551557, 1, 9007199254740994, 9007199254741043, 1]]",
                            "[[0, 1, 9007199254740993, 9007199254741044]]")));
    REQUIRE(pd.tasks.size() == 1);
    const auto& t = pd.tasks[0];
    CHECK(t.task_id == 18446744073709551557ull);
    CHECK(t.dispatch_us == 0.0);
    CHECK(t.receive_us == 0.0);
    CHECK(t.start_us == doctest::Approx(0.02));
    CHECK(t.end_us == doctest::Approx(1.0));
    CHECK(t.finish_us == doctest::Approx(1.02));
}

TEST_CASE("timestamps of 0 are 'absent': out of the time base and 0.0 us") {
    scratch_dir dir;
    const auto pd = sw::load_perf_data(
        dir.write("r.json", level_doc(2, "[[0, 1, 1, 5000, 5100, 0]]", "[[0, 1, 0, 5200]]")));
    REQUIRE(pd.tasks.size() == 1);
    CHECK(pd.tasks[0].dispatch_us == 0.0);
    CHECK(pd.tasks[0].start_us == 0.0);  // 5000 is the smallest non-zero timestamp
    CHECK(pd.tasks[0].finish_us == doctest::Approx(4.0));
}

TEST_CASE("scheduler phase records keep their optional fields") {
    scratch_dir dir;
    const auto pd = sw::load_perf_data(dir.write("r.json", R"({"chip_swimlane_level": 3,
        "metadata": {"clock_freq_hz": 1000000000, "core_types": ["aic"]},
        "aicore_tasks": [], "aicpu_tasks": [],
        "aicpu_scheduler_phases": [[
          {"kind": "dummy_task", "start_cycles": 10, "end_cycles": 10, "loop_iter": 3, "tasks_processed": 1, "task_id": 18446744073709551615, "shared_at_start": [0,0,0], "shared_at_end": [0,0,0]},
          {"kind": "complete", "start_cycles": 20, "end_cycles": 30},
          {"kind": "fanout", "start_cycles": 40, "end_cycles": 50, "shared_at_start": [1,2], "shared_at_end": [0,0,0]},
          {"kind": "generic", "start_cycles": 60, "end_cycles": 70, "tasks_processed": 2, "shared_at_start": [0,0,0], "shared_at_end": [0,0,0]}
        ]]})"));
    REQUIRE(pd.sched.size() == 1);
    const auto& r = pd.sched[0];
    CHECK(r[0].kind == sw::phase_kind::dummy_task);
    CHECK(r[0].has_task_id);
    CHECK(r[0].task_id == 18446744073709551615ull);
    CHECK(r[0].loop_iter == 3);
    CHECK(r[1].kind == sw::phase_kind::complete);
    CHECK_FALSE(r[1].has_tasks_processed);
    CHECK(pd.start_us(r[1]) == doctest::Approx(0.01));  // 1 GHz: 10 cycles = 0.01 us
    CHECK(r[2].kind == sw::phase_kind::other);  // legacy name: read, not rendered
    CHECK_FALSE(r[2].depths_valid);             // a depth array needs exactly 3 entries
    CHECK(r[3].kind == sw::phase_kind::generic);  // dfxkit's kind for other schedulers
    CHECK(r[3].tasks_processed == 2);
}

TEST_CASE("invalid levels and frequencies are errors that name the file") {
    scratch_dir dir;
    const auto bad_level = dir.write("bad_level.json", level_doc(5, "[]", "[]"));
    CHECK_THROWS_WITH_AS(sw::load_perf_data(bad_level),
                         (bad_level + ": Unsupported chip_swimlane_level: 5 (expected 1, 2, 3, or 4)").c_str(),
                         dfx::convert::input_error);
    const auto no_freq = dir.write("no_freq.json", R"({"chip_swimlane_level": 2, "metadata": {}})");
    CHECK_THROWS_WITH_AS(sw::load_perf_data(no_freq), (no_freq + ": metadata missing/zero clock_freq_hz: 0").c_str(),
                         dfx::convert::input_error);
}

TEST_CASE("host orchestration without clock anchors: device time follows the host span") {
    scratch_dir dir;
    const auto pd = sw::load_perf_data(dir.write("r.json", R"({"chip_swimlane_level": 4,
        "metadata": {"clock_freq_hz": 50000000, "core_types": ["aic"], "orchestrator_source": "host",
                     "host_orchestration_origin_ns": 1000},
        "aicore_tasks": [[0, 1, 1, 2000, 2050, 0]], "aicpu_tasks": [[0, 1, 1990, 2060]],
        "host_orchestrator_phases": [[{"submit_idx": 0, "task_id": 1, "start_host_ns": 1000, "end_host_ns": 3000}]]})"));
    REQUIRE(pd.tasks.size() == 1);
    CHECK(pd.host_mode);
    CHECK(pd.orchestrator_source == "host");
    REQUIRE(pd.orch.size() == 1);
    CHECK(pd.orch_us(pd.orch[0].begin()->end) == doctest::Approx(2.0));  // (3000 - 1000) ns
    CHECK(pd.tasks[0].dispatch_us == doctest::Approx(2.0));  // composite: host span end + 0
    CHECK(pd.tasks[0].start_us == doctest::Approx(2.2));
    CHECK_FALSE(pd.cross_domain_latency_available);
    CHECK(pd.timeline_metadata_json.find(R"("layout": "causal_composite")") != std::string::npos);
    CHECK(pd.timeline_metadata_json.find(R"("reason": "missing_clock_anchors")") != std::string::npos);
    CHECK(pd.timeline_metadata_json.find(R"("error": "legacy_capture_status_missing")") != std::string::npos);
}

TEST_CASE("clock anchors map device cycles to host ns with truncating integer arithmetic") {
    sw::clock_anchors anchors;
    anchors.present = anchors.samples_is_list = true;
    anchors.device_timestamp_unit = "syscnt_cycles";
    auto sample = [](const char* pos, std::int64_t idx, std::int64_t before, std::int64_t cycles, std::int64_t after) {
        sw::clock_sample s;
        s.position = pos;
        s.sample_idx = idx;
        s.host_before_ns = before;
        s.device_cycles = cycles;
        s.host_after_ns = after;
        s.usable = true;
        return s;
    };
    anchors.samples = {sample("pre_host_orchestration", 0, 1000, 100, 1010),
                       sample("pre_host_orchestration", 1, 2000, 150, 2004),  // smaller rtt wins
                       sample("post_device_execution", 0, 100000, 10100, 100002)};
    const auto a = sw::build_clock_alignment(anchors, 1'000'000'000 / 10, 0, 150, 10100);  // 100 MHz
    REQUIRE(a.calibrated);
    CHECK(a.start->sample_idx == 1);
    CHECK(a.start->host_mid_ns == 2002);
    // 100 MHz: nominal 10 ns / cycle; the end anchor corrects the drift linearly.
    CHECK(a.map_cycles_to_host_ns(150) == 2002);
    CHECK(a.map_cycles_to_host_ns(10100) == 100001);
    CHECK(a.map_cycles_to_host_ns(5125) == 2002 + 49750 + (100001 - (2002 + 99500)) * 4975 / 9950);
    const auto out = sw::build_clock_alignment(anchors, 100'000'000, 0, 140, 10100);
    CHECK_FALSE(out.calibrated);
    CHECK(out.reason == "device_timestamps_outside_anchor_coverage");
}
