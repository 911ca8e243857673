// sched_phases: a scheduler thread's phases as `dfx swimlane` and the
// statistics keep them, 40 bytes each where a sched_record takes 72.
//
//   sched_phases phases;
//   phases.push_back(r);                     // any sched_record
//   const sched_record back = phases[i];     // the same values, read back
//   for (const sched_record& p : phases) ... // in the order pushed
//
// Why: at level 3 and 4 a capture has about five scheduler phases per task,
// so their records were the largest thing the trace converter held (403 of
// its 947 MB peak at 10^6 tasks). Almost every phase fits a narrower layout:
// its length in 32 bits, loop_iter in 32, tasks_processed and the six queue
// depths in 16. A phase that does not (a huge or negative depth, an end
// before its start, a counter past the narrow range) is kept whole in a side
// list and its packed slot points there, so every value reads back exactly.
// Reads return a sched_record by value (a few loads and widenings).
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string_view>
#include <utility>
#include <vector>

#include "dfx/schema/phase_kinds.hpp"

namespace dfx::convert::swimlane {

// Scheduler phase kinds the tools distinguish (spec §1.3, named once in
// schema/phase_kinds.hpp), plus dfxkit's `generic` (a scheduler that is not
// Simpler's), which the trace draws like an outer phase although the
// reference converter skips it. Everything else, including the legacy
// scan/poll/idle/fanout/prestage strings, is `other`: the converter does not
// render those and the analysis ignores them.
//
// Unlike schema::phase_kind this is a dense index (0 .. other), in the order
// the trace's per-kind tables (colours in trace_writer.hpp) are laid out;
// wire_kind_of maps it to the schema's kind and so to its name.
enum class phase_kind : std::uint8_t {
    complete,
    async_poll,
    dispatch,
    release,
    resolve,
    early_dispatch,
    dummy,
    drain,
    drain_prepare,
    drain_publish,
    graph_prepare,
    dummy_task,
    predicated_skip,
    generic,
    other,
};

// Indexed by phase_kind (all but `other`).
inline constexpr schema::phase_kind wire_kind_of[] = {
    schema::phase_kind::complete,      schema::phase_kind::async_poll,      schema::phase_kind::dispatch,
    schema::phase_kind::release,       schema::phase_kind::resolve,         schema::phase_kind::early_dispatch,
    schema::phase_kind::dummy,         schema::phase_kind::drain,           schema::phase_kind::drain_prepare,
    schema::phase_kind::drain_publish, schema::phase_kind::graph_prepare,   schema::phase_kind::dummy_task,
    schema::phase_kind::predicated_skip, schema::phase_kind::generic,
};
static_assert(std::size(wire_kind_of) == static_cast<std::size_t>(phase_kind::other) &&
                  std::size(wire_kind_of) == schema::phase_kinds.size(),
              "every schema phase kind has one index here");

inline constexpr std::string_view other_phase_kind_name = "other";

constexpr phase_kind phase_kind_from(std::string_view s) noexcept {
    const auto wire = schema::phase_kind_from_name(s);
    if (!wire) return phase_kind::other;
    for (std::size_t i = 0; i < std::size(wire_kind_of); ++i)
        if (wire_kind_of[i] == *wire) return static_cast<phase_kind>(i);
    return phase_kind::other;
}
constexpr std::string_view name_of(phase_kind k) noexcept {
    return k == phase_kind::other ? other_phase_kind_name : schema::phase_kind_name(wire_kind_of[static_cast<std::size_t>(k)]);
}
static_assert(phase_kind_from("async_poll") == phase_kind::async_poll && name_of(phase_kind::generic) == "generic" &&
              phase_kind_from("fanout") == phase_kind::other);

// One `aicpu_scheduler_phases[thread][i]` object.
// Times stay in cycles as read: perf_data::start_us() / end_us() convert them;
// the pop counters are summed per lane as read (sched_pops). 72 bytes as a
// value; a lane keeps it packed in 40 (sched_phases, below).
struct sched_record {
    std::uint64_t start_cycles = 0;
    std::uint64_t end_cycles = 0;
    std::int64_t loop_iter = 0;
    std::int64_t tasks_processed = 0;
    std::uint64_t task_id = 0;
    std::int32_t depth_start[3] = {0, 0, 0};  // shared_at_start [AIC, AIV, MIX]
    std::int32_t depth_end[3] = {0, 0, 0};    // shared_at_end
    phase_kind kind = phase_kind::other;
    bool has_tasks_processed = false;
    bool has_task_id = false;
    bool depths_valid = false;  // both depth arrays present with 3 entries

    friend bool operator==(const sched_record&, const sched_record&) = default;
};

// A thread's phases in the order pushed, packed (see the top of this file).
class sched_phases {
public:
    class iterator;

