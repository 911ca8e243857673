// loop_phase_list: a scheduler thread's work phases as `dfx sched-overhead`'s
// loop breakdown keeps them until the time base is known, delta-coded: 3.4
// bytes a phase at 10^6 tasks where a loop_phase takes 24.
//
//   loop_phase_list phases;
//   phases.push_back({start, end, phase_kind::dispatch});
//   for (const loop_phase p : phases) ...   // the same values, in push order
//
// Why: the phases cannot be summed while the file is read (the sums are on
// the µs axis, whose base the last record read can still move), so they are
// held to the end of the read beside the task rows: 4.6 a task, 110 of the
// 344 MB peak at 10^6 tasks as 24-byte structs. A thread records its loop in
// order, so each phase starts a little after the one before and lasts a
// little: each is written as its kind, then the distance from the previous
// start and its length, both as zigzag varints of the wrapped 64-bit
// difference (common/delta_varint.hpp), so any values (out of order, an end
// before the start) code and decode exactly; they just take more bytes.
#pragma once

#include <cstddef>
#include <cstdint>

#include "dfx/convert/common/delta_coded_list.hpp"
#include "dfx/convert/common/delta_varint.hpp"
#include "dfx/convert/swimlane/sched_phases.hpp"

namespace dfx::convert::swimlane {

// One scheduler work phase (complete, async_poll or dispatch) as the loop
// breakdown reads it. Cycles, as read.
struct loop_phase {
    std::uint64_t start_cycles = 0;
    std::uint64_t end_cycles = 0;
    phase_kind kind = phase_kind::other;

    friend bool operator==(const loop_phase&, const loop_phase&) = default;
};

// A phase as its kind, then the distance from the previous start and its
// length.
struct loop_phase_codec {
    using value_type = loop_phase;
    static constexpr std::size_t max_bytes = 1 + 2 * varint_max_bytes;
    static constexpr loop_phase origin() noexcept { return {}; }
    static void encode(const loop_phase& previous, const loop_phase& p, std::uint8_t*& out) noexcept {
        *out++ = static_cast<std::uint8_t>(p.kind);
        put_varint(out, zigzag(p.start_cycles - previous.start_cycles));
        put_varint(out, zigzag(p.end_cycles - p.start_cycles));
    }
    static void decode(loop_phase& p, const std::uint8_t*& in) noexcept {
        p.kind = static_cast<phase_kind>(*in++);
        p.start_cycles += unzigzag(get_varint(in));
        p.end_cycles = p.start_cycles + unzigzag(get_varint(in));
    }
};

using loop_phase_list = delta_coded_list<loop_phase_codec>;

}  // namespace dfx::convert::swimlane
