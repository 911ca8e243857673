// sched_phases: a scheduler thread's phases as `dfx swimlane` and the
// statistics keep them, delta-coded: about 12 bytes each where a
// sched_record takes 72.
//
//   sched_phases phases;
//   phases.push_back(r);                     // any sched_record
//   for (const sched_record& p : phases) ... // the same values, in the order pushed
//   phases.for_each_where(kind_is(phase_kind::dispatch),
//                         [&](std::size_t i, const sched_record& p) { ... });  // some kinds only
//   phases.kind(i)                           // a kind, not decoding the phase
//   sched_phases::reader read;               // by index, stepping forward:
//   const sched_record& p = read(phases, i); //   one phase decoded per step
//   const sched_record back = phases[i];     // a lookup: decodes from i's block start
//
// Why: at level 3 and 4 a capture has about five scheduler phases per task,
// so their records are the largest thing the trace converter holds: 1.8 GB
// at 10^7 tasks in the 40-byte layout, a quarter of the JSON trace's peak.
// A thread records its loop in order, so each field of a phase is close to
// the previous phase's: each is written as the zigzag varint of its wrapped
// 64-bit step from there (common/delta_varint.hpp), its end as its length,
// and the six queue depths not at all when none changed. Any values code
// and decode exactly (out of order, an end before its start, a counter far
// past the usual range); they just take more bytes. A block of 16 phases
// starts from a default record, so phase i decodes from its block's start
// without the phases before. The kinds are kept apart, a byte a phase, so
// that a pass that looks for a rare kind (the markers, the resolve lane)
// decodes only the blocks that hold one: the trace makes about ten passes.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "dfx/convert/common/delta_varint.hpp"
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

// A kind test for sched_phases::for_each_where:
// phases.for_each_where(kind_is(phase_kind::dispatch), ...).
constexpr auto kind_is(phase_kind wanted) noexcept {
    return [wanted](phase_kind k) { return k == wanted; };
}
static_assert(kind_is(phase_kind::dispatch)(phase_kind::dispatch) && !kind_is(phase_kind::dispatch)(phase_kind::complete));

// One `aicpu_scheduler_phases[thread][i]` object.
// Times stay in cycles as read: perf_data::start_us() / end_us() convert them;
// the pop counters are summed per lane as read (sched_pops). 72 bytes as a
// value; a lane keeps it delta-coded (sched_phases, below).
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

// A thread's phases in the order pushed, delta-coded (see the top of this
// file): each phase's head byte (its kind and flags) in one array, so that
// a pass over the phases of some kinds reads one byte for each of the
// others; the rest in blocks of block_phases phases, each block's first
// phase coded against a default record so that a block decodes on its own.
class sched_phases {
public:
    class reader;
    class iterator;

    sched_phases() = default;
    // A move leaves the source empty, as a moved-from vector is.
    sched_phases(sched_phases&& other) noexcept { *this = std::move(other); }
    sched_phases& operator=(sched_phases&& other) noexcept;
    // A copy codes the phases again (block starts point into the pages).
    sched_phases(const sched_phases& other);
    sched_phases& operator=(const sched_phases& other);
    ~sched_phases() = default;

    void push_back(const sched_record& r);

    [[nodiscard]] std::size_t size() const noexcept { return count_; }
    [[nodiscard]] bool empty() const noexcept { return count_ == 0; }
    // Phase i, decoded from its block's start: for a lookup here and there;
    // walk with an iterator, or a reader for indices that mostly step by one.
    [[nodiscard]] sched_record operator[](std::size_t i) const;
    [[nodiscard]] iterator begin() const noexcept;
    [[nodiscard]] iterator end() const noexcept;
    // Phase i's kind, without decoding it.
    [[nodiscard]] phase_kind kind(std::size_t i) const noexcept { return static_cast<phase_kind>(heads_[i] & kind_bits); }
    // Calls f(i, phase) for each phase whose kind `wanted(kind)` accepts,
    // in order. It decodes the blocks that hold such a phase, up to the
    // last one in each; the others it skips on their kinds.
    template <class Wanted, class F>
    void for_each_where(Wanted&& wanted, F&& f) const;
    // Bytes the codes take, heads included (not the pages' unused ends, nor
    // the vectors' spare capacity).
    [[nodiscard]] std::size_t byte_size() const noexcept { return heads_.size() + code_bytes_; }

