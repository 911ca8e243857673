// orch_phase_list: one orchestrator lane's submit phases as the swimlane
// tools hold them from the read to the trace, delta-coded: about 7 bytes a
// phase where each took 56 (an orch_record and its µs times).
//
//   orch_phase_list lane;
//   lane.push_back(r);                          // as read, in the file's order
//   for (const orch_record& r : lane) ...       // the same values, in push order
//   const double start_us = pd.orch_us(r.start);   // times on the trace's axis
//
// Why: the trace holds every lane whole (the orchestrator section and the
// submit arrows each walk them once, in order), one phase per submitted
// task: at 56 bytes with the µs times beside the raw ones, 0.56 GB at 10^7
// tasks. An orchestrator submits in order, so each phase starts a little
// after the previous one, lasts a little, and has the next submit index and
// most often the next task id. Each is written as a flags byte (the task id
// is negative), then four zigzag varints of wrapped 64-bit differences
// (common/delta_varint.hpp): the start from the previous start, the end from
// this start, the submit index from the previous one's + 1 and the task id
// from the previous one's + 1. Any values code and decode exactly (out of
// order, an end before the start); they just take more bytes. The µs times
// are not kept: perf_data::orch_us() computes them from the raw ones, as
// the reader once did for every phase.
#pragma once

#include <cstddef>
#include <cstdint>

#include "dfx/convert/common/delta_coded_list.hpp"
#include "dfx/convert/common/delta_varint.hpp"

namespace dfx::convert::swimlane {

// A task id as written in an orchestrator record: usually a u64, but the
// reference treats a negative value as "no task" and echoes it as is.
struct raw_task_id {
    std::uint64_t value = 0;
    bool negative = false;  // value then holds the two's complement bits
    [[nodiscard]] bool valid() const noexcept { return !negative; }
    friend bool operator==(const raw_task_id&, const raw_task_id&) = default;
};

// One `aicpu_orchestrator_phases[lane][i]` or `host_orchestrator_phases[lane][i]`
// record (host records are in ns of the host clock instead of cycles).
struct orch_record {
    std::uint64_t start = 0;  // cycles (device) or ns (host)
    std::uint64_t end = 0;
    std::int64_t submit_idx = 0;
    raw_task_id task_id{0, true};  // absent -> -1

    friend bool operator==(const orch_record&, const orch_record&) = default;
};


// A phase as a flags byte, then its start from the previous start, its end
// from its start, its submit index and task id from the previous ones' + 1.
struct orch_phase_codec {
    using value_type = orch_record;
    static constexpr std::size_t max_bytes = 1 + 4 * varint_max_bytes;
    static constexpr std::uint8_t negative_id = 1;
    // A phase whose successor has submit index 0 and task id 0 and starts
    // at 0, so the first phase's steps are its values.
    static constexpr orch_record origin() noexcept {
        orch_record r;
        r.submit_idx = -1;
        r.task_id = raw_task_id{~std::uint64_t{0}, false};
        return r;
    }
    static void encode(const orch_record& previous, const orch_record& r, std::uint8_t*& out) noexcept {
        *out++ = r.task_id.negative ? negative_id : 0;
        put_varint(out, zigzag(r.start - previous.start));
        put_varint(out, zigzag(r.end - r.start));
        put_varint(out, zigzag(static_cast<std::uint64_t>(r.submit_idx) - static_cast<std::uint64_t>(previous.submit_idx) - 1));
        put_varint(out, zigzag(r.task_id.value - previous.task_id.value - 1));
    }
    static void decode(orch_record& r, const std::uint8_t*& in) noexcept {
        const std::uint8_t flags = *in++;
        r.start += unzigzag(get_varint(in));
        r.end = r.start + unzigzag(get_varint(in));
        r.submit_idx =
            static_cast<std::int64_t>(static_cast<std::uint64_t>(r.submit_idx) + 1 + unzigzag(get_varint(in)));
        r.task_id.value += 1 + unzigzag(get_varint(in));
        r.task_id.negative = (flags & negative_id) != 0;
    }
};

using orch_phase_list = delta_coded_list<orch_phase_codec>;
using orch_phase_marks = delta_coded_marks<orch_phase_codec>;

}  // namespace dfx::convert::swimlane
