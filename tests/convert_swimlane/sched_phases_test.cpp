// A lane's scheduler phases read back exactly as they were pushed, whatever
// their values: by iteration, by index, through a reader and by kind,
// across block starts, after a copy and a move; and a typical thread's
// phases take a small part of a sched_record's 72 bytes.
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "dfx/convert/swimlane/sched_phases.hpp"

namespace sw = dfx::convert::swimlane;

namespace {

constexpr std::size_t block = sw::sched_phases::block_phases;

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

// A thread's loop as the synthetic captures have it: dispatch and complete
// phases alternating, each a little after the one before, the queue depths
// moving by one now and then.
std::vector<sw::sched_record> loop_of(std::size_t n) {
    std::vector<sw::sched_record> records;
    sw::sched_record r = typical();
    std::uint64_t x = 12345;  // a fixed xorshift: the same phases every run
    for (std::size_t i = 0; i < n; ++i) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        r.kind = i % 2 == 0 ? sw::phase_kind::dispatch : sw::phase_kind::complete;
        r.start_cycles = r.end_cycles + 200 + x % 1500;
        r.end_cycles = r.start_cycles + 8 + x % 24;
        r.loop_iter += 1 + static_cast<std::int64_t>(x % 300);
        if (x % 4 == 0) r.depth_start[x / 4 % 3] += x % 8 == 0 ? 1 : -1;
        if (x % 5 == 0) r.depth_end[x / 5 % 3] += x % 10 == 0 ? 1 : -1;
        records.push_back(r);
    }
    return records;
}

sw::sched_phases pushed(const std::vector<sw::sched_record>& records) {
    sw::sched_phases phases;
    for (const sw::sched_record& r : records) phases.push_back(r);
    return phases;
}

// Every phase reads back the same by iteration, by index and through a
// reader stepping forward.
void check_reads(const sw::sched_phases& phases, const std::vector<sw::sched_record>& records) {
    REQUIRE(phases.size() == records.size());
    CHECK(phases.empty() == records.empty());
    std::size_t i = 0;
    for (const sw::sched_record& r : phases) {
        REQUIRE(i < records.size());
        CHECK(r == records[i++]);
    }
    CHECK(i == records.size());
    sw::sched_phases::reader read;
    for (i = 0; i < records.size(); ++i) {
        CHECK(phases[i] == records[i]);
        CHECK(read(phases, i) == records[i]);
        CHECK(phases.kind(i) == records[i].kind);
    }
}

}  // namespace

TEST_CASE("sched_phases: a typical phase, a default one and one of every kind and flag read back") {
    std::vector<sw::sched_record> records{typical(), sw::sched_record{}};
    for (int k = 0; k <= static_cast<int>(sw::phase_kind::other); ++k) {
        sw::sched_record r = typical();
        r.kind = static_cast<sw::phase_kind>(k);
        r.has_task_id = k % 2 == 0;
        r.has_tasks_processed = k % 3 == 0;
        r.depths_valid = k % 4 == 0;
        records.push_back(r);
    }
    check_reads(pushed(records), records);
    check_reads(pushed({}), {});
}

TEST_CASE("sched_phases: any values read back exactly, next to any others") {
    using u64 = std::numeric_limits<std::uint64_t>;
    using i64 = std::numeric_limits<std::int64_t>;
    using i32 = std::numeric_limits<std::int32_t>;
    std::vector<sw::sched_record> records;
    auto with = [&](auto change) {
        sw::sched_record r = typical();
        change(r);
        records.push_back(r);
        records.push_back(typical());  // and back: steps both ways, of many sizes
    };
    with([](sw::sched_record& r) { r.start_cycles = r.end_cycles = u64::max(); });
    with([](sw::sched_record& r) { r.end_cycles = u64::max(); });
    with([](sw::sched_record& r) { r.end_cycles = 0; });  // absent end: before its start
    with([](sw::sched_record& r) { r.start_cycles = u64::max(), r.end_cycles = 0; });
    with([](sw::sched_record& r) { r.end_cycles = r.start_cycles - 1; });
    with([](sw::sched_record& r) { r.loop_iter = i64::max(); });
    with([](sw::sched_record& r) { r.loop_iter = i64::min(); });
    with([](sw::sched_record& r) { r.tasks_processed = i64::max(); });
    with([](sw::sched_record& r) { r.tasks_processed = i64::min(); });
    with([](sw::sched_record& r) { r.task_id = u64::max(); });
    with([](sw::sched_record& r) { r.task_id = 0; });
    for (int k = 0; k < 3; ++k) {
        with([k](sw::sched_record& r) { r.depth_start[k] = i32::max(); });
        with([k](sw::sched_record& r) { r.depth_start[k] = i32::min(); });
        with([k](sw::sched_record& r) { r.depth_end[k] = i32::max(); });
        with([k](sw::sched_record& r) { r.depth_end[k] = i32::min(); });
    }
    // From one extreme straight to the other.
    sw::sched_record low = typical(), high = typical();
    low.loop_iter = low.tasks_processed = i64::min();
    high.loop_iter = high.tasks_processed = i64::max();
    for (int k = 0; k < 3; ++k) low.depth_start[k] = low.depth_end[k] = i32::min(), high.depth_start[k] = high.depth_end[k] = i32::max();
    low.start_cycles = 0, high.start_cycles = u64::max();
    records.insert(records.end(), {low, high, low, high});
    REQUIRE(records.size() > 2 * block);  // the extremes land at block starts and inside blocks
    check_reads(pushed(records), records);
}

