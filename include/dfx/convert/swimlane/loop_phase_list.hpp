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
#include <iterator>
#include <vector>

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

class loop_phase_list {
public:
    class iterator;

    void push_back(const loop_phase& p) {
        bytes_.push_back(static_cast<std::uint8_t>(p.kind));
        put(zigzag(p.start_cycles - last_start_));
        put(zigzag(p.end_cycles - p.start_cycles));
        last_start_ = p.start_cycles;
        ++count_;
    }
    [[nodiscard]] std::size_t size() const noexcept { return count_; }
    [[nodiscard]] bool empty() const noexcept { return count_ == 0; }
    [[nodiscard]] std::size_t byte_size() const noexcept { return bytes_.size(); }
    [[nodiscard]] iterator begin() const noexcept;
    [[nodiscard]] iterator end() const noexcept;
    // Frees the phases (the lane keeps their sums).
    void release() noexcept {
        std::vector<std::uint8_t>().swap(bytes_);
        count_ = 0;
        last_start_ = 0;
    }

private:
    void put(std::uint64_t v) {
        std::uint8_t code[varint_max_bytes];
        std::uint8_t* end = code;
        put_varint(end, v);
        bytes_.insert(bytes_.end(), code, end);
    }

    std::vector<std::uint8_t> bytes_;
    std::size_t count_ = 0;
    std::uint64_t last_start_ = 0;  // of the phase pushed last
};

// Decodes the phases in order, each as a loop_phase value.
class loop_phase_list::iterator {
public:
    using iterator_category = std::input_iterator_tag;
    using value_type = loop_phase;
    using difference_type = std::ptrdiff_t;
    using reference = loop_phase;
    using pointer = void;

    iterator() = default;
    loop_phase operator*() const noexcept { return phase_; }
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
    // The phase at at_ (its start is the previous one's plus the delta);
    // nothing at the end.
    void decode() noexcept {
        if (at_ == end_) return;
        const std::uint8_t* p = at_;
        phase_.kind = static_cast<phase_kind>(*p++);
        phase_.start_cycles = start_ + unzigzag(get_varint(p));
        phase_.end_cycles = phase_.start_cycles + unzigzag(get_varint(p));
        start_ = phase_.start_cycles;
        next_ = p;
    }
    friend class loop_phase_list;
    const std::uint8_t* at_ = nullptr;
    const std::uint8_t* end_ = nullptr;
    const std::uint8_t* next_ = nullptr;
    std::uint64_t start_ = 0;
    loop_phase phase_;
};

inline loop_phase_list::iterator loop_phase_list::begin() const noexcept {
    iterator it;
    it.at_ = bytes_.data();
    it.end_ = bytes_.data() + bytes_.size();
    it.decode();
    return it;
}
inline loop_phase_list::iterator loop_phase_list::end() const noexcept {
    iterator it;
    it.at_ = it.end_ = bytes_.data() + bytes_.size();
    return it;
}
static_assert(std::input_iterator<loop_phase_list::iterator>);

}  // namespace dfx::convert::swimlane
