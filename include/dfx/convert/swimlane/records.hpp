// records: the raw content of chip_swimlane_records.json, in the cycle domain.
//
// One struct per stream of the file (spec chip-swimlane.md §2). Field values are
// what the file says, with two normalisations the reference reader applies
// anyway: timestamps <= 0 are kept as 0 ("absent": the reader maps them to 0.0
// us and leaves them out of the time base), and task ids are unsigned 64-bit
// (negative JSON ids are masked like Python's `t & (2**64-1)`).
//
// Scheduler and orchestrator phases are kept coded (sched_phases.hpp,
// orch_phase_list.hpp), so the converted view does not need a second copy of
// millions of records; perf_data gives their microsecond times.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dfx/convert/common/json_value.hpp"
#include "dfx/convert/common/row_array.hpp"
#include "dfx/convert/swimlane/loop_phase_list.hpp"
#include "dfx/convert/swimlane/orch_phase_list.hpp"
#include "dfx/convert/swimlane/sched_phases.hpp"

namespace dfx::convert::swimlane {

// `aicore_tasks` row: [core_id, task_token_raw, reg_task_id, start, end(, receive_to_start)].
struct aicore_row {
    std::uint64_t token = 0;
    std::uint64_t reg = 0;
    std::uint64_t start = 0;
    std::uint64_t end = 0;
    std::uint64_t r2s = 0;  // 0 in old 5-column ("v2") files
    std::uint32_t core = 0;
    std::uint32_t seq = 0;  // its position among the kept rows (in the padding: the join's tie-break)
};
static_assert(sizeof(aicore_row) == 48, "aicore_row: seq lives in what was padding");

// `aicpu_tasks` row: [core_id, reg_task_id, dispatch, finish].
struct aicpu_row {
    std::uint64_t reg = 0;
    std::uint64_t dispatch = 0;
    std::uint64_t finish = 0;
    std::uint32_t core = 0;
    std::uint32_t seq = 0;  // its position among the kept rows (in the padding: the join's tie-break)
};
static_assert(sizeof(aicpu_row) == 32, "aicpu_row: seq lives in what was padding");

// A phase's pop_hit / pop_miss: only the loop breakdown reads them, summed
// over a thread's dispatch phases, so they are summed as read, not kept.
struct sched_pops {
    std::int64_t hit = 0;
    std::int64_t miss = 0;
};

// The time a scheduler thread spent in each kind of work phase and idle
// between them, on the trace's µs axis (perf_data.hpp, sum_work_phases).
struct loop_sums {
    double complete_us = 0, async_poll_us = 0, dispatch_us = 0, idle_us = 0;
};

// One `aicpu_scheduler_phases[thread]` reduced to the loop breakdown's
// inputs: its work phases in file order, and the counters it sums over them
// (integer sums and a maximum: the same in any order, so summed while read).
struct loop_lane {
    loop_phase_list phases;              // delta-coded (loop_phase_list.hpp); freed once summed
    int128 finishes = 0;              // tasks_processed of the complete phases
    int128 pop_hit = 0, pop_miss = 0;  // of the dispatch phases
    std::int64_t loops = 0;           // the largest loop_iter of a work phase (0 at least)
    // The phases summed as soon as the time base is known (load_perf_data,
    // before the task rows are joined), so that they are not held beside
    // the rows: at 10^6 tasks they were about 110 MB of a 409 MB peak.
    std::optional<loop_sums> sums;
    std::size_t work_phases = 0;  // how many were summed

    void add(const sched_record& r, const sched_pops& pops) {
        if (r.kind != phase_kind::complete && r.kind != phase_kind::async_poll && r.kind != phase_kind::dispatch) return;
        phases.push_back({r.start_cycles, r.end_cycles, r.kind});
        if (r.kind == phase_kind::complete) finishes += r.tasks_processed;
        if (r.kind == phase_kind::dispatch) {
            pop_hit += pops.hit;
            pop_miss += pops.miss;
        }
        if (r.loop_iter > loops) loops = r.loop_iter;
    }
};

// One `aicpu_scheduler_phases[thread]` kept whole (the trace, the
// statistics): its phases in file order (delta-coded: sched_phases.hpp), and the
// pop counters of its dispatch phases, summed as read.
struct sched_lane {
    sched_phases phases;
    int128 pop_hit = 0, pop_miss = 0;  // of the dispatch phases