TEST_CASE("sched_phases: a reader reads any index, in any order, of more than one lane") {
    const std::vector<sw::sched_record> a = loop_of(5 * block + 3), b = loop_of(2 * block);
    const sw::sched_phases pa = pushed(a), pb = pushed(b);
    // The same index again, a step back, a jump within the block, into the
    // next block from its middle, a jump past blocks, back to the start.
    const std::size_t order[] = {0, 0, 1, 3, 2, block - 1, block, block, block + 9, 2 * block + 2, 4 * block + 1,
                                 5 * block + 2, 7, 0, 2 * block};
    sw::sched_phases::reader read;
    for (const std::size_t i : order) CHECK(read(pa, i) == a[i]);
    for (const std::size_t i : order) {  // and the same, turn about with another lane
        CHECK(read(pa, i) == a[i]);
        if (i < b.size()) CHECK(read(pb, i) == b[i]);
    }
    for (std::size_t i = a.size(); i-- > 0;) CHECK(read(pa, i) == a[i]);  // backwards
}

TEST_CASE("sched_phases: a reader goes on reading a lane that grew since") {
    const std::vector<sw::sched_record> records = loop_of(3 * block);
    sw::sched_phases phases;
    sw::sched_phases::reader read;
    for (std::size_t i = 0; i < records.size(); ++i) {
        phases.push_back(records[i]);
        CHECK(read(phases, i) == records[i]);  // the phase just pushed, one step on
    }
}

TEST_CASE("sched_phases: phases whose every field takes one byte read back, with and without their depths") {
    // A tight loop: each phase starts a few cycles after the previous one,
    // the counters and depths move by one, so each field is a one-byte code.
    std::vector<sw::sched_record> records;
    sw::sched_record r = typical();
    r.task_id = 0;
    r.start_cycles = r.end_cycles = 0;
    r.loop_iter = r.tasks_processed = 0;
    r.depth_start[0] = r.depth_end[1] = 0;
    for (std::size_t i = 0; i < 4 * block; ++i) {
        r.start_cycles += 3 + i % 20;
        r.end_cycles = r.start_cycles + i % 30;
        r.loop_iter += 1;
        r.tasks_processed = static_cast<std::int64_t>(i % 3);
        r.task_id = i % 5;
        if (i % 3 == 0) r.depth_start[i / 3 % 3] += 1, r.depth_end[2] -= 1;  // 11 fields, else 5
        r.kind = i % 2 == 0 ? sw::phase_kind::dispatch : sw::phase_kind::complete;
        records.push_back(r);
    }
    const sw::sched_phases phases = pushed(records);
    check_reads(phases, records);
    CHECK(phases.byte_size() < records.size() * 9);  // one byte a field: 6 or 12 a phase with its head
}

TEST_CASE("sched_phases: for_each_where visits the phases of the kinds asked for, in order, with their values") {
    std::vector<sw::sched_record> records = loop_of(9 * block + 4);
    // Rare kinds: one in a block's first phase, one in its last, two
    // neighbours, and the lane's last phase; none in most blocks.
    for (const std::size_t i : {std::size_t{0}, 2 * block - 1, 5 * block + 3, 5 * block + 4, records.size() - 1})
        records[i].kind = sw::phase_kind::dummy_task;
    records[7 * block + 8].kind = sw::phase_kind::graph_prepare;
    const sw::sched_phases phases = pushed(records);
    for (const auto& wanted : {std::vector<sw::phase_kind>{sw::phase_kind::dummy_task},
                              std::vector<sw::phase_kind>{sw::phase_kind::dummy_task, sw::phase_kind::graph_prepare},
                              std::vector<sw::phase_kind>{sw::phase_kind::dispatch},
                              std::vector<sw::phase_kind>{sw::phase_kind::resolve}}) {
        const auto is_wanted = [&](sw::phase_kind k) {
            for (const sw::phase_kind w : wanted)
                if (k == w) return true;
            return false;
        };
        std::vector<std::size_t> expected, seen;
        for (std::size_t i = 0; i < records.size(); ++i)
            if (is_wanted(records[i].kind)) expected.push_back(i);
        phases.for_each_where(is_wanted, [&](std::size_t i, const sw::sched_record& r) {
            REQUIRE(i < records.size());
            CHECK(r == records[i]);
            seen.push_back(i);
        });
        CHECK(seen == expected);
    }
}

TEST_CASE("sched_phases: a copy and a move keep every phase; a moved-from list is empty") {
    const std::vector<sw::sched_record> records = loop_of(3 * block + 5);
    sw::sched_phases original = pushed(records);
    const sw::sched_phases copy = original;  // NOLINT(performance-unnecessary-copy-initialization): the copy is tested
    check_reads(copy, records);
    sw::sched_phases assigned;
    assigned.push_back(typical());
    assigned = copy;
    check_reads(assigned, records);
    sw::sched_phases moved = std::move(original);
    check_reads(moved, records);
    check_reads(original, {});  // NOLINT(bugprone-use-after-move): a moved-from list is empty, and usable
    original.push_back(typical());
    check_reads(original, {typical()});
    sw::sched_phases moved_again;
    moved_again = std::move(moved);
    check_reads(moved_again, records);
    check_reads(moved, {});  // NOLINT(bugprone-use-after-move)
    assigned.push_back(typical());  // a copy grows on its own
    std::vector<sw::sched_record> grown = records;
    grown.push_back(typical());
    check_reads(assigned, grown);
    check_reads(copy, records);
}

TEST_CASE("sched_phases: a thread's loop takes at most 12 bytes a phase, a sixth of a sched_record") {
    const std::vector<sw::sched_record> records = loop_of(100'000);
    const sw::sched_phases phases = pushed(records);
    check_reads(phases, records);
    const double per_phase = static_cast<double>(phases.byte_size()) / static_cast<double>(phases.size());
    MESSAGE("bytes per phase: ", per_phase);
    CHECK(per_phase <= 12.0);
}
