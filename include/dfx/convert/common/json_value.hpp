// json_value: exact reads of JSON scalars from a simdjson On-Demand value.
//
// The artefacts carry 64-bit task ids and cycle counts that exceed 2^53, so
// integers are read as integers (never through a double), and a value that
// does not fit is reported, not wrapped. Each reader returns false and sets a
// short reason ("expected an integer, found a string") that the caller
// prefixes with the file and the element it was reading.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace dfx::convert {

// Wide enough for every JSON integer simdjson accepts (int64 and uint64)
// and for differences of two of them.
__extension__ typedef __int128 int128;
__extension__ typedef unsigned __int128 uint128;

// Decimal text of a 128-bit integer (fmt has no portable formatter for it).
inline std::string to_decimal(int128 v) {
    if (v == 0) return "0";
    const bool neg = v < 0;
    uint128 u = neg ? static_cast<uint128>(-(v + 1)) + 1 : static_cast<uint128>(v);
    char tmp[48];
    char* p = tmp + sizeof tmp;
    while (u != 0) {
        *--p = static_cast<char>('0' + static_cast<int>(u % 10));
        u /= 10;
    }
    if (neg) *--p = '-';
    return std::string(p, static_cast<std::size_t>(tmp + sizeof tmp - p));
}

inline std::string_view json_type_name(simdjson::ondemand::json_type t) noexcept {
    using simdjson::ondemand::json_type;
    switch (t) {
        case json_type::array: return "an array";
        case json_type::object: return "an object";
        case json_type::number: return "a number";
        case json_type::string: return "a string";
        case json_type::boolean: return "a boolean";
        case json_type::null: return "null";
    }
    return "an unknown value";
}

template <class Value>
bool read_integer(Value& v, int128& out, std::string& why) {
    using namespace simdjson::ondemand;
    // Fast path: almost every integer in the artefacts is a non-negative u64.
    // A failed get_uint64 leaves the value unread, so the checks below still work.
    if (std::uint64_t u = 0; v.get_uint64().get(u) == simdjson::SUCCESS) {
        out = u;
        return true;
    }
    json_type t{};
    if (v.type().get(t) != simdjson::SUCCESS) {
        why = "invalid JSON value";
        return false;
    }
    if (t != json_type::number) {
        why = fmt::format("expected an integer, found {}", json_type_name(t));
        return false;
    }
    number_type nt{};
    if (v.get_number_type().get(nt) != simdjson::SUCCESS) {
        why = "invalid number";
        return false;
    }
    if (nt == number_type::signed_integer) {
        std::int64_t x = 0;
        if (v.get_int64().get(x) != simdjson::SUCCESS) {
            why = "integer out of range (below -2^63)";
            return false;
        }
        out = x;
        return true;
    }
    if (nt == number_type::unsigned_integer) {
        std::uint64_t x = 0;
        if (v.get_uint64().get(x) != simdjson::SUCCESS) {
            why = "integer out of range (above 2^64-1)";
            return false;
        }
        out = x;
        return true;
    }
    why = "expected an integer, found a non-integer number";
    return false;
}

template <class Value>
bool read_string(Value& v, std::string& out, std::string& why) {
    using namespace simdjson::ondemand;
    json_type t{};
    if (v.type().get(t) != simdjson::SUCCESS) {
        why = "invalid JSON value";
        return false;
    }
    if (t != json_type::string) {
        why = fmt::format("expected a string, found {}", json_type_name(t));
        return false;
    }
    std::string_view s;
    if (v.get_string().get(s) != simdjson::SUCCESS) {
        why = "invalid string";
        return false;
    }
    out.assign(s);
    return true;
}

// True when the value is JSON null (and consumes nothing otherwise).
template <class Value>
bool is_null(Value& v) {
    simdjson::ondemand::json_type t{};
    return v.type().get(t) == simdjson::SUCCESS && t == simdjson::ondemand::json_type::null;
}

}  // namespace dfx::convert
