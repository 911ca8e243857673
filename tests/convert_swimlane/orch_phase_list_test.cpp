// An orchestrator lane's submit phases, delta-coded, read back exactly as
// they were pushed, whatever their order or values, and take a few bytes
// each when they come as an orchestrator writes them.
#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "dfx/convert/swimlane/orch_phase_list.hpp"

namespace sw = dfx::convert::swimlane;

namespace {

std::vector<sw::orch_record> read_back(const sw::orch_phase_list& phases) {
    std::vector<sw::orch_record> out;
    for (const sw::orch_record& r : phases) out.push_back(r);
    return out;
}

sw::orch_record phase(std::uint64_t start, std::uint64_t end, std::int64_t submit, std::uint64_t id,
                      bool negative = false) {
    sw::orch_record r;
    r.start = start;
    r.end = end;
    r.submit_idx = submit;
    r.task_id = sw::raw_task_id{id, negative};
    return r;
}

}  // namespace

TEST_CASE("orch_phase_list: an empty lane reads nothing") {
    const sw::orch_phase_list phases;
    CHECK(phases.empty());
    CHECK(phases.size() == 0);
    CHECK(phases.begin() == phases.end());
}

TEST_CASE("orch_phase_list: an orchestrator's submits read back in order, at most 8 bytes each") {
    std::vector<sw::orch_record> lane;
    std::uint64_t t = 2'000'106;
    for (int i = 0; i < 5000; ++i) {
        const std::uint64_t length = 40 + static_cast<std::uint64_t>(i % 90);
        // Task ids mostly the next one; now and then one skipped (a task
        // submitted by another lane) or a dummy.
        const std::uint64_t id = static_cast<std::uint64_t>(i) + static_cast<std::uint64_t>(i / 100);
        lane.push_back(phase(t, t + length, i, id));
        t += length + 200 + static_cast<std::uint64_t>(i % 700);
    }
    sw::orch_phase_list phases;
    for (const sw::orch_record& r : lane) phases.push_back(r);
    CHECK(phases.size() == lane.size());
    CHECK(read_back(phases) == lane);
    CHECK(phases.byte_size() <= 8 * lane.size());
}

TEST_CASE("orch_phase_list: absent and negative task ids, out-of-order times and the extremes of 64 bits read back") {
    constexpr std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
    constexpr std::int64_t smax = std::numeric_limits<std::int64_t>::max();
    constexpr std::int64_t smin = std::numeric_limits<std::int64_t>::min();
    sw::orch_record absent;  // the reader's default: no task id (-1)
    absent.start = 7;
    absent.end = 9;
    const std::vector<sw::orch_record> odd{
        phase(0, 0, 0, 0),
        phase(max, max, smax, max),                // the largest steps forward
        phase(0, max, smin, 0),                    // the largest steps back, the longest phase
        phase(max, 0, -1, max, true),              // ends long before it starts; task id -1
        absent,
        phase(1'000'000, 999'999, 5, 3, true),     // just before its start; a negative id
        phase(999'000, 1'000'000, 4, 2),           // starts before the one before
        phase(max / 2 + 1, max / 2, smax / 2, max / 2 + 1),
    };
    sw::orch_phase_list phases;
    for (const sw::orch_record& r : odd) phases.push_back(r);
    CHECK(phases.size() == odd.size());
    CHECK(read_back(phases) == odd);
    CHECK(std::vector<sw::orch_record>(phases.begin(), phases.end()) == odd);
}

TEST_CASE("orch_phase_list: each pass over a lane reads it from its start") {
    sw::orch_phase_list phases;
    phases.push_back(phase(100, 150, 0, 10));
    phases.push_back(phase(300, 320, 1, 11));
    const auto first = read_back(phases);
    CHECK(read_back(phases) == first);
    phases.push_back(phase(500, 560, 2, 13));  // a lane that grew
    const auto grown = read_back(phases);
    REQUIRE(grown.size() == 3);
    CHECK(grown[2] == phase(500, 560, 2, 13));
    auto it = phases.begin();
    CHECK(it->submit_idx == 0);
    ++it;
    CHECK((*it).task_id.value == 11);
    it++;
    CHECK(it->start == 500);
    ++it;
    CHECK(it == phases.end());
}

TEST_CASE("orch_phase_marks: a chunk's reader gets record i from the nearest mark, whatever index it starts at") {
    // The orchestrator's slices are written in chunks on two threads
    // (host_slices.hpp): each chunk reads its records from a mark kept
    // every 256, stepping by one; a reader may also be asked to go back or
    // to skip ahead.
    for (const int n : {1, 255, 256, 257, 1000}) {
        CAPTURE(n);
        std::vector<sw::orch_record> lane;
        for (int i = 0; i < n; ++i) {
            lane.push_back(phase(static_cast<std::uint64_t>(1000 + 37 * i), static_cast<std::uint64_t>(1010 + 37 * i + i % 5),
                                 i, static_cast<std::uint64_t>(3 * i), i % 7 == 0));
        }
        sw::orch_phase_list phases;
        for (const sw::orch_record& r : lane) phases.push_back(r);
        const sw::orch_phase_marks marks(phases);
        CHECK(marks.size() == lane.size());
        const auto size = static_cast<std::size_t>(n);
        for (const std::size_t first : {std::size_t{0}, size / 3, size - 1}) {  // a chunk from each of these on
            sw::orch_phase_marks::reader read;
            for (std::size_t i = first; i < size; ++i) REQUIRE(read(marks, i) == lane[i]);
        }
        sw::orch_phase_marks::reader jumping;
        for (const std::size_t i : {size - 1, std::size_t{0}, size / 2, size / 2, size - 1, size / 4}) {
            REQUIRE(jumping(marks, i) == lane[i]);
        }
    }
}