    void push_back(const sched_record& r) {
        packed p;
        if (fits(r)) {
            p.start_cycles = r.start_cycles;
            p.task_id = r.task_id;
            p.length = static_cast<std::uint32_t>(r.end_cycles - r.start_cycles);
            p.loop_iter = static_cast<std::int32_t>(r.loop_iter);
            p.tasks_processed = static_cast<std::int16_t>(r.tasks_processed);
            for (int k = 0; k < 3; ++k) {
                p.depth[k] = static_cast<std::int16_t>(r.depth_start[k]);
                p.depth[3 + k] = static_cast<std::int16_t>(r.depth_end[k]);
            }
            p.kind = r.kind;
            p.flags = static_cast<std::uint8_t>((r.has_tasks_processed ? has_tasks_processed : 0) |
                                                (r.has_task_id ? has_task_id : 0) | (r.depths_valid ? depths_valid : 0));
        } else {
            p.task_id = wide_.size();
            p.flags = wide;
            wide_.push_back(r);
        }
        packed_.push_back(p);
    }

    [[nodiscard]] std::size_t size() const noexcept { return packed_.size(); }
    [[nodiscard]] bool empty() const noexcept { return packed_.empty(); }
    [[nodiscard]] sched_record operator[](std::size_t i) const { return unpack(packed_[i]); }
    [[nodiscard]] iterator begin() const noexcept;
    [[nodiscard]] iterator end() const noexcept;
    // How many phases did not fit the packed layout (kept whole).
    [[nodiscard]] std::size_t wide_count() const noexcept { return wide_.size(); }

private:
    static constexpr std::uint8_t has_tasks_processed = 1u << 0;
    static constexpr std::uint8_t has_task_id = 1u << 1;
    static constexpr std::uint8_t depths_valid = 1u << 2;
    static constexpr std::uint8_t wide = 1u << 3;  // task_id is an index into wide_

    struct packed {
        std::uint64_t start_cycles = 0;
        std::uint64_t task_id = 0;
        std::uint32_t length = 0;  // end_cycles - start_cycles
        std::int32_t loop_iter = 0;
        std::int16_t depth[6] = {};  // depth_start, then depth_end
        std::int16_t tasks_processed = 0;
        phase_kind kind = phase_kind::other;
        std::uint8_t flags = 0;
    };
    static_assert(sizeof(packed) == 40);

    static constexpr bool fits(const sched_record& r) noexcept {
        if (r.end_cycles < r.start_cycles || !std::in_range<std::uint32_t>(r.end_cycles - r.start_cycles)) return false;
        if (!std::in_range<std::int32_t>(r.loop_iter) || !std::in_range<std::int16_t>(r.tasks_processed)) return false;
        for (int k = 0; k < 3; ++k)
            if (!std::in_range<std::int16_t>(r.depth_start[k]) || !std::in_range<std::int16_t>(r.depth_end[k])) return false;
        return true;
    }
    sched_record unpack(const packed& p) const {
        if (p.flags & wide) return wide_[p.task_id];
        sched_record r;
        r.start_cycles = p.start_cycles;
        r.end_cycles = p.start_cycles + p.length;
        r.loop_iter = p.loop_iter;
        r.tasks_processed = p.tasks_processed;
        r.task_id = p.task_id;
        for (int k = 0; k < 3; ++k) {
            r.depth_start[k] = p.depth[k];
            r.depth_end[k] = p.depth[3 + k];
        }
        r.kind = p.kind;
        r.has_tasks_processed = (p.flags & has_tasks_processed) != 0;
        r.has_task_id = (p.flags & has_task_id) != 0;
        r.depths_valid = (p.flags & depths_valid) != 0;
        return r;
    }

    std::vector<packed> packed_;
    std::vector<sched_record> wide_;  // the phases that do not fit, in push order
};

// Reads the phases in order, each as a sched_record value.
class sched_phases::iterator {
public:
    using iterator_category = std::input_iterator_tag;
    using value_type = sched_record;
    using difference_type = std::ptrdiff_t;
    using reference = sched_record;
    using pointer = void;

    iterator() = default;
    iterator(const sched_phases* phases, std::size_t i) noexcept : phases_(phases), i_(i) {}
    sched_record operator*() const { return (*phases_)[i_]; }
    iterator& operator++() noexcept {
        ++i_;
        return *this;
    }
    iterator operator++(int) noexcept {
        iterator before = *this;
        ++i_;
        return before;
    }
    friend bool operator==(const iterator& a, const iterator& b) noexcept { return a.i_ == b.i_; }

private:
    const sched_phases* phases_ = nullptr;
    std::size_t i_ = 0;
};

inline sched_phases::iterator sched_phases::begin() const noexcept { return {this, 0}; }
inline sched_phases::iterator sched_phases::end() const noexcept { return {this, packed_.size()}; }
static_assert(std::input_iterator<sched_phases::iterator>);

}  // namespace dfx::convert::swimlane
