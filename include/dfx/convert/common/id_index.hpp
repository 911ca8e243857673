// id_index: task id -> dense index, for the converters' hot lookups.
//
// Every dependency edge, completion and SPMD check looks a task id up; a
// binary search over hundreds of thousands of ids costs a cache miss per step.
// This is a flat open-addressing table (linear probing, power-of-two size,
// load <= 1/2): one or two probes per lookup and 16 bytes per slot.
//
// When the ids it will hold are known up front (`id_index::over`) and are
// dense, as task ids are (ring << 32 | a counter from 0), it is a plain
// array instead: per high word (ring) one run from its lowest to its highest
// low word, 4 bytes a slot and no probing. The hashed table then holds only
// ids outside the runs. At 10^7 tasks the hashed table is 2^25 slots, 537
// MB; the array 40 MB (`dfx deps` built three of them, one at a time).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace dfx::convert {

class id_index {
public:
    static constexpr std::uint32_t npos = 0xFFFFFFFFu;

    explicit id_index(std::size_t expected = 0) { rehash(expected); }

    // An index for the ids `for_each_id(f)` calls f with (the ids it will be
    // given, or most of them; repeats are fine): an array of runs when they
    // fill at least half of their runs' slots (and have at most max_runs
    // distinct high words), else a hashed table sized for them. Any id can be
    // inserted either way; one outside the runs goes to the hashed table.
    template <class ForEachId>
    static id_index over(ForEachId&& for_each_id) {
        id_index index;
        std::size_t count = 0;
        bool dense = true;
        std::vector<run>& runs = index.runs_;
        runs.reserve(max_runs);  // (`last` points into it)
        run* last = nullptr;  // the run of the previous id: ids come in runs
        for_each_id([&](std::uint64_t id) {
            ++count;
            if (!dense) return;
            const auto high = static_cast<std::uint32_t>(id >> 32), low = static_cast<std::uint32_t>(id);
            if (!last || last->high != high) {
                last = nullptr;
                for (run& r : runs)
                    if (r.high == high) last = &r;
                if (!last) {
                    if (runs.size() == max_runs) {
                        dense = false;
                        return;
                    }
                    runs.push_back({high, low, low, 0});
                    last = &runs.back();
                }
            }
            last->lo = std::min(last->lo, low);
            last->hi = std::max(last->hi, low);
        });
        std::size_t span = 0;
        for (const run& r : runs) span += std::size_t{r.hi} - r.lo + 1;
        if (!dense || span > 2 * count) {
            index.runs_.clear();
            index.rehash(count);
            return index;
        }
        std::size_t first = 0;
        for (run& r : runs) {
            r.first = first;
            first += std::size_t{r.hi} - r.lo + 1;
        }
        index.dense_.assign(span, npos);
        return index;
    }

    // Maps id -> value unless id is mapped already. Returns the value id maps
    // to now, and whether this call inserted it.
    std::pair<std::uint32_t, bool> emplace(std::uint64_t id, std::uint32_t value) {
        if (const std::size_t d = dense_slot(id); d != no_slot) {
            std::uint32_t& v = dense_[d];
            if (v != npos) return {v, false};
            v = value;
            ++size_;
            return {value, true};
        }
        if ((hashed_ + 1) * 2 > slots_.size()) rehash(slots_.size());
        slot& s = probe(id);
        if (s.value != npos) return {s.value, false};
        s.id = id;
        s.value = value;
        ++size_;
        ++hashed_;
        return {value, true};
    }
    // Maps id -> value; a second insert of the same id keeps the first value.
    void insert(std::uint64_t id, std::uint32_t value) { emplace(id, value); }
    [[nodiscard]] std::uint32_t find(std::uint64_t id) const {
        if (const std::size_t d = dense_slot(id); d != no_slot) return dense_[d];
        std::size_t i = hash(id) & mask_;
        for (;;) {
            const slot& s = slots_[i];
            if (s.value == npos) return npos;
            if (s.id == id) return s.value;
            i = (i + 1) & mask_;
        }
    }
    [[nodiscard]] std::size_t size() const noexcept { return size_; }
    // Whether over() chose the array (for tests and measurements).
    [[nodiscard]] bool dense() const noexcept { return !runs_.empty(); }

private:
    // A lookup looks through the runs one by one: a few rings (most runs
    // have one), not many.
    static constexpr std::size_t max_runs = 16;
    static constexpr std::size_t no_slot = ~std::size_t{0};
    struct run {
        std::uint32_t high, lo, hi;  // ids (high << 32) | [lo, hi]
        std::size_t first;           // slot of lo in dense_
    };
    std::size_t dense_slot(std::uint64_t id) const noexcept {
        const auto high = static_cast<std::uint32_t>(id >> 32), low = static_cast<std::uint32_t>(id);
        for (const run& r : runs_)
            if (r.high == high) return low >= r.lo && low <= r.hi ? r.first + (low - r.lo) : no_slot;
        return no_slot;
    }

    struct slot {
        std::uint64_t id = 0;
        std::uint32_t value = npos;
    };
    static std::size_t hash(std::uint64_t x) noexcept {
        // Task ids are structured (ring << 32 | local) and mostly looked up in
        // runs of consecutive locals: ids that differ only in their low three
        // bits share a group of eight adjacent slots (two cache lines), and
        // the groups are spread by mixing all the other bits.
        std::uint64_t group = x >> 3;
        group ^= group >> 33;
        group *= 0xff51afd7ed558ccdULL;
        group ^= group >> 33;
        return static_cast<std::size_t>(group << 3 | (x & 7));
    }
    slot& probe(std::uint64_t id) {
        std::size_t i = hash(id) & mask_;
        while (slots_[i].value != npos && slots_[i].id != id) i = (i + 1) & mask_;
        return slots_[i];
    }
    void rehash(std::size_t at_least) {
        std::size_t n = 16;
        while (n < at_least * 2) n *= 2;
        std::vector<slot> old;
        old.swap(slots_);
        slots_.assign(n, slot{});
        mask_ = n - 1;
        size_ -= hashed_;
        hashed_ = 0;
        for (const slot& s : old) {
            if (s.value != npos) insert(s.id, s.value);
        }
    }

    std::vector<run> runs_;              // by high word; empty: no array
    std::vector<std::uint32_t> dense_;   // per run slot: value, npos for none
    std::vector<slot> slots_;            // the hashed table: ids outside the runs
    std::size_t mask_ = 0;
    std::size_t size_ = 0;    // ids mapped
    std::size_t hashed_ = 0;  // of them in slots_
};

}  // namespace dfx::convert
