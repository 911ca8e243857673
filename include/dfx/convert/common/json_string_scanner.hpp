// json_string_scanner: the bytes inside a JSON string. One concern: where the
// plain run of a string's contents ends, and whether an escape is valid.
// (UTF-8 is utf8_scanner.hpp's concern; the caller holds the state.)
//
//   i = json_string_scanner::skip_plain(p, i);   // p[i] is '"', '\\' or a control byte
//   if (p[i] == '\\' && !json_string_scanner::simple_escape(p[i + 1])) ...   // \u is checked with is_hex
//
// skip_plain reads 16 bytes at a time: the caller's buffer must hold a
// control byte (a '\0' sentinel) at or before its end, and 15 readable bytes
// of padding after it.
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace dfx::convert::json_string_scanner {

constexpr bool is_special(unsigned char c) { return c == '"' || c == '\\' || c < 0x20; }

constexpr bool is_hex(unsigned char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// The byte after a backslash, other than 'u': one of " \ / b f n r t.
constexpr bool simple_escape(unsigned char c) {
    return c == '"' || c == '\\' || c == '/' || c == 'b' || c == 'f' || c == 'n' || c == 'r' || c == 't';
}

// Bit k set when p[k] (k < 16) is '"', '\\' or below 0x20.
inline std::uint32_t special_bytes(const char* p) {
#if defined(__SSE2__)
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i quote = _mm_cmpeq_epi8(x, _mm_set1_epi8('"'));
    const __m128i backslash = _mm_cmpeq_epi8(x, _mm_set1_epi8('\\'));
    const __m128i control = _mm_cmpeq_epi8(_mm_min_epu8(x, _mm_set1_epi8(0x1f)), x);
    return static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, backslash), control)));
#else
    std::uint32_t m = 0;
    for (int k = 0; k < 16; ++k) m |= static_cast<std::uint32_t>(is_special(static_cast<unsigned char>(p[k]))) << k;
    return m;
#endif
}

// Most bytes of a JSON file are string contents: the index of the first
// '"', '\\' or control byte at or after p[i], found 16 bytes at a time.
inline std::size_t skip_plain(const char* p, std::size_t i) {
    for (;;) {
        const std::uint32_t special = special_bytes(p + i);
        if (special != 0) return i + static_cast<std::size_t>(__builtin_ctz(special));
        i += 16;
    }
}

}  // namespace dfx::convert::json_string_scanner
