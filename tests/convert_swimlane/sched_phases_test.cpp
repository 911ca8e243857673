// A lane's scheduler phases read back exactly as they were pushed, packed
// or not: every field at the edge of the packed layout's range and one past
// it, in any mix and order.
#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "dfx/convert/swimlane/sched_phases.hpp"

namespace sw = dfx::convert::swimlane;

namespace {

// A level-4 dispatch phase as Simpler writes it.
sw::sched_record typical() {
    sw::sched_record r;
    r.start_cycles = 1'000'006;
    r.end_cycles = 1'000'016;
    r.loop_iter = 38;
    r.tasks_processed = 1;
    r.has_tasks_processed = true;
    r.task_id = 4'294'967'299;
    r.has_task_id = true;
    r.depth_start[0] = 1;
    r.depth_end[1] = 2;
    r.depths_valid = true;
    r.kind = sw::phase_kind::dispatch;
    return r;
}

// Pushes each record, then checks that every one reads back the same, by
// index and by iteration, and how many were kept whole.
void round_trip(const std::vector<sw::sched_record>& records, std::size_t expected_wide) {
    sw::sched_phases phases;
    for (const sw::sched_record& r : records) phases.push_back(r);
    REQUIRE(phases.size() == records.size());
    for (std::size_t i = 0; i < records.size(); ++i) CHECK(phases[i] == records[i]);
    std::size_t i = 0;
    for (const sw::sched_record& r : phases) CHECK(r == records[i++]);
    CHECK(i == records.size());
    CHECK(phases.wide_count() == expected_wide);
}

}  // namespace

TEST_CASE("sched_phases: a typical phase, a default one and one of every kind are packed and read back") {
    std::vector<sw::sched_record> records{typical(), sw::sched_record{}};
    for (int k = 0; k <= static_cast<int>(sw::phase_kind::other); ++k) {
        sw::sched_record r = typical();
        r.kind = static_cast<sw::phase_kind>(k);
        r.has_task_id = k % 2 == 0;
        r.has_tasks_processed = k % 3 == 0;
        r.depths_valid = k % 4 == 0;
        records.push_back(r);
    }
    round_trip(records, 0);
}

TEST_CASE("sched_phases: values at the edge of the packed range stay packed") {
    std::vector<sw::sched_record> records;
    auto with = [&](auto change) {
        sw::sched_record r = typical();
        change(r);
        records.push_back(r);
    };
    with([](sw::sched_record& r) { r.end_cycles = r.start_cycles + std::numeric_limits<std::uint32_t>::max(); });
    with([](sw::sched_record& r) { r.start_cycles = r.end_cycles = std::numeric_limits<std::uint64_t>::max(); });
    with([](sw::sched_record& r) { r.loop_iter = std::numeric_limits<std::int32_t>::max(); });
    with([](sw::sched_record& r) { r.loop_iter = std::numeric_limits<std::int32_t>::min(); });
    with([](sw::sched_record& r) { r.tasks_processed = std::numeric_limits<std::int16_t>::max(); });
    with([](sw::sched_record& r) { r.tasks_processed = std::numeric_limits<std::int16_t>::min(); });
    with([](sw::sched_record& r) { r.task_id = std::numeric_limits<std::uint64_t>::max(); });
    for (int k = 0; k < 3; ++k) {
        with([k](sw::sched_record& r) { r.depth_start[k] = std::numeric_limits<std::int16_t>::max(); });
        with([k](sw::sched_record& r) { r.depth_end[k] = std::numeric_limits<std::int16_t>::min(); });
    }
    round_trip(records, 0);
}

TEST_CASE("sched_phases: a value one past the packed range is kept whole, in order among packed ones") {
    std::vector<sw::sched_record> records;
    std::size_t wide = 0;
    auto with = [&](auto change) {
        sw::sched_record r = typical();
        change(r);
        records.push_back(r);
        ++wide;
        records.push_back(typical());  // a packed one between each
    };
    with([](sw::sched_record& r) { r.end_cycles = r.start_cycles + std::uint64_t{1} + std::numeric_limits<std::uint32_t>::max(); });
    with([](sw::sched_record& r) { r.end_cycles = 0; });  // absent end: before its start
    with([](sw::sched_record& r) { r.end_cycles = r.start_cycles - 1; });
    with([](sw::sched_record& r) { r.loop_iter = std::int64_t{std::numeric_limits<std::int32_t>::max()} + 1; });
    with([](sw::sched_record& r) { r.loop_iter = std::int64_t{std::numeric_limits<std::int32_t>::min()} - 1; });
    with([](sw::sched_record& r) { r.tasks_processed = std::numeric_limits<std::int16_t>::max() + 1; });
    with([](sw::sched_record& r) { r.tasks_processed = std::numeric_limits<std::int16_t>::min() - 1; });
    with([](sw::sched_record& r) { r.tasks_processed = 9'000'000'000'000'000'000; });
    for (int k = 0; k < 3; ++k) {
        with([k](sw::sched_record& r) { r.depth_start[k] = std::numeric_limits<std::int16_t>::max() + 1; });
        with([k](sw::sched_record& r) { r.depth_end[k] = std::numeric_limits<std::int16_t>::min() - 1; });
        with([k](sw::sched_record& r) { r.depth_end[k] = std::numeric_limits<std::int32_t>::max(); });
    }
    round_trip(records, wide);
}
