// deps_reader: stream `deps.json` into a deps_document (dep-gen.md §2, §3.2).
//
// Input is checked, not trusted: `edges` must be there and be an array;
// `tasks` / `tensors`, when there, arrays; every entry an object; every task
// id (edge pred / succ, task_id, tensor_id) a non-negative integer below 2^64
// or a string of its digits (checked_fields.hpp); kernel_ids integers;
// block_num an integer (below 1 reads as 1, as in the reference). Each failure is one input_error naming the file,
// the byte where the entry starts, the member ("edges[3].pred") and what was
// expected. A repeated top-level key is refused by the stream.
//
// With deps_load_options::lenient the reference viewer's semantics are kept
// instead, as it does no schema validation: non-object entries and entries
// whose ids do not parse are dropped (and counted, so the CLI can say so);
// `tasks` / `tensors` that are not arrays are ignored; a missing `edges` is no
// edges. What the reference would crash on stays an error either way:
// malformed or truncated JSON, a top level that is not an object, an `edges`
// member that is neither an array nor absent.
#pragma once

#include <simdjson.h>

#include <string>
#include <string_view>

#include "dfx/convert/common/checked_fields.hpp"
#include "dfx/convert/common/input_error.hpp"
#include "dfx/convert/common/json_object_stream.hpp"
#include "dfx/convert/common/pipelined_handler.hpp"
#include "dfx/convert/common/plain_json.hpp"
#include "dfx/convert/common/py_json.hpp"
#include "dfx/convert/deps/deps_document.hpp"

namespace dfx::convert::deps {

namespace detail {

using simdjson::ondemand::json_type;

inline edge_source parse_source(std::string_view s) {
    if (s == "creator") return edge_source::creator;
    if (s == "tensormap") return edge_source::tensormap;
    if (s == "explicit") return edge_source::explicit_dep;
    return edge_source::other;
}

// A member that was present, with what int() / str / list reading makes of it.
template <class Value>
void read_field(field<std::string>& f, Value& v) {
    f.present = true;
    f.value = string_or_none(v);
}
template <class Value>
void read_field(field<std::int64_t>& f, Value& v) {
    f.present = true;
    f.value = py_int(v);
}
template <class Value>
void read_field(field<std::vector<std::int64_t>>& f, Value& v) {
    f.present = true;
    f.value = py_int_list(v);
}

// The handlers below are templates over the element's object type: a
// plain_object for plain elements, simdjson On-Demand's for the others.
template <class Object>
task_arg parse_arg(Object obj) {
    task_arg a;
    for (auto member : obj) {
        const std::string_view key = member.unescaped_key();
        auto v = member.value();
        if (key == "idx") a.idx = py_int(v);
        else if (key == "type") a.type = string_or_none(v).value_or("");
        else if (key == "tensor_id") a.tensor_id = py_int_u64(v);
        else if (key == "dtype") read_field(a.dtype, v);
        else if (key == "shape") read_field(a.shape, v);
        else if (key == "strides") read_field(a.strides, v);
        else if (key == "start_offset") read_field(a.start_offset, v);
    }
    return a;
}

// Receives deps.json's members from the stream and fills a deps_document.
class deps_handler final : public json_member_handler {
public:
    deps_handler(std::string path, deps_document& doc, deps_load_options opt)
        : path_(std::move(path)), doc_(doc), opt_(opt) {}

    member_use use(std::string_view key) override {
        if (key == "edges") saw_edges = true;
        return key == "tasks" || key == "tensors" || key == "edges" ? member_use::elements : member_use::skip;
    }

    bool saw_edges = false;  // (use() runs on the calling thread, pipelined or not)

    // A wanted member that is not an array. The reference ignores non-list
    // tasks / tensors; it iterates `edges` whatever it is, which only works
    // (as a no-op) for an object or a string.
    void value(std::string_view key, simdjson::padded_string_view json) override {
        const char c = std::string_view(json).front();
        if (!opt_.lenient)
            fail(key, fmt::format("expected an array, found {}",
                                  c == '{' ? "an object" : c == '"' ? "a string" : c == 'n' ? "null"
                                           : c == 't' || c == 'f' ? "a boolean" : "a number"));
        if (key != "edges") return;
        if (c != '{' && c != '"') throw input_error(path_ + ": \"edges\" must be an array");
    }

