// common/checked_fields.hpp: the integer text behind every checked id and
// count, at the edges of u64 / i64 and of its 19-digit fast loop.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>

#include "dfx/convert/common/checked_fields.hpp"

namespace {

// "ok <value>" or "no <reason>", to compare in one CHECK.
std::string digits(std::string_view text, std::uint64_t max, bool allow_minus = false) {
    std::uint64_t out = 0;
    bool negative = false;
    std::string why;
    if (!dfx::convert::detail::parse_checked_digits(text, max, allow_minus, out, negative, why)) return "no " + why;
    return (negative ? "ok -" : "ok ") + std::to_string(out);
}

}  // namespace

TEST_CASE("checked digits: exact up to 2^64-1, refused above, whatever the length") {
    CHECK(digits("0", UINT64_MAX) == "ok 0");
    CHECK(digits("1234567890123456789", UINT64_MAX) == "ok 1234567890123456789");  // 19 digits
    CHECK(digits("18446744073709551615", UINT64_MAX) == "ok 18446744073709551615");  // 2^64-1: 20 digits
    CHECK(digits("18446744073709551616", UINT64_MAX) == "no found an integer out of range (above 18446744073709551615)");
    CHECK(digits("9223372036854775807", INT64_MAX) == "ok 9223372036854775807");
    CHECK(digits("9223372036854775808", INT64_MAX) == "no found an integer out of range (above 9223372036854775807)");
    CHECK(digits("00000000000000000000042", UINT64_MAX) == "ok 42");  // a string's digits may lead with zeros
    CHECK(digits("123456789012345678901234567890", UINT64_MAX) ==
          "no found an integer out of range (above 18446744073709551615)");
    CHECK(digits("7 \n", UINT64_MAX) == "ok 7");  // a raw token's trailing whitespace
}

TEST_CASE("checked digits: fractions, exponents, signs and other text are named") {
    CHECK(digits("1.5", UINT64_MAX) == "no found a non-integer number");
    CHECK(digits("12345678901234567890.5", UINT64_MAX) == "no found a non-integer number");  // past the fast loop
    CHECK(digits("1e3", UINT64_MAX) == "no found a non-integer number");
    CHECK(digits("12a", UINT64_MAX) == "no found a string that is not decimal digits");
    CHECK(digits("", UINT64_MAX) == "no found an empty number");
    CHECK(digits("-5", UINT64_MAX) == "no found a negative integer");
    CHECK(digits("-5", UINT64_MAX, true) == "ok -5");
    CHECK(digits("-0", UINT64_MAX) == "ok -0");
}
