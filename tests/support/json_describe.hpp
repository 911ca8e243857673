// json_describe: render a JSON value through the On-Demand-style interface
// the converters' handlers use (type(), get_object(), get_array(), ...), with
// what py_json makes of every scalar. Run on a simdjson On-Demand value and on
// a plain_value of the same text, the two renderings must be equal: the
// handlers are templates over the two.
#pragma once

#include <simdjson.h>

#include <optional>
#include <string>
#include <string_view>

#include "dfx/convert/common/py_json.hpp"

namespace dfx::test {

template <class T>
std::string show(const std::optional<T>& v) {
    return v ? std::to_string(*v) : std::string("none");
}

// How describe() reads each scalar: one accessor per read, since a simdjson
// string must not be read twice (py_json.hpp).
enum class read_with { text, py_int, py_int_u64, py_truthy, string_or_none };
inline constexpr read_with all_reads[] = {read_with::text, read_with::py_int, read_with::py_int_u64, read_with::py_truthy,
                                          read_with::string_or_none};

template <class Value>
std::string describe(Value&& v, read_with how) {
    using simdjson::ondemand::json_type;
    namespace cv = dfx::convert;
    const auto type = static_cast<json_type>(v.type());
    if (type == json_type::object) {
        std::string out = "{";
        for (auto member : v.get_object()) {
            const std::string_view key = member.unescaped_key();
            auto value = member.value();
            out += "<" + std::string(key) + ">:" + describe(value, how) + ",";
        }
        return out + "}";
    }
    if (type == json_type::array) {
        std::string out = "[";
        for (auto element : v.get_array()) {
            auto value = element.value();
            out += describe(value, how) + ",";
        }
        return out + "]";
    }
    switch (how) {
    case read_with::py_int: return "int=" + show(cv::py_int(v));
    case read_with::py_int_u64: return "u64=" + show(cv::py_int_u64(v));
    case read_with::py_truthy: return cv::py_truthy(v) ? "truthy" : "falsy";
    case read_with::string_or_none: return "str=" + cv::string_or_none(v).value_or("none");
    case read_with::text: break;
    }
    switch (type) {
    case json_type::string: return "s<" + std::string(std::string_view(v.get_string())) + ">";
    case json_type::number: {
        std::string_view tok = v.raw_json_token();
        while (!tok.empty() && (tok.back() == ' ' || tok.back() == '\n' || tok.back() == '\r' || tok.back() == '\t'))
            tok.remove_suffix(1);
        return "n<" + std::string(tok) + ">";
    }
    case json_type::boolean: return v.get_bool() ? "true" : "false";
    default: return "null";
    }
}

}  // namespace dfx::test
