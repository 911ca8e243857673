// args_dump: read `args_dump/args_dump.json` (args-dump-and-pmu.md §A3.1).
//
// The manifest is streamed one `args` element at a time and each entry kept
// as a compact record (the viewer lists and filters all of them, like the
// reference). Leniency follows the reference viewer: the legacy key `tensors`
// stands in for `args`, a missing `kind` means tensor, a missing `bin_file`
// means "args.bin" and null means no payload file. Unlike the reference, a
// missing or mistyped field is one error line naming the file, the entry and
// the key, never a traceback.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "dfx/convert/common/input_error.hpp"
#include "dfx/convert/common/json_object_stream.hpp"
#include "dfx/convert/common/py_format.hpp"
#include "dfx/schema/artefact_names.hpp"

namespace dfx::convert::dump {

struct dump_arg {
    std::string task_id;  // "0x" + 16 hex digits as written
    std::int64_t arg_index = 0;
    std::string role;   // input / output / inout
    std::string stage;  // before_dispatch / after_completion
    std::string kind = "tensor";
    std::string dtype;
    std::vector<std::int64_t> shape;
    std::optional<std::vector<std::int64_t>> strides;
    std::optional<std::int64_t> start_offset;
    std::optional<bool> is_contiguous;
    std::uint64_t bin_size = 0;
    std::optional<std::uint64_t> bin_offset;
    bool truncated = false;
    bool overwritten = false;
    std::optional<std::string> value;  // scalars: str() of the JSON value, as Python prints it
    bool value_truthy = false;         // for BOOL scalars
};

struct args_manifest {
    std::vector<dump_arg> args;
    bool has_bin_file_key = false;
    std::optional<std::string> bin_file;  // nullopt: JSON null (no payload file)
};

namespace detail {

using simdjson::ondemand::json_type;
using simdjson::ondemand::value;

// Python's str() of a scalar JSON value.
inline std::string py_str(value& v) {
    switch (v.type()) {
    case json_type::null: return "None";
    case json_type::boolean: return v.get_bool() ? "True" : "False";
    case json_type::string: return std::string(std::string_view(v.get_string()));
    case json_type::number: {
        std::string_view tok = v.raw_json_token();
        while (!tok.empty() && (tok.back() == ' ' || tok.back() == '\n' || tok.back() == '\r' || tok.back() == '\t'))
            tok.remove_suffix(1);
        if (tok.find_first_of(".eE") != std::string_view::npos) return py_float_repr(v.get_double());
        if (tok == "-0") return "0";
        return std::string(tok);
    }
    default: {  // a container: its compact JSON text
        const std::string_view raw = simdjson::to_json_string(v);
        return std::string(raw);
    }
    }
}

class arg_parser {
public:
    explicit arg_parser(std::string path) : path_(std::move(path)) {}

