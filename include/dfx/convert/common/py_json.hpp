// py_json: read JSON values with the leniency of the reference Python tools,
// which is part of the input contract ("readers must accept a string or a
// number for u64 fields; the viewer does this with int(v)"). The value is a
// simdjson On-Demand value or a plain_value (plain_json.hpp).
//
//   py_int_u64(v)  int(v) & (2**64-1): a decimal string or a JSON number (a
//                  float is truncated toward zero, a bool is 0/1); negative
//                  values wrap to 64 bits. Anything else: nullopt (the
//                  reference drops such entries).
//   py_int(v)      int(v) as a signed 64-bit value, nullopt when unparseable or
//                  out of range.
//   py_truthy(v)   bool(v).
//
// Python's int() also accepts surrounding whitespace, a sign and single '_'
// between digits in strings; so do these. Integers beyond 64 bits are
// treated as unparseable.
//
// Each reads its value once. A simdjson string must not be read twice: every
// get_string() unescapes into the parser's string buffer, which has room for
// one copy of the document's strings.
#pragma once

#include <simdjson.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dfx::convert {

namespace detail {

struct parsed_int {
    bool negative = false;
    std::uint64_t magnitude = 0;
};

// Python int(str) for base 10, limited to 64-bit magnitudes.
inline std::optional<parsed_int> parse_py_int_text(std::string_view s) {
    auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; };
    while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
    while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
    parsed_int r;
    if (!s.empty() && (s.front() == '+' || s.front() == '-')) {
        r.negative = s.front() == '-';
        s.remove_prefix(1);
    }
    if (s.empty()) return std::nullopt;
    if (s.size() <= 19) {  // the usual spelling: plain digits, too few to overflow
        std::size_t k = 0;
        for (; k < s.size(); ++k) {
            const auto d = static_cast<unsigned>(static_cast<unsigned char>(s[k]) - '0');
            if (d > 9) break;
            r.magnitude = r.magnitude * 10 + d;
        }
        if (k == s.size()) return r;
        r.magnitude = 0;  // an underscore or a bad character: the general way decides
    }
    bool prev_digit = false;
    for (char c : s) {
        if (c == '_') {
            if (!prev_digit) return std::nullopt;  // "_1", "1__2"
            prev_digit = false;
            continue;
        }
        if (c < '0' || c > '9') return std::nullopt;
        const auto d = static_cast<std::uint64_t>(c - '0');
        if (r.magnitude > (UINT64_MAX - d) / 10) return std::nullopt;
        r.magnitude = r.magnitude * 10 + d;
        prev_digit = true;
    }
    if (!prev_digit) return std::nullopt;  // trailing '_'
    return r;
}

// A JSON number token: an integer keeps its exact value, anything with a
// fraction or exponent goes through double and is truncated like int(float).
inline std::optional<parsed_int> parse_number_token(std::string_view tok) {
    while (!tok.empty() && (tok.back() == ' ' || tok.back() == '\n' || tok.back() == '\r' || tok.back() == '\t'))
        tok.remove_suffix(1);
    if (tok.find_first_of(".eE") == std::string_view::npos) return parse_py_int_text(tok);
    double d = 0;
    const auto res = std::from_chars(tok.data(), tok.data() + tok.size(), d);
    if (res.ec != std::errc{} || !std::isfinite(d)) return std::nullopt;
    d = std::trunc(d);
    parsed_int r;
    r.negative = d < 0;
    const double mag = std::fabs(d);
    if (mag >= 18446744073709551616.0) return std::nullopt;
    r.magnitude = static_cast<std::uint64_t>(mag);
    return r;
}

template <class Value>
std::optional<parsed_int> parse_py_int(Value& v) {
    switch (v.type()) {
    case simdjson::ondemand::json_type::number: return parse_number_token(v.raw_json_token());
    case simdjson::ondemand::json_type::string: return parse_py_int_text(v.get_string());
    case simdjson::ondemand::json_type::boolean: return parsed_int{false, v.get_bool() ? 1u : 0u};
    default: return std::nullopt;
    }
}

inline std::optional<std::int64_t> to_int64(const std::optional<parsed_int>& r) {
    if (!r) return std::nullopt;
    if (r->negative) {
        if (r->magnitude > std::uint64_t{INT64_MAX} + 1) return std::nullopt;
        return static_cast<std::int64_t>(std::uint64_t{0} - r->magnitude);
    }
    if (r->magnitude > std::uint64_t{INT64_MAX}) return std::nullopt;
    return static_cast<std::int64_t>(r->magnitude);
}

}  // namespace detail

template <class Value>
std::optional<std::uint64_t> py_int_u64(Value&& v) {
    const auto r = detail::parse_py_int(v);
    if (!r) return std::nullopt;
    return r->negative ? std::uint64_t{0} - r->magnitude : r->magnitude;
}

// int() of a string's text, as a signed 64-bit value.
inline std::optional<std::int64_t> py_int_of_text(std::string_view s) { return detail::to_int64(detail::parse_py_int_text(s)); }

template <class Value>
std::optional<std::int64_t> py_int(Value&& v) {
    return detail::to_int64(detail::parse_py_int(v));
}

template <class Value>
bool py_truthy(Value&& v) {
    using simdjson::ondemand::json_type;
    switch (v.type()) {
    case json_type::null: return false;
    case json_type::boolean: return v.get_bool();
    case json_type::number: {
        // Through the token, not get_double(): a huge integer is still truthy.
        std::string_view tok = v.raw_json_token();
        double d = 1;
        const auto res = std::from_chars(tok.data(), tok.data() + tok.size(), d);
        return res.ec == std::errc::result_out_of_range || d != 0.0;
    }
    case json_type::string: return !std::string_view(v.get_string()).empty();
    case json_type::array: return static_cast<std::size_t>(v.count_elements()) > 0;
    case json_type::object: return static_cast<std::size_t>(v.count_fields()) > 0;
    }
    return false;
}

// The string value, or nullopt for any other JSON type.
template <class Value>
std::optional<std::string> string_or_none(Value&& v) {
    if (v.type() != simdjson::ondemand::json_type::string) return std::nullopt;
    return std::string(std::string_view(v.get_string()));
}

// A list whose every element int() accepts; nullopt otherwise.
template <class Value>
std::optional<std::vector<std::int64_t>> py_int_list(Value&& v) {
    if (v.type() != simdjson::ondemand::json_type::array) return std::nullopt;
    std::vector<std::int64_t> out;
    for (auto el : v.get_array()) {
        auto e = el.value();
        const auto i = py_int(e);
        if (!i) return std::nullopt;
        out.push_back(*i);
    }
    return out;
}

}  // namespace dfx::convert
