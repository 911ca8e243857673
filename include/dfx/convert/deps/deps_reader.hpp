// deps_reader: the one reader of `deps.json` (dep-gen.md §2, §3.2;
// chip-swimlane.md §4.2), for every command that reads it: `dfx deps` and
// `dfx critical-path` into a deps_document (read_deps(path, opt)), `dfx
// swimlane` and `dfx sched-overhead` into their edge / kernel / block maps
// through a deps_sink of their own (swimlane/deps_graph.hpp), which keeps
// only what it needs while the file streams past.
//
//     deps_document doc = read_deps(path, {.details = true});
//     my_sink sink;  // : deps_sink
//     const deps_read_summary s = read_deps(path, sink, {.lenient = true, .dialect = deps_dialect::swimlane});
//
// Input is checked, not trusted, the same way for every command: `edges`
// must be there and be an array; `tasks` / `tensors`, when there, arrays;
// every entry an object; every task id (edge pred / succ, task_id,
// tensor_id) a non-negative integer below 2^64 or a string of its digits
// (checked_fields.hpp), an edge's pred / succ given once; kernel_ids a list
// of 3 func ids (integers >= 0) or -1; block_num an integer in [0, 2^32)
// (below 1 reads as 1, as in the reference). The stream holds the whole
// file to the grammar and UTF-8, values no command uses included, and
// refuses a repeated top-level key. Each failure is one input_error naming
// the file, the byte where the entry starts, the member ("edges[3].pred")
// and what was expected.
//
// With deps_load_options::lenient the reference tools' reading is kept
// instead, as they do no schema validation: non-object entries and entries
// whose ids do not parse (Python's int(), masked to u64) are dropped (edges
// are counted, so the CLI can say so); `tasks` / `tensors` that are not
// arrays are ignored; a missing `edges` is no edges. Where the viewer and the
// swimlane converter read differently (a non-list `edges`, kernel_ids,
// block_num), deps_load_options::dialect says whose reading
// (deps_document.hpp has the table). What the reference would crash on stays
// an error either way: malformed or truncated JSON, a top level that is not
// an object, for the viewer an `edges` that is neither an array, an object, a
// string nor absent.
#pragma once

#include <simdjson.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
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

}  // namespace detail

// Where read entries go, on the thread that parses them (the second one
// when pipelined), one at a time in file order.
class deps_sink {
public:
    virtual ~deps_sink() = default;
    // `d` is filled with details / geometry, `g` with geometry, when asked for.
    virtual void edge(const edge_key& k, edge_detail& d, edge_geometry& g) = 0;
    // `args` is filled with the task's args when details or geometry are asked for.
    virtual void task(task_entry& t, std::vector<task_arg>& args) = 0;
    virtual void tensor(tensor_entry& t) = 0;
};

// What a read found besides its entries.
struct deps_read_summary {
    bool saw_edges = false;         // a top-level `edges` member was there
    bool edges_listed = false;      // ... and was an array
    std::size_t dropped_edges = 0;  // leniently: non-object edges or unparseable pred / succ
};

namespace detail {

// Receives deps.json's members from the stream and hands the entries to a sink.
class deps_handler final : public json_member_handler {
public:
    deps_handler(std::string path, deps_sink& sink, deps_load_options opt)
        : path_(std::move(path)), sink_(sink), opt_(opt) {}

    member_use use(std::string_view key) override {
        if (key == "edges") summary.saw_edges = true;
        return key == "tasks" || key == "tensors" || key == "edges" ? member_use::elements : member_use::skip;
    }

    // (use() runs on the calling thread, the rest on the replay thread when
    // pipelined: read it after the run)
    deps_read_summary summary;

    // A wanted member that is not an array. The reference viewer ignores
    // non-list tasks / tensors; it iterates `edges` whatever it is, which only
    // works (as a no-op) for an object or a string. The swimlane converter
    // has no usable edges then (summary.edges_listed stays false).
    void value(std::string_view key, simdjson::padded_string_view json) override {
        const char c = std::string_view(json).front();
        if (!opt_.lenient)
            fail(key, fmt::format("expected an array, found {}",
                                  c == '{' ? "an object" : c == '"' ? "a string" : c == 'n' ? "null"
                                           : c == 't' || c == 'f' ? "a boolean" : "a number"));
        if (key != "edges" || opt_.dialect == deps_dialect::swimlane) return;
        if (c != '{' && c != '"') throw input_error(path_ + ": \"edges\" must be an array");
    }