    // Phases per block: a lookup decodes at most this many; a block start
    // costs a pointer and a phase coded in full (about 12 bytes more).
    static constexpr std::size_t block_phases = 16;

private:
    // A phase's code past its head: five varints and, unless its depths
    // are the previous phase's, six more (a depth's step takes 5 bytes at
    // most, so this is generous: 80 would do).
    static constexpr std::size_t max_phase_bytes = 11 * varint_max_bytes;
    // Pages, not one growing vector: no copy of everything on growth, and
    // no untouched half of a doubled capacity.
    static constexpr std::size_t page_bytes = std::size_t{256} << 10;
    static_assert(page_bytes >= block_phases * max_phase_bytes, "a block fits a page");
    // decode() loads this many bytes from a phase's start, past its end for
    // a short phase. A block starts with room for block_phases phases of
    // max_phase_bytes, so at least max_phase_bytes follow each phase's start
    // in its page: the load stays in the page, and only the phase's own
    // bytes are used.
    static constexpr std::size_t over_read_bytes = 16;
    static_assert(max_phase_bytes >= over_read_bytes);

    // Head bits; the low four hold the kind.
    static constexpr std::uint8_t kind_bits = 0x0Fu;
    static constexpr std::uint8_t has_tasks_processed_bit = 1u << 4;
    static constexpr std::uint8_t has_task_id_bit = 1u << 5;
    static constexpr std::uint8_t depths_valid_bit = 1u << 6;
    static constexpr std::uint8_t same_depths_bit = 1u << 7;
    static_assert(static_cast<unsigned>(phase_kind::other) <= kind_bits, "a kind fits the head's low four bits");

    static bool same_depths(const sched_record& a, const sched_record& b) noexcept {
        for (int k = 0; k < 3; ++k)
            if (a.depth_start[k] != b.depth_start[k] || a.depth_end[k] != b.depth_end[k]) return false;
        return true;
    }
    // A 32-bit value's step from the one before, as a wrapped 64-bit difference.
    static std::uint64_t step(std::int32_t before, std::int32_t now) noexcept {
        return static_cast<std::uint64_t>(std::int64_t{now} - std::int64_t{before});
    }
    static std::int32_t after_step(std::int32_t before, std::uint64_t by) noexcept {
        return static_cast<std::int32_t>(std::int64_t{before} + static_cast<std::int64_t>(by));
    }
    // Codes `r` at `p` against `prev`, the phase before it in its block (a
    // default record for a block's first); returns its head.
    static std::uint8_t encode(std::uint8_t*& p, const sched_record& prev, const sched_record& r) noexcept;
    // Turns `r`, the phase before the one with head `head` coded at `p`,
    // into that phase; returns where the next phase's code starts.
    static const std::uint8_t* decode(std::uint8_t head, const std::uint8_t* p, sched_record& r) noexcept;
    // Decodes phase i into `r` from `at`, where it is coded, with r holding
    // phase i - 1; from its block's start instead when it opens a block.
    // Returns where phase i + 1 is coded. (The reader's and the iterator's step.)
    const std::uint8_t* decode_at(std::size_t i, const std::uint8_t* at, sched_record& r) const noexcept {
        if (i % block_phases == 0) {
            at = blocks_[i / block_phases];
            r = sched_record{};
        }
        return decode(heads_[i], at, r);
    }

    std::vector<std::uint8_t> heads_;  // per phase
    std::vector<std::unique_ptr<std::uint8_t[]>> pages_;
    std::uint8_t* write_ = nullptr;     // the next free byte of the last page
    std::uint8_t* page_end_ = nullptr;  // the last page's end
    std::vector<const std::uint8_t*> blocks_;  // where each block's first phase is coded
    std::size_t count_ = 0;
    std::size_t code_bytes_ = 0;  // in the pages
    sched_record last_;  // the phase pushed last, the next one's base within a block
};