    void add(const sched_record& r, const sched_pops& pops) {
        phases.push_back(r);
        if (r.kind == phase_kind::dispatch) {
            pop_hit += pops.hit;
            pop_miss += pops.miss;
        }
    }
    [[nodiscard]] std::size_t size() const noexcept { return phases.size(); }
    [[nodiscard]] bool empty() const noexcept { return phases.empty(); }
    [[nodiscard]] sched_record operator[](std::size_t i) const { return phases[i]; }
    [[nodiscard]] auto begin() const noexcept { return phases.begin(); }
    [[nodiscard]] auto end() const noexcept { return phases.end(); }
    // The loop breakdown's lane of these phases (what records_reader's
    // loop_phases_only would have read).
    [[nodiscard]] loop_lane loop() const {
        loop_lane lane;
        for (const sched_record& r : phases) lane.add(r, {});
        lane.pop_hit = pop_hit;
        lane.pop_miss = pop_miss;
        return lane;
    }
};

// One `host_device_uploads[i]` object.
struct host_upload {
    std::string phase;
    std::uint64_t start_ns = 0;
    std::uint64_t end_ns = 0;
    double start_us = 0.0;
    double end_us = 0.0;
    std::string detail_json = "null";  // echoed as the "bytes" argument
};

// One `metadata.clock_anchors.samples[i]` (only the fields the alignment uses).
struct clock_sample {
    std::string position;
    std::int64_t sample_idx = -1;
    int128 host_before_ns = 0;
    int128 device_cycles = 0;
    int128 host_after_ns = 0;
    bool usable = false;  // error in {null, 0, ""} and the four integers present
};

struct clock_anchors {
    bool present = false;          // metadata.clock_anchors is an object
    bool samples_is_list = false;  // ... and its samples is an array
    std::string device_timestamp_unit;  // "" when absent
    std::string raw_device_timestamp_unit = "syscnt_cycles";
    bool raw_unit_is_string = true;
    std::vector<clock_sample> samples;
};

struct records_metadata {
    int128 clock_freq_hz = 0;
    std::vector<std::string> core_types;
    std::vector<std::int64_t> core_to_thread;
    std::string orchestrator_source;
    std::string timeline_relation;  // "" when absent
    int128 host_orchestration_origin_ns = 0;
    int128 host_timestamp_quantization_ns = 0;
    // metadata.host_capture when it is an object: its members in file order
    // (key, raw JSON) plus the fields the converter checks.
    std::optional<std::vector<std::pair<std::string, std::string>>> host_capture;
    std::string host_capture_status;  // "" when absent / null
    std::optional<int128> host_capture_dropped;
    std::optional<int128> host_capture_recorded;
    std::optional<int128> host_capture_expected;
    clock_anchors anchors;
};

struct records_file {
    std::string path;
    std::optional<int128> level;  // chip_swimlane_level (validated by perf_data)
    records_metadata meta;
    row_array<aicore_row> aicore;  // grown in place, handed back as joined (row_array.hpp)
    row_array<aicpu_row> aicpu;
    std::vector<sched_lane> sched;
    std::vector<loop_lane> loop;  // instead of sched, with records_reader::loop_phases_only
    std::vector<orch_phase_list> orch;       // device orchestrator lanes
    std::vector<orch_phase_list> host_orch;  // host orchestrator lanes
    std::vector<host_upload> uploads;

    // Aggregates gathered while streaming, so no second pass is needed.
    std::uint64_t base_cycles = 0;        // min non-zero device timestamp of the time base (0: none)
    std::uint64_t min_device_cycles = 0;  // min / max non-zero device timestamp of any kind,
    std::uint64_t max_device_cycles = 0;  // for the clock-anchor coverage check
};

}  // namespace dfx::convert::swimlane
