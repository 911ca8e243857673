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

#include "dfx/convert/common/fast_path_tokens.hpp"

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
    using fast_path::skip_space;
    const char* const last = fast_path::closing_bracket(text);
    if (last == nullptr) return false;
    const char* p = skip_space(text.data());
    if (*p != '[') return false;
    p = skip_space(p + 1);
    if (*p == ']') return p == last;  // [] and nothing after it
    for (;;) {
        if (*p != '[') return false;
        integer_row<Max>& row = rows.emplace_back();
        p = skip_space(p + 1);
        if (*p != ']') {
            for (;;) {
                if (row.n == Max) return false;
                std::int64_t v = 0;
                p = row.n < Keep ? fast_path::integer<true>(p, v) : fast_path::integer<false>(p, v);
                if (p == nullptr) return false;
                row.col[row.n++] = v;
                p = skip_space(p);
                if (*p == ']') break;
                if (*p != ',') return false;
                p = skip_space(p + 1);
            }
        }
        if (p == last) return false;  // that ']' closed the row: the outer array is not closed
        p = skip_space(p + 1);
        if (*p == ']') return p == last;  // the outer array's end, and nothing after it
        if (*p != ',') return false;
        p = skip_space(p + 1);
    }
}

}  // namespace dfx::convert
