// name_map_file: the one reader of a name map (`name_map_<case>.json`,
// chip-swimlane.md §3; dep-gen.md §3.1 --func-names), for every command that
// reads one. It reads and checks the file; what the names mean is each
// consumer's interpretation, kept beside it:
//   - deps/name_map.hpp (`dfx deps`, `critical-path`, `pmu`): the deps
//     viewer's, where a missing or empty `callable_id_to_name` makes the whole
//     object a flat {id: name} map and a name is str() of a truthy value;
//   - swimlane/name_map.hpp (`dfx swimlane`): the swimlane converter's, only
//     `callable_id_to_name` and `orchestrator_name`.
//
//     const name_map_file f = read_name_map_file(path, name_map_checks::checked);
//     for (auto [key, value] : f.top()) ...
//
// The file is validated whole (a name map is a few hundred bytes: a DOM
// parse holds all of it to the grammar and to UTF-8). Checked, and the same
// for every command: the top level is an object; no key repeats, at the top
// level or in `callable_id_to_name` (one of the values would be ignored);
// `callable_id_to_name` is an object or null and every name in it a string;
// `orchestrator_name` a string or null. Each failure is one input_error
// "<file>: <member>: <what>". name_map_checks::grammar keeps only the file
// and grammar checks, for the viewer's lenient reading, which takes what the
// reference takes.
#pragma once

#include <simdjson.h>

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "dfx/convert/common/input_error.hpp"
#include "dfx/convert/common/input_file.hpp"

namespace dfx::convert {

enum class name_map_checks : unsigned char {
    checked,  // the checks above (the default of every command)
    grammar,  // a readable file holding a JSON object, nothing more
};

// The parsed file: its top-level object, valid while this lives.
class name_map_file {
public:
    [[nodiscard]] simdjson::dom::object top() const { return top_; }
    // `callable_id_to_name` when it is an object (the last one if repeated, as a dict would keep).
    [[nodiscard]] std::optional<simdjson::dom::object> callable_id_to_name() const {
        std::optional<simdjson::dom::object> found;
        for (auto [key, v] : top_) {
            simdjson::dom::object inner;
            if (key == "callable_id_to_name") found = v.get_object().get(inner) == simdjson::SUCCESS ? std::optional(inner) : std::nullopt;
        }
        return found;
    }

private:
    friend name_map_file read_name_map_file(const std::string& path, name_map_checks checks);
    std::unique_ptr<simdjson::dom::parser> parser_ = std::make_unique<simdjson::dom::parser>();  // owns top_'s tape
    simdjson::dom::object top_;
};

namespace detail {

inline std::string_view dom_type_name(simdjson::dom::element_type t) {
    using simdjson::dom::element_type;
    switch (t) {
    case element_type::ARRAY: return "an array";
    case element_type::OBJECT: return "an object";
    case element_type::INT64:
    case element_type::UINT64:
    case element_type::DOUBLE: return "a number";
    case element_type::STRING: return "a string";
    case element_type::BOOL: return "a boolean";
    case element_type::NULL_VALUE: return "null";
    }
    return "an unknown value";
}

inline void check_name_map(const std::string& path, simdjson::dom::object top) {
    using simdjson::dom::element_type;
    auto fail = [&](std::string_view what) { throw input_error(fmt::format("{}: {}", path, what)); };
    std::set<std::string, std::less<>> keys;
    for (auto [key, v] : top) {
        if (!keys.emplace(key).second) fail(fmt::format("duplicate top-level key \"{}\"", printable_json_key(key)));
        if (key == "orchestrator_name" && v.type() != element_type::STRING && v.type() != element_type::NULL_VALUE)
            fail(fmt::format("orchestrator_name: expected a string, found {}", dom_type_name(v.type())));
        if (key != "callable_id_to_name" || v.type() == element_type::NULL_VALUE) continue;
        if (v.type() != element_type::OBJECT) fail("callable_id_to_name: expected an object");
        std::set<std::string, std::less<>> ids;
        for (auto [id, name] : simdjson::dom::object(v)) {
            if (!ids.emplace(id).second) fail(fmt::format("callable_id_to_name: duplicate key \"{}\"", printable_json_key(id)));
            if (name.type() != element_type::STRING)
                fail(fmt::format("callable_id_to_name.{}: expected a string, found {}", printable_json_key(id),
                                 dom_type_name(name.type())));
        }
    }
}

}  // namespace detail

// Reads and checks `path`; throws input_error "<path>: <why>".
inline name_map_file read_name_map_file(const std::string& path, name_map_checks checks) {
    require_regular_file(path);  // never block on a FIFO
    simdjson::padded_string text;
    if (const auto error = simdjson::padded_string::load(path).get(text); error != simdjson::SUCCESS)
        throw input_error(fmt::format("{}: cannot read ({})", path, simdjson::error_message(error)));
    name_map_file f;
    simdjson::dom::element root;
    if (const auto error = f.parser_->parse(text).get(root); error != simdjson::SUCCESS)
        throw input_error(fmt::format("{}: invalid JSON ({})", path, simdjson::error_message(error)));
    if (root.get_object().get(f.top_) != simdjson::SUCCESS) throw input_error(fmt::format("{}: expected a JSON object", path));
    if (checks == name_map_checks::checked) detail::check_name_map(path, f.top_);
    return f;
}

}  // namespace dfx::convert
