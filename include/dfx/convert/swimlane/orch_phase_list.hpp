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
#include <iterator>
#include <vector>

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


class orch_phase_list {
public:
    class iterator;

    void push_back(const orch_record& r) {
        std::uint8_t code[1 + 4 * varint_max_bytes];
        std::uint8_t* p = code;
        *p++ = r.task_id.negative ? negative_id : 0;
        put_varint(p, zigzag(r.start - last_.start));
        put_varint(p, zigzag(r.end - r.start));
        put_varint(p, zigzag(static_cast<std::uint64_t>(r.submit_idx) - static_cast<std::uint64_t>(last_.submit_idx) - 1));
        put_varint(p, zigzag(r.task_id.value - last_.task_id.value - 1));
        bytes_.insert(bytes_.end(), code, p);
        last_ = r;
        ++count_;
    }
    [[nodiscard]] std::size_t size() const noexcept { return count_; }
    [[nodiscard]] bool empty() const noexcept { return count_ == 0; }
    [[nodiscard]] std::size_t byte_size() const noexcept { return bytes_.size(); }
    [[nodiscard]] iterator begin() const noexcept;
    [[nodiscard]] iterator end() const noexcept;

private:
    static constexpr std::uint8_t negative_id = 1;

    std::vector<std::uint8_t> bytes_;
    std::size_t count_ = 0;
    // Where the coding starts: a phase whose successor has submit index 0
    // and task id 0 and starts at 0, so the first phase's steps are its values.
    static constexpr orch_record origin() noexcept {
        orch_record r;
        r.submit_idx = -1;
        r.task_id = raw_task_id{~std::uint64_t{0}, false};
        return r;
    }
    orch_record last_ = origin();
};

// Decodes the phases in order, each as an orch_record value.
class orch_phase_list::iterator {
public:
    using iterator_category = std::input_iterator_tag;
    using value_type = orch_record;
    using difference_type = std::ptrdiff_t;
    using reference = const orch_record&;
    using pointer = const orch_record*;

    iterator() = default;
    const orch_record& operator*() const noexcept { return phase_; }
    const orch_record* operator->() const noexcept { return &phase_; }
    iterator& operator++() noexcept {
        at_ = next_;
        decode();
        return *this;
    }
    iterator operator++(int) noexcept {
        iterator before = *this;
        ++*this;
        return before;
    }
    friend bool operator==(const iterator& a, const iterator& b) noexcept { return a.at_ == b.at_; }

private:
    // The phase at at_, from the one before it (phase_); nothing at the end.
    void decode() noexcept {
        if (at_ == end_) return;
        const std::uint8_t* p = at_;
        const std::uint8_t flags = *p++;
        phase_.start += unzigzag(get_varint(p));
        phase_.end = phase_.start + unzigzag(get_varint(p));
        phase_.submit_idx = static_cast<std::int64_t>(static_cast<std::uint64_t>(phase_.submit_idx) + 1 +
                                                      unzigzag(get_varint(p)));
        phase_.task_id.value += 1 + unzigzag(get_varint(p));
        phase_.task_id.negative = (flags & negative_id) != 0;
        next_ = p;
    }
    friend class orch_phase_list;
    const std::uint8_t* at_ = nullptr;
    const std::uint8_t* end_ = nullptr;
    const std::uint8_t* next_ = nullptr;
    orch_record phase_;
};

inline orch_phase_list::iterator orch_phase_list::begin() const noexcept {
    iterator it;
    it.at_ = bytes_.data();
    it.end_ = bytes_.data() + bytes_.size();
    it.phase_ = origin();
    it.decode();
    return it;
}
inline orch_phase_list::iterator orch_phase_list::end() const noexcept {
    iterator it;
    it.at_ = it.end_ = bytes_.data() + bytes_.size();
    return it;
}
static_assert(std::input_iterator<orch_phase_list::iterator>);

}  // namespace dfx::convert::swimlane
