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

namespace detail {

class integer_rows_cursor {
public:
    explicit integer_rows_cursor(std::string_view text) : p_(text.data()), end_(text.data() + text.size()) {}

    void skip_space() {
        while (p_ != end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
    }
    // Takes c (after any whitespace) if it is next.
    bool take(char c) {
        skip_space();
        if (p_ == end_ || *p_ != c) return false;
        ++p_;
        return true;
    }
    bool at(char c) {
        skip_space();
        return p_ != end_ && *p_ == c;
    }
    bool at_end() {
        skip_space();
        return p_ == end_;
    }

    // -?(0|[1-9][0-9]{0,17}); anything else (a fraction, an exponent, a
    // leading zero, 19 digits or more) is "no".
    bool integer(std::int64_t& out) {
        skip_space();
        const bool negative = p_ != end_ && *p_ == '-';
        if (negative) ++p_;
        const char* first = p_;
        std::uint64_t v = 0;
        while (p_ != end_ && *p_ >= '0' && *p_ <= '9') {
            v = v * 10 + static_cast<std::uint64_t>(*p_ - '0');
            ++p_;
        }
        const auto digits = static_cast<std::size_t>(p_ - first);
        if (digits == 0 || digits > 18 || (digits > 1 && *first == '0')) return false;
        if (p_ != end_ && (*p_ == '.' || *p_ == 'e' || *p_ == 'E')) return false;
        out = negative ? -static_cast<std::int64_t>(v) : static_cast<std::int64_t>(v);
        return true;
    }

private:
    const char* p_;
    const char* end_;
};

}  // namespace detail

// Appends every row of `text` to `rows` and returns true, or returns false
// (rows then holds a partial result the caller discards) when the text is
// not in the subset.
template <std::size_t Max>
bool scan_integer_rows(std::string_view text, std::vector<integer_row<Max>>& rows) {
    detail::integer_rows_cursor in(text);
    if (!in.take('[')) return false;
    if (in.take(']')) return in.at_end();
    do {
        if (!in.take('[')) return false;
        integer_row<Max>& row = rows.emplace_back();
        if (!in.take(']')) {
            do {
                if (row.n == Max || !in.integer(row.col[row.n])) return false;
                ++row.n;
            } while (in.take(','));
            if (!in.take(']')) return false;
        }
    } while (in.take(','));
    return in.take(']') && in.at_end();
}

}  // namespace dfx::convert
