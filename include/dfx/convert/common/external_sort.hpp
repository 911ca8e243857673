// external_sort: sorts more records than a converter should hold, in
// bounded memory: sorted runs of at most `budget_bytes` each (half of it for
// records sorted by radix, whose sort takes a copy), spilled to one
// spill_file, then merged k ways as they are read back.
//
//   external_sorter<id_pair> s(64 << 20);     // bytes of records held at most
//   for (...) s.push({pred, succ});           // (a Codec may code the runs:
//                                             // spill_file.hpp)
//   sorted_records<id_pair> in = std::move(s).finish();
//   while (const id_pair* e = in.next()) ...  // ascending by Less
//
// Records are trivially copyable; equal records come out in no set order,
// so a caller that needs one (the last of a repeated id wins) puts a
// sequence number in the key. Input that fits in the budget never touches
// the disk: finish() sorts it in place and hands it out from memory. The
// run buffer is reserved whole on the first push: its untouched pages cost
// no memory, and growing it would copy it and hold both copies at once.
// While merging, the budget is shared by the runs' read buffers, 4 KiB each
// at least: runs beyond budget / 4 KiB are first merged in passes, so the
// memory stays the budget's however much is sorted (a budget of a few
// records, as the tests use, holds a few buffers more).
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "dfx/convert/common/spill_file.hpp"

namespace dfx::convert {

// A sorted stream of records: from memory, or a merge of spilled runs.
template <class T, class Less = std::less<T>, class Codec = raw_codec<T>>
class sorted_records {
public:
    // A merge gives each run a read buffer of at least this much.
    static constexpr std::size_t min_read_buffer = std::size_t{4} << 10;

    // The next record in order, or null past the last; valid until the next call.
    const T* next() {
        if (!file_) return at_ < memory_.size() ? &memory_[at_++] : nullptr;
        if (!leader_) return nullptr;
        current_ = leader_->head;
        if (const T* x = runs_[leader_->run].next()) leader_->head = *x;
        else leader_.reset();
        // The run that gave the last record gives the next while its head
        // comes first: runs of nearly sorted input hardly overlap, and then
        // a record costs one comparison, not a trip through the heap.
        if (!heap_.empty() && (!leader_ || later_(*leader_, heap_.front()))) {
            std::pop_heap(heap_.begin(), heap_.end(), later_);
            const head best = heap_.back();
            heap_.pop_back();
            if (leader_) {
                heap_.push_back(*leader_);
                std::push_heap(heap_.begin(), heap_.end(), later_);
            }
            leader_ = best;
        }
        return &current_;
    }

    std::uint64_t size() const { return size_; }
    std::size_t runs() const { return file_ ? runs_.size() : 0; }  // spilled runs (0: all in memory)

private:
    template <class, class, class>
    friend class external_sorter;

    struct head {
        T head;
        std::size_t run;
    };
    struct later {
        Less less;
        bool operator()(const head& a, const head& b) const { return less(b.head, a.head); }
    };

    sorted_records(std::vector<T> memory, Less less) : memory_(std::move(memory)), later_{less} {
        size_ = memory_.size();
    }
    using stretch = typename spill_writer<T, Codec>::stretch;

    // A merge of `runs` of `file`, which it owns (`owned`) or the caller keeps.
    sorted_records(std::unique_ptr<spill_file> owned, const spill_file& file, const std::vector<stretch>& runs,
                   std::size_t budget_bytes, Less less)
        : owned_(std::move(owned)), file_(&file), later_{less} {
        const std::size_t per_run = std::max<std::size_t>(budget_bytes / runs.size(), min_read_buffer);
        runs_.reserve(runs.size());
        for (const stretch& run : runs) {
            runs_.emplace_back(*file_, run.offset, run.bytes, run.count,
                               static_cast<std::size_t>(std::min<std::uint64_t>(run.bytes, per_run)));
            size_ += run.count;
        }
        for (std::size_t r = 0; r < runs_.size(); ++r)
            if (const T* x = runs_[r].next()) heap_.push_back({*x, r});
        std::make_heap(heap_.begin(), heap_.end(), later_);
        if (heap_.empty()) return;
        std::pop_heap(heap_.begin(), heap_.end(), later_);
        leader_ = heap_.back();
        heap_.pop_back();
    }