// Reads phases by index, cheaply when each index is at or a little past the
// one read before in the same block (the order a section writes them in):
// it decodes forward from there, and from the index's block start
// otherwise. One per thread; it knows a list by its address, so it is for
// one pass over lists that are neither moved nor assigned meanwhile.
//
//   sched_phases::reader read;
//   for (std::size_t i = first; i < last; ++i) use(read(phases, i));
class sched_phases::reader {
public:
    // Phase i of `phases` (i < phases.size()); valid until the next call.
    const sched_record& operator()(const sched_phases& phases, std::size_t i) noexcept {
        if (&phases == phases_ && next_ > 0 && i == next_ - 1) return record_;
        if (&phases != phases_ || i < next_ || i / block_phases != next_ / block_phases) {
            phases_ = &phases;  // another list, behind, or in a later block: from i's block start
            next_ = i - i % block_phases;
        }
        for (; next_ <= i; ++next_) at_ = phases.decode_at(next_, at_, record_);
        return record_;
    }

private:
    const sched_phases* phases_ = nullptr;
    std::size_t next_ = 0;  // the index after record_'s
    const std::uint8_t* at_ = nullptr;  // where phase next_ is coded, within its block
    sched_record record_;
};

// Reads the phases in order, each as a sched_record value: one phase
// decoded per step, from where the last one ended.
class sched_phases::iterator {
public:
    using iterator_category = std::input_iterator_tag;
    using value_type = sched_record;
    using difference_type = std::ptrdiff_t;
    using reference = const sched_record&;
    using pointer = void;

    iterator() = default;
    const sched_record& operator*() const noexcept { return record_; }
    iterator& operator++() noexcept {
        if (++i_ < phases_->count_) step();
        return *this;
    }
    iterator operator++(int) noexcept {
        iterator before = *this;
        ++*this;
        return before;
    }
    friend bool operator==(const iterator& a, const iterator& b) noexcept { return a.i_ == b.i_; }

private:
    friend class sched_phases;
    iterator(const sched_phases* phases, std::size_t i) noexcept : phases_(phases), i_(i) {
        if (i_ < phases_->count_) step();
    }
    void step() noexcept { at_ = phases_->decode_at(i_, at_, record_); }

    const sched_phases* phases_ = nullptr;
    std::size_t i_ = 0;
    const std::uint8_t* at_ = nullptr;  // where phase i_ + 1 is coded, within i_'s block
    sched_record record_;               // phase i_
};
static_assert(std::input_iterator<sched_phases::iterator>);

inline sched_phases::sched_phases(const sched_phases& other) {
    for (const sched_record& r : other) push_back(r);
}
inline sched_phases& sched_phases::operator=(const sched_phases& other) {
    if (this != &other) *this = sched_phases(other);
    return *this;
}

inline sched_phases& sched_phases::operator=(sched_phases&& other) noexcept {
    heads_ = std::exchange(other.heads_, {});
    pages_ = std::exchange(other.pages_, {});
    write_ = std::exchange(other.write_, nullptr);
    page_end_ = std::exchange(other.page_end_, nullptr);
    blocks_ = std::exchange(other.blocks_, {});
    count_ = std::exchange(other.count_, 0);
    code_bytes_ = std::exchange(other.code_bytes_, 0);
    last_ = std::exchange(other.last_, {});
    return *this;
}

inline void sched_phases::push_back(const sched_record& r) {
    // What can throw (the allocations) comes first, each leaving the list
    // as it was: a page unused yet is harmless.
    if (count_ % block_phases == 0) {
        if (static_cast<std::size_t>(page_end_ - write_) < block_phases * max_phase_bytes) {
            // Not zeroed: a page is touched as it fills.
            auto page = std::make_unique_for_overwrite<std::uint8_t[]>(page_bytes);
            pages_.push_back(std::move(page));
            write_ = pages_.back().get();
            page_end_ = write_ + page_bytes;
        }
        blocks_.push_back(write_);
    }
    try {
        heads_.push_back(0);
    } catch (...) {
        if (count_ % block_phases == 0) blocks_.pop_back();
        throw;
    }
    if (count_ % block_phases == 0) last_ = sched_record{};
    const std::uint8_t* const from = write_;
    heads_.back() = encode(write_, last_, r);
    code_bytes_ += static_cast<std::size_t>(write_ - from);
    last_ = r;
    ++count_;
}

