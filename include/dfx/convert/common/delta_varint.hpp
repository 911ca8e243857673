// delta_varint: the byte code of the converters' compact lists
// (swimlane/sched_phases.hpp, and delta_coded_list.hpp's codecs in
// swimlane/loop_phase_list.hpp and swimlane/orch_phase_list.hpp): a value as the
// wrapped 64-bit difference from the one before it, zigzagged so that small
// steps either way take small codes, then written 7 bits a byte, low bits
// first (a LEB128 varint, as protobuf's).
//
//   std::uint8_t buf[varint_max_bytes];
//   std::uint8_t* w = buf;
//   put_varint(w, zigzag(now - before));            // 1 byte for a step in -64..63
//   const std::uint8_t* r = buf;
//   const std::uint64_t again = before + unzigzag(get_varint(r));   // == now
//
// Any two values code and decode exactly: a difference is taken and added
// back modulo 2^64, so values out of order or far apart only take more bytes.
#pragma once

#include <cstddef>
#include <cstdint>

namespace dfx::convert {

// The longest varint: 64 bits, 7 a byte.
inline constexpr std::size_t varint_max_bytes = 10;

// A wrapped difference as a signed one, small magnitudes to small codes:
// 0, -1, 1, -2, ... -> 0, 1, 2, 3, ...
constexpr std::uint64_t zigzag(std::uint64_t difference) noexcept {
    return (difference << 1) ^ (std::uint64_t{0} - (difference >> 63));
}
constexpr std::uint64_t unzigzag(std::uint64_t code) noexcept { return (code >> 1) ^ (std::uint64_t{0} - (code & 1)); }
static_assert(zigzag(0) == 0 && zigzag(~std::uint64_t{0}) == 1 && zigzag(1) == 2 && unzigzag(zigzag(~std::uint64_t{0})) == ~std::uint64_t{0});

// Writes `v` at `p` (room for varint_max_bytes) and moves `p` past it.
inline void put_varint(std::uint8_t*& p, std::uint64_t v) noexcept {
    while (v >= 0x80) {
        *p++ = static_cast<std::uint8_t>(v | 0x80);
        v >>= 7;
    }
    *p++ = static_cast<std::uint8_t>(v);
}

// Reads the varint at `p` and moves `p` past it. The bytes are trusted:
// they were written by put_varint, never read from a file.
inline std::uint64_t get_varint(const std::uint8_t*& p) noexcept {
    std::uint64_t v = *p++;
    if (v < 0x80) return v;  // most steps are small: one byte, one branch
    v &= 0x7Fu;
    for (int shift = 7;; shift += 7) {
        const std::uint8_t b = *p++;
        v |= std::uint64_t{b & 0x7Fu} << shift;
        if (b < 0x80) return v;
    }
}

}  // namespace dfx::convert
