// integer_rows_scanner: the fast path for a JSON array of short arrays of
// integers, the shape of the records file's task rows:
//
//   std::vector<integer_row<6>> rows;
//   if (!scan_integer_rows("[[3, 17, 5, 1000, 1200, 40], [4, 18, 6, 1001, 1300, 0]]", rows)) {
//       // not in the subset below: read it the general way, which gives the
//       // precise error if there is one
//   }
//
// One concern: it accepts a strict subset of JSON and says "no" to
// everything else, never an error of its own. The subset: the outer array,
// each element an array of at most Max integers written
// -?(0|[1-9][0-9]{0,17}) (below 10^18 in magnitude: an int64 without an
// overflow check), separated by commas, with JSON whitespace anywhere
// between tokens. Whatever it accepts is valid JSON whose values it returns
// exactly, so a caller can take its rows or, on "no", read the same text
// with simdjson instead and get the same rows or the error. Cycle counts in
// the artefacts are about 10^12-10^15, so real files take the fast path.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace dfx::convert {

template <std::size_t Max>
struct integer_row {
    std::array<std::int64_t, Max> col{};
    std::size_t n = 0;  // columns present (may be fewer than Max)
};

// Appends every row of `text` to `rows` and returns true, or returns false
// (rows then holds a partial result the caller discards) when the text is
// not in the subset.
//
// One pass with the cursor in a register. A text in the subset ends with the
// outer array's ']', so it is checked first: every loop over whitespace or
// digits then stops at that byte at the latest, and only a ']' that is taken
// needs a look at the end. (A cursor object with a bounds check per byte
// was 160 of the 730 M instructions of `dfx deps`' sidecar thread at 5x10^4
// tasks; this, 125 M. Eight digits at a time (SWAR) was more: the numbers
// are short.)
//
// Keep < Max: only the first Keep columns' values are read; the others are
// held to the subset without a minus sign (a negative one is "no") and read
// as 0, for a reader that checks columns it does not use (the sidecar's
// times: 125 -> 114 M).
template <std::size_t Max, std::size_t Keep = Max>
bool scan_integer_rows(std::string_view text, std::vector<integer_row<Max>>& rows) {
    static_assert(Keep <= Max);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\n' || text.back() == '\r' || text.back() == '\t'))
        text.remove_suffix(1);
    if (text.empty() || text.back() != ']') return false;
    const char* p = text.data();
    const char* const last = p + text.size() - 1;  // the final ']'
    auto skip_space = [&p] {
        while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t') ++p;
    };
    skip_space();
    if (*p != '[') return false;
    ++p;
    skip_space();
    if (*p == ']') return p == last;  // [] and nothing after it
    for (;;) {
        if (*p != '[') return false;
        ++p;
        integer_row<Max>& row = rows.emplace_back();
        skip_space();
        if (*p != ']') {
            for (;;) {
                // -?(0|[1-9][0-9]{0,17}); anything else (a fraction, an exponent,
                // a leading zero, 19 digits or more) is "no".
                if (row.n == Max) return false;
                const bool negative = *p == '-';
                p += negative ? 1 : 0;  // a '-' is not the final ']': p stays in the text
                const char* const first = p;
                std::uint64_t v = 0;  // (wraps past 19 digits: refused below)
                if (row.n < Keep) {
                    while (static_cast<unsigned char>(*p - '0') < 10) v = v * 10 + static_cast<std::uint64_t>(*p++ - '0');
                } else {
                    if (negative) return false;
                    while (static_cast<unsigned char>(*p - '0') < 10) ++p;
                }
                const auto digits = static_cast<std::size_t>(p - first);
                if (digits == 0 || digits > 18 || (digits > 1 && *first == '0')) return false;
                if (*p == '.' || *p == 'e' || *p == 'E') return false;
                row.col[row.n++] = negative ? -static_cast<std::int64_t>(v) : static_cast<std::int64_t>(v);
                skip_space();
                if (*p == ']') break;
                if (*p != ',') return false;
                ++p;
                skip_space();
            }
        }
        if (p == last) return false;  // that ']' closed the row: the outer array is not closed
        ++p;
        skip_space();
        if (*p == ']') return p == last;  // the outer array's end, and nothing after it
        if (*p != ',') return false;
        ++p;
        skip_space();
    }
}

}  // namespace dfx::convert