    std::vector<T> memory_;
    std::size_t at_ = 0;
    std::unique_ptr<spill_file> owned_;
    const spill_file* file_ = nullptr;  // null: from memory
    std::vector<spill_reader<T, Codec>> runs_;
    std::optional<head> leader_;  // the run whose head comes first
    std::vector<head> heap_;      // the others'
    later later_;
    T current_{};
    std::uint64_t size_ = 0;
};

// A record that sorts by radix (radix_sort): its key as unsigned 64-bit
// words, most significant first, in the order its operator< compares them.
//
//   struct edge {
//       std::uint64_t node, peer;
//       static constexpr std::size_t radix_words = 2;
//       std::uint64_t radix_word(std::size_t i) const { return i == 0 ? node : peer; }
//   };
//
// Unsigned integers are their own one word.
template <class T>
concept radix_record = std::is_unsigned_v<T> || requires(const T& x) {
    { T::radix_words } -> std::convertible_to<std::size_t>;
    { x.radix_word(std::size_t{0}) } -> std::convertible_to<std::uint64_t>;
};

template <radix_record T>
constexpr std::size_t radix_words_of() {
    if constexpr (std::is_unsigned_v<T>) return 1;
    else return T::radix_words;
}
template <radix_record T>
std::uint64_t radix_word_of(const T& x, std::size_t i) {
    if constexpr (std::is_unsigned_v<T>) return x;
    else return x.radix_word(i);
}

// Sorts [first, last) by its radix words a byte at a time, from the least
// significant (LSD radix), through `scratch` (resized to the run), skipping
// the bytes all records share: edges between task ids, which differ in the
// low three bytes of each word, take six passes. (std::sort of deps.json's
// edges by predecessor was 2.4 % of `dfx deps` at 10^7 tasks, the sidecar's
// ids 2.4 % more.)
template <radix_record T>
void radix_sort(T* first, T* last, std::vector<T>& scratch) {
    const auto n = static_cast<std::size_t>(last - first);
    if (n < 2) return;
    scratch.resize(n);
    T* from = first;
    T* to = scratch.data();
    for (std::size_t w = radix_words_of<T>(); w-- > 0;) {
        std::uint64_t differ = 0;
        const std::uint64_t w0 = radix_word_of(*from, w);
        for (std::size_t i = 0; i < n; ++i) differ |= radix_word_of(from[i], w) ^ w0;
        for (unsigned shift = 0; shift < 64; shift += 8) {
            if (((differ >> shift) & 0xFFu) == 0) continue;
            std::size_t start[257] = {};
            for (std::size_t i = 0; i < n; ++i) ++start[((radix_word_of(from[i], w) >> shift) & 0xFFu) + 1];
            for (std::size_t b = 0; b < 256; ++b) start[b + 1] += start[b];
            for (std::size_t i = 0; i < n; ++i) to[start[(radix_word_of(from[i], w) >> shift) & 0xFFu]++] = from[i];
            std::swap(from, to);
        }
    }
    if (from != first) std::copy(from, from + n, first);
}

// Whether runs of T under Less are sorted by radix_sort.
template <class T, class Less>
inline constexpr bool sorted_by_radix = radix_record<T> && std::is_same_v<Less, std::less<T>>;

// Sorts [first, last). A run that arrives nearly in order (a deps.json's
// edges by successor, its tasks by id, the records' rows by core) is sorted
// by insertion in linear time; any other, once insertion has moved as many
// records as the run has, by radix_sort (through `scratch`) when T allows,
// else std::sort.
template <class T, class Less>
void sort_run(std::vector<T>& run, Less less, std::vector<T>& scratch) {
    T* const first = run.data();
    T* const last = first + run.size();
    auto moves_left = last - first;
    for (T* i = first + (first != last); i < last; ++i) {
        if (!less(*i, *(i - 1))) continue;
        T x = std::move(*i);
        T* hole = i;
        do {
            *hole = std::move(*(hole - 1));
            --hole;
        } while (--moves_left > 0 && hole != first && less(x, *(hole - 1)));
        *hole = std::move(x);
        if (moves_left <= 0) {
            if constexpr (sorted_by_radix<T, Less>) radix_sort(first, last, scratch);
            else std::sort(first, last, less);
            return;
        }
    }
}

template <class T, class Less = std::less<T>, class Codec = raw_codec<T>>
class external_sorter {
    static_assert(std::is_trivially_copyable_v<T>);

public:
    // (A radix-sorted run takes a scratch copy while it is sorted: half the
    // budget each.)
    explicit external_sorter(std::size_t budget_bytes, Less less = {})
        : capacity_(std::max<std::size_t>(budget_bytes / sizeof(T) / (sorted_by_radix<T, Less> ? 2 : 1), 1)),
          less_(less) {}

