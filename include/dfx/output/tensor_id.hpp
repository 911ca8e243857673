// The id deps.json gives a tensor (spec dep-gen.md §1.8 step 5): FNV-1a 64
// over the buffer address as 8 little-endian bytes followed by the version,
// cast to u32, as 4 little-endian bytes. The bytes are taken arithmetically,
// not from memory, so the id is the same on any host; it depends on nothing
// but (addr, version), which keeps deps.json files diffable across runs and
// our ids equal to the reference's.
#pragma once

#include <cstdint>

namespace dfx {

inline constexpr std::uint64_t fnv1a64_offset_basis = 0xcbf29ce484222325ULL;
inline constexpr std::uint64_t fnv1a64_prime = 0x100000001b3ULL;

constexpr std::uint64_t tensor_id_of(std::uint64_t buffer_addr, std::int32_t version) noexcept {
    std::uint64_t hash = fnv1a64_offset_basis;
    const auto mix = [&hash](std::uint64_t value, int bytes) {
        for (int i = 0; i < bytes; ++i) {
            hash ^= (value >> (8 * i)) & 0xFFu;
            hash *= fnv1a64_prime;
        }
    };
    mix(buffer_addr, 8);
    mix(static_cast<std::uint32_t>(version), 4);
    return hash;
}

}  // namespace dfx
