// checked_fields: strict reads of the id and cycle-count fields the readers use.
//
//     std::string why;
//     std::uint64_t id = 0;
//     if (!read_task_id(v, id, why)) fail("edges[3].pred", why);   // "expected a task id ..., found a boolean"
//
// The reference tools read ids with Python's int(v), which turns `true`, `1.5`
// and `-1` into ids of tasks that never ran (a phantom node in the graph), and
// take negative cycle counts at face value (a slice of minus five cycles
// becomes a huge one once the time base is subtracted). The readers check
// instead of trusting: a task id is a non-negative integer below 2^64, as a
// JSON integer or as a string of decimal digits (deps.json writes them as
// strings, so they survive JSON readers that go through double); a cycle
// count is a JSON integer in [0, 2^63-1]. The `--lenient` readers keep the
// reference's int() (py_json.hpp).
//
// Value is a simdjson On-Demand value or a plain_value (plain_json.hpp): only
// type(), raw_json_token() and get_string() are used, each once.
#pragma once

#include <simdjson.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

#include "dfx/convert/common/json_value.hpp"

namespace dfx::convert {

namespace detail {

// Parses an integer JSON number token or a string's digits: false with a
// reason for a fraction, an exponent, a sign where none is allowed or a
// value beyond `max`.
inline bool parse_checked_digits(std::string_view text, std::uint64_t max, bool allow_minus, std::uint64_t& out,
                                 bool& negative, std::string& why) {
    while (!text.empty() && (text.back() == ' ' || text.back() == '\n' || text.back() == '\r' || text.back() == '\t'))
        text.remove_suffix(1);
    negative = !text.empty() && text.front() == '-';
    if (negative) text.remove_prefix(1);
    if (text.empty()) {
        why = "found an empty number";
        return false;
    }
    auto not_a_digit = [&](char c) {
        why = c == '.' || c == 'e' || c == 'E' ? "found a non-integer number" : "found a string that is not decimal digits";
        return false;
    };
    // 19 digits fit a u64 (every id and count the artefacts hold): no
    // 128-bit arithmetic until a longer text needs it.
    std::size_t i = 0;
    std::uint64_t head = 0;
    for (const std::size_t fast = std::min<std::size_t>(text.size(), 19); i < fast; ++i) {
        const char c = text[i];
        if (c < '0' || c > '9') return not_a_digit(c);
        head = head * 10 + static_cast<unsigned>(c - '0');
    }
    uint128 x = head;
    for (; i < text.size(); ++i) {
        const char c = text[i];
        if (c < '0' || c > '9') return not_a_digit(c);
        x = x * 10 + static_cast<unsigned>(c - '0');
        if (x > uint128{UINT64_MAX} + 1) break;  // keeps x bounded; reported below
    }
    if (negative && x != 0 && !allow_minus) {
        why = "found a negative integer";
        return false;
    }
    if (x > max) {
        why = "found an integer out of range (above " + to_decimal(static_cast<int128>(max)) + ")";
        return false;
    }
    out = static_cast<std::uint64_t>(x);
    return true;
}

}  // namespace detail

// A task id: a non-negative integer below 2^64, or a string of its decimal digits.
template <class Value>
bool read_task_id(Value& v, std::uint64_t& out, std::string& why) {
    using simdjson::ondemand::json_type;
    const json_type t = v.type();
    bool negative = false;
    std::string reason;
    bool ok = false;
    if (t == json_type::number) {
        ok = detail::parse_checked_digits(v.raw_json_token(), UINT64_MAX, false, out, negative, reason);
    } else if (t == json_type::string) {
        ok = detail::parse_checked_digits(std::string_view(v.get_string()), UINT64_MAX, false, out, negative, reason);
    } else {
        reason = std::string("found ") + std::string(json_type_name(t));
    }
    if (!ok) why = "expected a task id (a non-negative integer or a string of decimal digits), " + reason;
    return ok;
}

// A cycle count or a nanosecond time: an integer in [0, 2^63-1].
template <class Value>
bool read_cycle_count(Value& v, std::uint64_t& out, std::string& why) {
    using simdjson::ondemand::json_type;
    const json_type t = v.type();
    bool negative = false;
    std::string reason;
    bool ok = false;
    if (t == json_type::number) {
        ok = detail::parse_checked_digits(v.raw_json_token(), INT64_MAX, false, out, negative, reason);
    } else {
        reason = std::string("found ") + std::string(json_type_name(t));
    }
    if (!ok) why = "expected a non-negative integer cycle count, " + reason;
    return ok;
}

}  // namespace dfx::convert