inline sched_record sched_phases::operator[](std::size_t i) const {
    reader read;
    return read(*this, i);
}
template <class Wanted, class F>
void sched_phases::for_each_where(Wanted&& wanted, F&& f) const {
    reader read;
    for (std::size_t i = 0; i < count_; ++i) {
        if (wanted(kind(i))) f(i, read(*this, i));
    }
}

inline sched_phases::iterator sched_phases::begin() const noexcept { return {this, 0}; }
inline sched_phases::iterator sched_phases::end() const noexcept { return {this, count_}; }

inline std::uint8_t sched_phases::encode(std::uint8_t*& p, const sched_record& prev, const sched_record& r) noexcept {
    const bool same = same_depths(prev, r);
    const auto head = static_cast<std::uint8_t>(static_cast<unsigned>(r.kind) | (r.has_tasks_processed ? has_tasks_processed_bit : 0u) |
                                                (r.has_task_id ? has_task_id_bit : 0u) |
                                                (r.depths_valid ? depths_valid_bit : 0u) | (same ? same_depths_bit : 0u));
    put_varint(p, zigzag(r.start_cycles - prev.start_cycles));
    put_varint(p, zigzag(r.end_cycles - r.start_cycles));
    put_varint(p, zigzag(static_cast<std::uint64_t>(r.loop_iter) - static_cast<std::uint64_t>(prev.loop_iter)));
    put_varint(p, zigzag(static_cast<std::uint64_t>(r.tasks_processed) - static_cast<std::uint64_t>(prev.tasks_processed)));
    put_varint(p, zigzag(r.task_id - prev.task_id));
    if (same) return head;
    for (int k = 0; k < 3; ++k) put_varint(p, zigzag(step(prev.depth_start[k], r.depth_start[k])));
    for (int k = 0; k < 3; ++k) put_varint(p, zigzag(step(prev.depth_end[k], r.depth_end[k])));
    return head;
}

inline const std::uint8_t* sched_phases::decode(std::uint8_t head, const std::uint8_t* p, sched_record& r) noexcept {
    const bool same = (head & same_depths_bit) != 0;
    const std::size_t fields = same ? 5 : 11;
    std::uint64_t code[11];
    // A phase whose fields all take one byte (a start under 64 cycles after
    // the previous one's: 10.6 % of the bench capture's phases) is read
    // with one test for all of them, on 16 bytes loaded at once (in the
    // page: see over_read_bytes; the bytes past the phase are masked out).
    bool one_byte_each = false;
    std::uint64_t low = 0, high = 0;
    if constexpr (std::endian::native == std::endian::little) {
        std::memcpy(&low, p, 8);
        std::memcpy(&high, p + 8, 8);
        const std::uint64_t continued = same ? (low & 0x8080808080u) : (low & 0x8080808080808080u) | (high & 0x808080u);
        one_byte_each = continued == 0;
    }
    if (one_byte_each) {
        for (std::size_t k = 0; k < fields; ++k) code[k] = ((k < 8 ? low : high) >> (8 * (k % 8))) & 0xFFu;
        p += fields;
    } else {
        for (std::size_t k = 0; k < fields; ++k) code[k] = get_varint(p);
    }
    r.kind = static_cast<phase_kind>(head & kind_bits);
    r.has_tasks_processed = (head & has_tasks_processed_bit) != 0;
    r.has_task_id = (head & has_task_id_bit) != 0;
    r.depths_valid = (head & depths_valid_bit) != 0;
    r.start_cycles += unzigzag(code[0]);
    r.end_cycles = r.start_cycles + unzigzag(code[1]);
    r.loop_iter = static_cast<std::int64_t>(static_cast<std::uint64_t>(r.loop_iter) + unzigzag(code[2]));
    r.tasks_processed = static_cast<std::int64_t>(static_cast<std::uint64_t>(r.tasks_processed) + unzigzag(code[3]));
    r.task_id += unzigzag(code[4]);
    if (same) return p;
    for (std::size_t k = 0; k < 3; ++k) r.depth_start[k] = after_step(r.depth_start[k], unzigzag(code[5 + k]));
    for (std::size_t k = 0; k < 3; ++k) r.depth_end[k] = after_step(r.depth_end[k], unzigzag(code[8 + k]));
    return p;
}

}  // namespace dfx::convert::swimlane