    dump_arg parse(std::string_view array, std::size_t index, simdjson::padded_string_view json) {
        where_ = fmt::format("{}: {}[{}]", path_, array, index);
        try {
            auto doc = parser_.iterate(json);
            if (doc.type() != json_type::object) fail("", "an object");
            dump_arg a;
            bool seen[7] = {};
            for (auto member : doc.get_object()) {
                const std::string_view key = member.unescaped_key();
                simdjson::ondemand::value v = member.value();
                if (key == "task_id") a.task_id = name_part(v, key), seen[0] = true;
                else if (key == "arg_index") a.arg_index = non_negative(integer(v, key), key), seen[1] = true;
                else if (key == "role") a.role = name_part(v, key), seen[2] = true;
                else if (key == "stage") a.stage = name_part(v, key), seen[3] = true;
                else if (key == "dtype") a.dtype = text(v, key), seen[4] = true;
                else if (key == "shape") a.shape = dimension_list(v, key), seen[5] = true;
                else if (key == "bin_size") a.bin_size = unsigned_integer(v, key), seen[6] = true;
                else if (key == "kind") a.kind = text(v, key);
                else if (key == "strides") a.strides = dimension_list(v, key);
                else if (key == "start_offset") a.start_offset = non_negative(integer(v, key), key);  // a u64 element offset
                else if (key == "is_contiguous") a.is_contiguous = boolean(v, key);
                else if (key == "bin_offset") a.bin_offset = unsigned_integer(v, key);
                else if (key == "truncated") a.truncated = boolean(v, key);
                else if (key == "overwritten") a.overwritten = boolean(v, key);
                else if (key == "value") {
                    a.value_truthy = v.type() == json_type::boolean ? bool(v.get_bool())
                                   : v.type() == json_type::number ? v.get_double() != 0.0
                                   : v.type() == json_type::string ? !std::string_view(v.get_string()).empty()
                                                                   : false;
                    a.value = py_str(v);
                }
            }
            static constexpr const char* required[] = {"task_id", "arg_index", "role", "stage", "dtype", "shape", "bin_size"};
            for (int i = 0; i < 7; ++i)
                if (!seen[i]) throw input_error(fmt::format("{}: missing \"{}\"", where_, required[i]));
            return a;
        } catch (const simdjson::simdjson_error& e) {
            throw input_error(fmt::format("{}: {}", where_, e.what()));
        }
    }

private:
    [[noreturn]] void fail(std::string_view key, std::string_view expected) const {
        if (key.empty()) throw input_error(fmt::format("{}: expected {}", where_, expected));
        throw input_error(fmt::format("{}: \"{}\" must be {}", where_, key, expected));
    }
    // A text that names the export's files (dfx dump --export): no path
    // separator or NUL, which would send a file elsewhere.
    std::string name_part(value& v, std::string_view key) {
        std::string t = text(v, key);
        if (t.find_first_of(std::string_view("/\0", 2)) != std::string::npos) fail(key, "a text without '/' or NUL");
        return t;
    }
    std::string text(value& v, std::string_view key) {
        // task_id too is a string: "0x" and 16 hex digits (spec args dump).
        if (v.type() != json_type::string) fail(key, "a string");
        return std::string(std::string_view(v.get_string()));
    }
    std::int64_t integer(value& v, std::string_view key) {
        std::int64_t x = 0;
        if (v.type() != json_type::number || v.get_int64().get(x) != simdjson::SUCCESS) fail(key, "an integer");
        return x;
    }
    std::uint64_t unsigned_integer(value& v, std::string_view key) {
        std::uint64_t x = 0;
        if (v.type() != json_type::number || v.get_uint64().get(x) != simdjson::SUCCESS) fail(key, "a non-negative integer");
        return x;
    }
    bool boolean(value& v, std::string_view key) {
        bool b = false;
        if (v.type() != json_type::boolean || v.get_bool().get(b) != simdjson::SUCCESS) fail(key, "true or false");
        return b;
    }
    std::int64_t non_negative(std::int64_t x, std::string_view key) const {
        if (x < 0) fail(key, "a non-negative integer");
        return x;
    }
    // shape and strides: the record's u32[5] (spec args dump), so each in [0, 2^32).
    std::vector<std::int64_t> dimension_list(value& v, std::string_view key) {
        std::vector<std::int64_t> out = int_list(v, key);
        for (const std::int64_t x : out)
            if (x < 0 || x > UINT32_MAX) fail(key, "an array of integers in [0, 2^32)");
        return out;
    }
    std::vector<std::int64_t> int_list(value& v, std::string_view key) {
        if (v.type() != json_type::array) fail(key, "an array of integers");
        std::vector<std::int64_t> out;
        for (auto el : v.get_array()) {
            simdjson::ondemand::value e = el.value();
            out.push_back(integer(e, key));
        }
        return out;
    }

    std::string path_;
    std::string where_;
    simdjson::ondemand::parser parser_;
};

}  // namespace detail

namespace detail {

// The first value of a JSON text wrapped in [ ]: lets a scalar member be read
// as an ordinary On-Demand value.
template <class F>
void with_scalar(simdjson::padded_string_view json, F&& f) {
    const simdjson::padded_string wrapped("[" + std::string(std::string_view(json)) + "]");
    simdjson::ondemand::parser p;
    auto doc = p.iterate(wrapped);
    simdjson::ondemand::array arr = doc.get_array();
    simdjson::ondemand::value v = *arr.begin();
    f(v);
}

class manifest_handler final : public json_member_handler {
public:
    manifest_handler(std::string path, args_manifest& m) : path_(std::move(path)), m_(m), parser_(path_) {}

    member_use use(std::string_view key) override {
        if (key == "args") has_args = true;
        if (key == "args" || key == "tensors") return member_use::elements;
        if (key == "bin_file") {
            m_.has_bin_file_key = true;
            return member_use::value;
        }
        return member_use::skip;
    }
    void value(std::string_view key, simdjson::padded_string_view json) override {
        if (key != "bin_file") throw input_error(path_ + ": \"" + std::string(key) + "\" must be an array");
        try {  // simdjson validates what the stream did not (UTF-8) and throws its own error
            with_scalar(json, [&](simdjson::ondemand::value& v) {
                if (v.type() == json_type::null) m_.bin_file.reset();
                else if (v.type() == json_type::string) m_.bin_file = std::string(std::string_view(v.get_string()));
                else throw input_error(path_ + ": \"bin_file\" must be a string or null");
            });
        } catch (const simdjson::simdjson_error& e) {
            throw input_error(path_ + ": \"bin_file\": " + e.what());
        }
    }
    void element(std::string_view key, std::size_t index, simdjson::padded_string_view json) override {
        (key == "args" ? m_.args : legacy).push_back(parser_.parse(key, index, json));
    }

    bool has_args = false;
    std::vector<dump_arg> legacy;  // `tensors`, used only when there is no `args`

private:
    std::string path_;
    args_manifest& m_;
    arg_parser parser_;
};

}  // namespace detail

// Reads the manifest. Throws input_error for unreadable, malformed or
// mistyped input.
inline args_manifest read_args_manifest(const std::string& path) {
    args_manifest m;
    detail::manifest_handler h(path, m);
    json_object_stream(path).run(h);
    if (!h.has_args) m.args = std::move(h.legacy);
    if (!m.has_bin_file_key) m.bin_file = schema::args_bin_file;
    return m;
}

}  // namespace dfx::convert::dump
