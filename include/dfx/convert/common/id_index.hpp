// id_index: task id -> dense index, for the converters' hot lookups.
//
// Every dependency edge, completion and SPMD check looks a task id up; a
// binary search over hundreds of thousands of ids costs a cache miss per step.
// This is a flat open-addressing table (linear probing, power-of-two size,
// load <= 1/2): one or two probes per lookup and 16 bytes per slot.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace dfx::convert {

class id_index {
public:
    static constexpr std::uint32_t npos = 0xFFFFFFFFu;

    explicit id_index(std::size_t expected = 0) { rehash(expected); }

    // Maps id -> value unless id is mapped already. Returns the value id maps
    // to now, and whether this call inserted it.
    std::pair<std::uint32_t, bool> emplace(std::uint64_t id, std::uint32_t value) {
        if ((size_ + 1) * 2 > slots_.size()) rehash(slots_.size());
        slot& s = probe(id);
        if (s.value != npos) return {s.value, false};
        s.id = id;
        s.value = value;
        ++size_;
        return {value, true};
    }
    // Maps id -> value; a second insert of the same id keeps the first value.
    void insert(std::uint64_t id, std::uint32_t value) { emplace(id, value); }
    [[nodiscard]] std::uint32_t find(std::uint64_t id) const {
        std::size_t i = hash(id) & mask_;
        for (;;) {
            const slot& s = slots_[i];
            if (s.value == npos) return npos;
            if (s.id == id) return s.value;
            i = (i + 1) & mask_;
        }
    }
    [[nodiscard]] std::size_t size() const noexcept { return size_; }

private:
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
        size_ = 0;
        for (const slot& s : old) {
            if (s.value != npos) insert(s.id, s.value);
        }
    }

    std::vector<slot> slots_;
    std::size_t mask_ = 0;
    std::size_t size_ = 0;
};

}  // namespace dfx::convert