    void push(const T& x) {
        if (buffer_.size() == capacity_) spill_run();
        if (buffer_.capacity() == 0) buffer_.reserve(capacity_);
        buffer_.push_back(x);
        ++count_;
    }

    std::uint64_t size() const { return count_; }
    // Passes finish() merged the runs in before the last merge (0 when they
    // were few enough to read at once).
    std::size_t merge_passes() const { return merge_passes_; }

    sorted_records<T, Less, Codec> finish() && {
        if (!file_) {
            sort_run(buffer_, less_, scratch_);
            scratch_ = {};
            return sorted_records<T, Less, Codec>(std::move(buffer_), less_);
        }
        if (!buffer_.empty()) spill_run();
        buffer_ = {};  // (the merge's read buffers take the budget)
        scratch_ = {};
        while (runs_.size() > fan_in()) merge_pass();
        writer_.reset();
        const spill_file& file = *file_;
        return sorted_records<T, Less, Codec>(std::move(file_), file, runs_, budget_bytes(), less_);
    }

private:
    using stretch = typename spill_writer<T, Codec>::stretch;

    std::size_t budget_bytes() const { return capacity_ * sizeof(T) * (sorted_by_radix<T, Less> ? 2 : 1); }
    // The runs one merge reads at once within the budget; more are merged in
    // passes first, so memory stays bounded however many runs there are.
    std::size_t fan_in() const {
        return std::max<std::size_t>(budget_bytes() / sorted_records<T, Less, Codec>::min_read_buffer, 2);
    }
    // The writer's buffer: at most a quarter of the budget (a small budget
    // stays small), at least 4 KiB.
    std::size_t writer_bytes() const {
        return std::clamp<std::size_t>(budget_bytes() / 4, std::size_t{4} << 10, std::size_t{256} << 10);
    }

    void spill_run() {
        sort_run(buffer_, less_, scratch_);
        if (!file_) {
            file_ = std::make_unique<spill_file>();
            writer_.emplace(*file_, writer_bytes());
        }
        for (const T& x : buffer_) writer_->push(x);
        runs_.push_back(writer_->finish());
        buffer_.clear();
    }

    // Merges the runs fan_in() at a time into fewer, longer runs in a new
    // file (the old one goes: its space is given back).
    void merge_pass() {
        auto next = std::make_unique<spill_file>();
        spill_writer<T, Codec> w(*next, writer_bytes());
        std::vector<stretch> merged;
        const std::size_t fan = fan_in();
        for (std::size_t first = 0; first < runs_.size(); first += fan) {
            const std::vector<stretch> group(runs_.begin() + static_cast<std::ptrdiff_t>(first),
                                             runs_.begin() + static_cast<std::ptrdiff_t>(std::min(runs_.size(), first + fan)));
            sorted_records<T, Less, Codec> m(nullptr, *file_, group, budget_bytes() - writer_bytes(), less_);
            while (const T* x = m.next()) w.push(*x);
            merged.push_back(w.finish());
        }
        writer_.reset();
        file_ = std::move(next);
        runs_ = std::move(merged);
        ++merge_passes_;
    }

    std::size_t capacity_;
    Less less_;
    std::vector<T> buffer_;
    std::vector<T> scratch_;  // radix_sort's
    std::unique_ptr<spill_file> file_;
    std::optional<spill_writer<T, Codec>> writer_;  // of file_'s runs
    std::vector<stretch> runs_;
    std::uint64_t count_ = 0;
    std::size_t merge_passes_ = 0;
};

}  // namespace dfx::convert