    void element(std::string_view key, std::size_t index, simdjson::padded_string_view json) override {
        if (is_plain_json(json)) return parse_element(key, index, plain_value(json));
        try {
            auto doc = parser_.iterate(json);
            parse_element(key, index, doc);
        } catch (const simdjson::simdjson_error& e) {
            throw input_error(path_ + ": " + std::string(key) + "[" + std::to_string(index) + "]: " + e.what());
        }
    }

private:
    // "<file>: at byte N: <member>: <what>", N where the value being read starts.
    [[noreturn]] void fail(std::string_view member, std::string_view what) const {
        throw input_error(fmt::format("{}: at byte {}: {}: {}", path_, value_offset, member, what));
    }
    [[noreturn]] void fail(std::string_view key, std::size_t index, std::string_view member, std::string_view what) const {
        fail(member.empty() ? fmt::format("{}[{}]", key, index) : fmt::format("{}[{}].{}", key, index, member), what);
    }

    // A task id, checked (or, leniently, int() of it masked to u64).
    template <class Value>
    std::optional<std::uint64_t> id_of(Value& v, std::string_view key, std::string_view member) {
        if (opt_.lenient) return py_int_u64(v);
        std::uint64_t id = 0;
        if (!read_task_id(v, id, why_)) fail(key, index_, member, why_);
        return id;
    }

    template <class Value>
    void parse_element(std::string_view key, std::size_t index, Value&& doc) {
        index_ = index;
        if (doc.type() != json_type::object) {
            if (!opt_.lenient) fail(key, index, "", "expected an object");
            if (key == "edges") ++doc_.dropped_edges;
            return;  // the reference skips non-dict entries
        }
        if (key == "edges") parse_edge(doc.get_object());
        else if (key == "tasks") parse_task(doc.get_object());
        else parse_tensor(doc.get_object(), index);
    }

    template <class Object>
    void parse_edge(Object obj) {
        std::optional<std::uint64_t> pred, succ;
        edge_key k;
        edge_detail d;
        edge_geometry g;
        const bool details = opt_.details || opt_.geometry;
        for (auto member : obj) {
            const std::string_view key = member.unescaped_key();
            auto v = member.value();
            if (key == "pred") pred = id_of(v, "edges", key);
            else if (key == "succ") succ = id_of(v, "edges", key);
            else if (key == "source") k.source = v.type() == json_type::string ? parse_source(v.get_string()) : edge_source::other;
            else if (!details) continue;
            else if (key == "arg") d.arg = py_int(v);
            else if (key == "tensor_id") d.tensor_id = py_int_u64(v);
            else if (key == "overlap") d.overlap = string_or_none(v).value_or("");
            else if (!opt_.geometry) continue;
            else if (key == "consumer_dtype") read_field(g.consumer_dtype, v);
            else if (key == "producer_dtype") read_field(g.producer_dtype, v);
            else if (key == "consumer_shape") read_field(g.consumer_shape, v);
            else if (key == "consumer_strides") read_field(g.consumer_strides, v);
            else if (key == "consumer_start_offset") read_field(g.consumer_start_offset, v);
            else if (key == "producer_shape") read_field(g.producer_shape, v);
            else if (key == "producer_strides") read_field(g.producer_strides, v);
            else if (key == "producer_start_offset") read_field(g.producer_start_offset, v);
        }
        if (!pred || !succ) {
            if (!opt_.lenient) fail("edges", index_, "", fmt::format("missing required member \"{}\"", pred ? "succ" : "pred"));
            ++doc_.dropped_edges;
            return;
        }
        k.pred = *pred;
        k.succ = *succ;
        doc_.edges.push_back(k);
        if (opt_.geometry) {
            d.geometry = static_cast<std::uint32_t>(doc_.geometry.size());
            doc_.geometry.push_back(std::move(g));
        }
        if (details) doc_.details.push_back(std::move(d));
    }

