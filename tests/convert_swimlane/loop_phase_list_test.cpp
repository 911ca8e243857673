// A lane's work phases, delta-coded, read back exactly as they were pushed,
// whatever their order or values, and take a few bytes each when they come
// as a scheduler loop writes them.
#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "dfx/convert/swimlane/loop_phase_list.hpp"

namespace sw = dfx::convert::swimlane;

namespace {

std::vector<sw::loop_phase> read_back(const sw::loop_phase_list& phases) {
    std::vector<sw::loop_phase> out;
    for (const sw::loop_phase p : phases) out.push_back(p);
    return out;
}

}  // namespace

TEST_CASE("loop_phase_list: an empty lane reads nothing") {
    const sw::loop_phase_list phases;
    CHECK(phases.empty());
    CHECK(phases.size() == 0);
    CHECK(phases.begin() == phases.end());
}

TEST_CASE("loop_phase_list: a scheduler loop's phases read back in order, about four bytes each") {
    std::vector<sw::loop_phase> loop;
    std::uint64_t t = 1'000'006;
    const sw::phase_kind kinds[] = {sw::phase_kind::dispatch, sw::phase_kind::complete, sw::phase_kind::async_poll};
    for (int i = 0; i < 3000; ++i) {
        const std::uint64_t length = 5 + static_cast<std::uint64_t>(i % 40);
        loop.push_back({t, t + length, kinds[i % 3]});
        t += length + static_cast<std::uint64_t>(i % 300);
    }
    sw::loop_phase_list phases;
    for (const sw::loop_phase& p : loop) phases.push_back(p);
    CHECK(phases.size() == loop.size());
    CHECK(read_back(phases) == loop);
    CHECK(phases.byte_size() <= 4 * loop.size());
}

TEST_CASE("loop_phase_list: out-of-order starts, ends before starts and the extremes of 64 bits read back exactly") {
    constexpr std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
    const std::vector<sw::loop_phase> odd{
        {0, 0, sw::phase_kind::complete},
        {max, max, sw::phase_kind::dispatch},            // the largest step forward
        {0, max, sw::phase_kind::async_poll},            // the largest step back, the longest phase
        {max, 0, sw::phase_kind::complete},              // ends long before it starts
        {1'000'000, 999'999, sw::phase_kind::dispatch},  // just before its start
        {999'000, 1'000'000, sw::phase_kind::other},     // starts before the one before
        {max / 2 + 1, max / 2, sw::phase_kind::generic},
        {max / 2, max / 2 + 1, sw::phase_kind::complete},
    };
    sw::loop_phase_list phases;
    for (const sw::loop_phase& p : odd) phases.push_back(p);
    CHECK(read_back(phases) == odd);
    // The range constructor of a vector reads them too (sum_work_phases'
    // fallback when they are not in start order).
    CHECK(std::vector<sw::loop_phase>(phases.begin(), phases.end()) == odd);
}

TEST_CASE("loop_phase_list: release frees them and the lane can be filled again") {
    sw::loop_phase_list phases;
    phases.push_back({10, 20, sw::phase_kind::complete});
    phases.release();
    CHECK(phases.empty());
    CHECK(phases.byte_size() == 0);
    phases.push_back({5, 6, sw::phase_kind::dispatch});
    CHECK(read_back(phases) == std::vector<sw::loop_phase>{{5, 6, sw::phase_kind::dispatch}});
}
