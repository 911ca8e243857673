// A set of 64-bit keys (buffer addresses, task and tensor ids) that numbers
// them 0, 1, 2, ... in first-insertion order: the dependency replay's only
// associative container.
//
//   dfx::detail::u64_index seen;
//   auto [index, fresh] = seen.insert(task_id);   // fresh: not seen before
//   if (seen.find(addr) != dfx::detail::u64_index::npos) ...
//
// Why not std::unordered_set / std::unordered_map: the replay is compiled in
// a runtime's one host translation unit (docs/embedding.md, section 5), and
// each standard hash container instantiates its node, bucket and rehash code
// per key/value type there. This is one plain class (open addressing, linear
// probing, at most half full), compiled once, and it never iterates, so
// nothing written depends on its layout.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace dfx::detail {

class u64_index {
public:
    static constexpr std::uint32_t npos = 0xffff'ffffu;

    // The key's index, and whether the key was new.
    std::pair<std::uint32_t, bool> insert(std::uint64_t key) {
        if (2 * (keys_.size() + 1) > slots_.size()) grow();
        std::size_t s = slot_of(key);
        for (; slots_[s] != 0; s = (s + 1) & (slots_.size() - 1))
            if (keys_[slots_[s] - 1] == key) return {slots_[s] - 1, false};
        keys_.push_back(key);
        slots_[s] = static_cast<std::uint32_t>(keys_.size());
        return {slots_[s] - 1, true};
    }

    // The key's index, or npos.
    std::uint32_t find(std::uint64_t key) const noexcept {
        if (keys_.empty()) return npos;
        for (std::size_t s = slot_of(key); slots_[s] != 0; s = (s + 1) & (slots_.size() - 1))
            if (keys_[slots_[s] - 1] == key) return slots_[s] - 1;
        return npos;
    }

    std::size_t size() const noexcept { return keys_.size(); }

    // Empties the set (the replay clears one per submit). Costs what the
    // keys cost, never the table: a table much larger than its keys (one
    // submit with thousands of deps, then small ones) is dropped, not zeroed.
    void clear() noexcept {
        if (keys_.empty()) return;
        if (slots_.size() > 4 * keys_.size() + 64) {
            slots_.clear();
            shift_ = 64;
        } else {
            for (std::uint32_t& s : slots_) s = 0;  // (no <algorithm>: a host TU parses less)
        }
        keys_.clear();
    }

private:
    // Fibonacci hashing: addresses and ids differ mostly in their middle
    // bits; the multiply carries them into the top bits kept.
    std::size_t slot_of(std::uint64_t key) const noexcept {
        return static_cast<std::size_t>((key * 0x9e37'79b9'7f4a'7c15ull) >> shift_);
    }

    void grow() {
        const std::size_t size = slots_.empty() ? 16 : 2 * slots_.size();
        shift_ = 64;
        for (std::size_t n = size; n > 1; n /= 2) --shift_;
        slots_.assign(size, 0u);
        for (std::size_t i = 0; i < keys_.size(); ++i) {
            std::size_t s = slot_of(keys_[i]);
            while (slots_[s] != 0) s = (s + 1) & (size - 1);
            slots_[s] = static_cast<std::uint32_t>(i + 1);
        }
    }

    std::vector<std::uint64_t> keys_;   // by index
    std::vector<std::uint32_t> slots_;  // index + 1 of the key there; 0: empty; a power of two long
    int shift_ = 64;
};

}  // namespace dfx::detail