    template <class Object>
    void parse_task(Object obj) {
        task_entry t;
        std::optional<std::uint64_t> id;
        for (auto member : obj) {
            const std::string_view key = member.unescaped_key();
            auto v = member.value();
            if (key == "task_id") {
                id = id_of(v, "tasks", key);
            } else if (key == "kernel_ids") {
                // Padded / truncated to 3 slots; an unparseable slot is inactive (leniently).
                t.slots = {-1, -1, -1};
                if (v.type() != json_type::array) {
                    if (!opt_.lenient) fail("tasks", index_, key, "expected an array of integers");
                    continue;
                }
                std::size_t i = 0;
                for (auto el : v.get_array()) {
                    if (i == 3) break;
                    auto e = el.value();
                    if (!opt_.lenient && (e.type() != json_type::number || !py_int(e)))
                        fail("tasks", index_, fmt::format("kernel_ids[{}]", i), "expected an integer");
                    t.slots[i++] = py_int(e).value_or(-1);
                }
            } else if (key == "block_num") {
                const auto b = py_int(v);
                // (below 1 is clamped to 1, as the reference does: a count, not a corrupt value)
                if (!opt_.lenient && (v.type() != json_type::number || !b || std::string_view(v.raw_json_token()).find_first_of(".eE") != std::string_view::npos))
                    fail("tasks", index_, key, "expected an integer");
                t.block_num = b && *b >= 1 ? *b : 1;
            } else if (key == "early_dispatch") {
                t.early_dispatch = py_truthy(v);
            } else if (key == "args" && (opt_.details || opt_.geometry)) {
                if (v.type() != json_type::array) continue;
                for (auto el : v.get_array()) {
                    auto e = el.value();
                    if (e.type() == json_type::object) t.args.push_back(parse_arg(e.get_object()));
                }
            }
        }
        if (!id) {
            if (!opt_.lenient) fail("tasks", index_, "", "missing required member \"task_id\"");
            return;
        }
        t.id = *id;
        doc_.tasks.push_back(std::move(t));
    }

    template <class Object>
    void parse_tensor(Object obj, std::size_t index) {
        tensor_entry t;
        t.ordinal = index;
        std::optional<std::uint64_t> id;
        for (auto member : obj) {
            const std::string_view key = member.unescaped_key();
            auto v = member.value();
            if (key == "tensor_id") {
                id = id_of(v, "tensors", key);
            } else if (!opt_.details && !opt_.geometry) {
                continue;  // the text view only counts distinct tensor ids
            } else if (key == "buffer_addr") {
                read_field(t.buffer_addr, v);
            } else if (key == "buffer_numel") {
                // The text and int() of one read: a string read twice would
                // unescape twice into simdjson's string buffer (py_json.hpp).
                if (v.type() == json_type::string) {
                    t.buffer_numel_text = std::string_view(v.get_string());
                    t.buffer_numel = {true, py_int_of_text(t.buffer_numel_text)};
                } else {
                    if (v.type() == json_type::number) t.buffer_numel_text = std::string_view(v.raw_json_token());
                    read_field(t.buffer_numel, v);
                }
                while (!t.buffer_numel_text.empty() && t.buffer_numel_text.back() == ' ') t.buffer_numel_text.pop_back();
            } else if (key == "dtype") {
                t.dtype = string_or_none(v);
            }
        }
        if (!id) {
            if (!opt_.lenient) fail("tensors", index_, "", "missing required member \"tensor_id\"");
            return;
        }
        t.id = *id;
        doc_.tensors.push_back(std::move(t));
    }

    std::string path_;
    deps_document& doc_;
    deps_load_options opt_;
    simdjson::ondemand::parser parser_;
    std::size_t index_ = 0;  // of the element being parsed
    std::string why_;
};

}  // namespace detail

// How a reader spends cores: `pipelined` scans on the calling thread and
// parses elements on a second one (pipelined_handler.hpp); `one_thread` does
// both on the calling thread, for when another reader has the second core
// (two pipelined readers on two cores ran slower than two plain ones: 4
// threads, a copy of every element, and hand-overs).
enum class reader_threads { pipelined, one_thread };

// Reads `path`, one array element at a time. Throws input_error for
// unreadable or malformed files.
inline deps_document read_deps(const std::string& path, deps_load_options opt = {},
                               reader_threads threads = reader_threads::pipelined) {
    deps_document doc;
    detail::deps_handler handler(path, doc, opt);
    if (threads == reader_threads::pipelined) run_pipelined(json_object_stream(path), handler);
    else json_object_stream(path).run(handler);
    if (!handler.saw_edges && !opt.lenient)
        throw input_error(path + ": missing required member \"edges\" (an array of {pred, succ} objects)");
    return doc;
}

}  // namespace dfx::convert::deps
