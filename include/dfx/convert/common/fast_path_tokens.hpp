// fast_path_tokens: the tokens the converters' fast-path scanners take
// (integer_rows_scanner.hpp, flat_objects_scanner.hpp), written once:
//
//   const char* last = fast_path::closing_bracket(text);   // the final ']', or nullptr
//   p = fast_path::skip_space(p);                          // JSON whitespace
//   std::int64_t v;
//   if (const char* after = fast_path::integer(p, v)) p = after;   // -?(0|[1-9][0-9]{0,17})
//   else /* not in the subset: the caller says "no" */;
//
// A fast path accepts a strict subset of JSON and says "no" to the rest,
// which the general path (simdjson) then reads or names as an error. These
// helpers say "no" with nullptr. They read without bounds checks: a text in
// a fast path's subset ends with its outer array's ']' (closing_bracket()
// finds it first), which stops every loop over whitespace or digits.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace dfx::convert::fast_path {

// JSON's four whitespace bytes.
constexpr bool is_space(char c) noexcept { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

inline const char* skip_space(const char* p) noexcept {
    while (is_space(*p)) ++p;
    return p;
}

// The text's last byte before trailing whitespace if it is a ']', else
// nullptr (an empty text too).
inline const char* closing_bracket(std::string_view text) noexcept {
    while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
    return !text.empty() && text.back() == ']' ? text.data() + text.size() - 1 : nullptr;
}

// An integer -?(0|[1-9][0-9]{0,17}) at p (below 10^18 in magnitude, so it
// fits an int64_t), not followed by a fraction or an exponent: its value in
// `out` and the byte after it. Anything else (no digit, a leading zero, 19
// digits or more, a '.', 'e' or 'E' after the digits) is nullptr.
// Read = false: the same token held to the subset without a minus sign (a
// negative one is nullptr) and not read (`out` is 0), for a column the
// caller checks but does not use.
template <bool Read = true>
inline const char* integer(const char* p, std::int64_t& out) noexcept {
    const bool negative = *p == '-';
    if (!Read && negative) return nullptr;
    p += negative ? 1 : 0;  // a '-' is not the final ']': p stays in the text
    const char* const first = p;
    std::uint64_t v = 0;  // (wraps past 19 digits: refused below)
    if constexpr (Read) {
        while (static_cast<unsigned char>(*p - '0') < 10) v = v * 10 + static_cast<std::uint64_t>(*p++ - '0');
    } else {
        while (static_cast<unsigned char>(*p - '0') < 10) ++p;
    }
    const auto digits = static_cast<std::size_t>(p - first);
    if (digits == 0 || digits > 18 || (digits > 1 && *first == '0')) return nullptr;
    if (*p == '.' || *p == 'e' || *p == 'E') return nullptr;
    out = negative ? -static_cast<std::int64_t>(v) : static_cast<std::int64_t>(v);
    return p;
}

}  // namespace dfx::convert::fast_path