    void array_end(std::string_view key, std::size_t /*count*/) override {
        if (key == "edges") summary.edges_listed = true;
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
    bool viewer() const { return opt_.dialect == deps_dialect::viewer; }

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

    // An integer number token (no fraction, no exponent): sign and magnitude.
    template <class Value>
    static std::optional<dfx::convert::detail::parsed_int> integer_token(Value& v) {
        if (v.type() != json_type::number) return std::nullopt;
        const std::string_view token = v.raw_json_token();
        if (token.find_first_of(".eE") != std::string_view::npos) return std::nullopt;
        return dfx::convert::detail::parse_number_token(token);
    }

    template <class Value>
    void parse_element(std::string_view key, std::size_t index, Value&& doc) {
        index_ = index;
        if (doc.type() != json_type::object) {
            if (!opt_.lenient) fail(key, index, "", "expected an object");
            if (key == "edges") ++summary.dropped_edges;
            return;  // the reference skips non-dict entries
        }
        if (key == "edges") parse_edge(doc.get_object());
        else if (key == "tasks") parse_task(doc.get_object());
        else parse_tensor(doc.get_object(), index);
    }

    template <class Object>
    void parse_edge(Object obj) {
        std::optional<std::uint64_t> pred, succ;
        bool saw_pred = false, saw_succ = false;
        edge_key k;
        edge_detail d;
        edge_geometry g;
        const bool details = opt_.details || opt_.geometry;
        for (auto member : obj) {
            const std::string_view key = member.unescaped_key();
            auto v = member.value();
            if (key == "pred" || key == "succ") {
                bool& saw = key == "pred" ? saw_pred : saw_succ;
                // (a dict keeps the last: one of the two ids would be ignored)
                if (saw && !opt_.lenient) fail("edges", index_, "", fmt::format("duplicate key \"{}\"", key));
                saw = true;
                (key == "pred" ? pred : succ) = id_of(v, "edges", key);
            }
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
            ++summary.dropped_edges;
            return;
        }
        k.pred = *pred;
        k.succ = *succ;
        sink_.edge(k, d, g);
    }

    // kernel_ids: checked, a list of exactly 3 func ids or -1. Leniently the
    // viewer pads or truncates to 3, a slot int() refuses being -1; the
    // swimlane keeps only a list of 3 integers, and a slot that is not an
    // integer stops it (load_deps_graph reports it even leniently).
    template <class Value>
    void read_kernel_ids(Value& v, task_entry& t) {
        t.slots = {-1, -1, -1};
        t.kernel_ids_listed = false;
        if (v.type() != json_type::array) {
            if (!opt_.lenient) fail("tasks", index_, "kernel_ids", "expected an array of 3 integers");
            return;
        }
        std::array<std::int64_t, 3> got{-1, -1, -1};
        std::size_t n = 0;
        for (auto el : v.get_array()) {
            auto e = el.value();
            if (opt_.lenient && viewer()) {  // int() of each of the first 3
                if (n < 3) got[n] = py_int(e).value_or(-1);
                ++n;
                continue;
            }
            const auto x = dfx::convert::detail::to_int64(integer_token(e));
            // The slot's name is formatted only for the error: this loop runs
            // three times per task.
            if (!opt_.lenient && (!x || *x < -1))
                fail("tasks", index_, fmt::format("kernel_ids[{}]", n), "expected a func id (an integer >= 0) or -1");
            if (!x) fail("tasks", index_, fmt::format("kernel_ids[{}]", n), "expected an integer in [-2^63, 2^63)");
            if (n < 3) got[n] = *x;
            ++n;
        }
        if (!opt_.lenient && n != 3) fail("tasks", index_, "kernel_ids", fmt::format("expected an array of 3 integers, found {}", n));
        if (opt_.lenient && viewer()) {
            t.slots = got;
        } else if (n == 3) {
            t.slots = got;
            t.kernel_ids_listed = true;
        }
    }

    // block_num: checked, an integer in [0, 2^32); leniently int() (viewer)
    // or an integer else 1 (swimlane); below 1 reads as 1 either way.
    template <class Value>
    std::int64_t read_block_num(Value& v) {
        if (!opt_.lenient) {
            const auto b = dfx::convert::detail::to_int64(integer_token(v));
            if (!b) fail("tasks", index_, "block_num", "expected an integer");
            // A stored u32 (spec dep_gen): negative or above 2^32-1 is corrupt, not a count.
            if (*b < 0 || *b > UINT32_MAX) fail("tasks", index_, "block_num", "expected an integer in [0, 2^32)");
            return *b >= 1 ? *b : 1;
        }
        if (viewer()) {
            const auto b = py_int(v);
            return b && *b >= 1 ? *b : 1;
        }
        const auto b = integer_token(v);
        if (!b || b->negative || b->magnitude < 1) return 1;
        return b->magnitude > std::uint64_t{INT64_MAX} ? INT64_MAX : static_cast<std::int64_t>(b->magnitude);
    }

    template <class Object>
    void parse_task(Object obj) {
        task_entry t;
        std::vector<task_arg> args;
        std::optional<std::uint64_t> id;
        for (auto member : obj) {
            const std::string_view key = member.unescaped_key();
            auto v = member.value();
            if (key == "task_id") {
                id = id_of(v, "tasks", key);
            } else if (key == "kernel_ids") {
                read_kernel_ids(v, t);
            } else if (key == "block_num") {
                t.block_num = read_block_num(v);
            } else if (key == "early_dispatch") {
                t.early_dispatch = py_truthy(v);
            } else if (key == "args" && (opt_.details || opt_.geometry)) {
                if (v.type() != json_type::array) continue;
                for (auto el : v.get_array()) {
                    auto e = el.value();
                    if (e.type() == json_type::object) args.push_back(parse_arg(e.get_object()));
                }
            }
        }
        if (!id) {
            if (!opt_.lenient) fail("tasks", index_, "", "missing required member \"task_id\"");
            return;
        }
        t.id = *id;
        sink_.task(t, args);
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
        sink_.tensor(t);
    }

    std::string path_;
    deps_sink& sink_;
    deps_load_options opt_;
    simdjson::ondemand::parser parser_;
    std::size_t index_ = 0;  // of the element being parsed
    std::string why_;
};

// After a run: checked, `edges` is required.
inline void require_edges(const std::string& path, const deps_read_summary& s, const deps_load_options& opt) {
    if (!s.saw_edges && !opt.lenient)
        throw input_error(path + ": missing required member \"edges\" (an array of {pred, succ} objects)");
}

// The sink of read_deps(path, opt): a deps_document at the options' detail.
class document_sink final : public deps_sink {
public:
    document_sink(deps_document& doc, const deps_load_options& opt) : doc_(doc), opt_(opt) {}
    void edge(const edge_key& k, edge_detail& d, edge_geometry& g) override {
        doc_.edges.push_back(k);
        if (opt_.geometry) {
            d.geometry = static_cast<std::uint32_t>(doc_.geometry.size());
            doc_.geometry.push_back(std::move(g));
        }
        if (opt_.details || opt_.geometry) doc_.details.push_back(std::move(d));
    }
    void task(task_entry& t, std::vector<task_arg>& args) override {
        if (!args.empty()) {
            t.args_at = static_cast<std::uint32_t>(doc_.task_args.size());
            doc_.task_args.push_back(std::move(args));
        }
        doc_.tasks.push_back(t);
    }
    void tensor(tensor_entry& t) override { doc_.tensors.push_back(std::move(t)); }

private:
    deps_document& doc_;
    deps_load_options opt_;
};

}  // namespace detail

// Reads `path` into `sink`, one array element at a time. Throws input_error
// for unreadable or malformed files.
inline deps_read_summary read_deps(const std::string& path, deps_sink& sink, deps_load_options opt,
                                   reader_threads threads = reader_threads::pipelined) {
    detail::deps_handler handler(path, sink, opt);
    run_with(json_object_stream(path), handler, threads);
    detail::require_edges(path, handler.summary, opt);
    return handler.summary;
}

// Reads `path` into a deps_document at `opt`'s detail.
inline deps_document read_deps(const std::string& path, deps_load_options opt = {},
                               reader_threads threads = reader_threads::pipelined) {
    deps_document doc;
    detail::document_sink sink(doc, opt);
    doc.dropped_edges = read_deps(path, sink, opt, threads).dropped_edges;
    return doc;
}

}  // namespace dfx::convert::deps
