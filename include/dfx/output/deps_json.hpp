// deps.json, the reference dependency-graph schema (spec dep-gen.md §2):
//
//   {"tasks":[...],"tensors":[...],"edges":[...]}\n
//
// one compact line, keys in the reference's order, every u64 (task ids,
// tensor ids, addresses, element counts and offsets) as a decimal string so
// values above 2^53 survive JavaScript readers, i32/u32 values as numbers.
// The reference viewer and the swimlane/critical-path tools read it as is.
//
//   dfx::write_deps_json_file(prefix, records);   // <prefix>/deps.json, or throws output_error
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <initializer_list>
#include <span>
#include <string_view>
#include <utility>

#include "dfx/output/artefact_file.hpp"
#include "dfx/output/deps_replay.hpp"
#include "dfx/output/output_error.hpp"
#include "dfx/output/text_writer.hpp"
#include "dfx/record/dep_gen_records.hpp"
#include "dfx/schema/artefact_names.hpp"

namespace dfx {

// The reference's names. NO_DEP has none there (its name function lacks the
// case), so it is written "UNKNOWN" (spec §7.4).
constexpr std::string_view deps_arg_type_name(arg_type type) noexcept {
    switch (type) {
        case arg_type::input: return "INPUT";
        case arg_type::output: return "OUTPUT";
        case arg_type::inout: return "INOUT";
        case arg_type::output_existing: return "OUTPUT_EXISTING";
        case arg_type::no_dep: return "UNKNOWN";
    }
    return "UNKNOWN";
}

constexpr std::string_view deps_edge_source_name(dep_edge_source source) noexcept {
    switch (source) {
        case dep_edge_source::explicit_dep: return "explicit";
        case dep_edge_source::creator: return "creator";
        case dep_edge_source::tensormap: return "tensormap";
    }
    return "unknown";
}

constexpr std::string_view deps_overlap_name(tensor_overlap overlap) noexcept {
    switch (overlap) {
        case tensor_overlap::covered: return "covered";
        case tensor_overlap::other: return "other";
        case tensor_overlap::no_overlap: return "no_overlap";  // never on an edge: no edge is made
    }
    return "unknown";
}

namespace detail {

// "key": with the separator before it, so every object is written as a run
// of members whose first has no comma.
inline text_writer& deps_key(text_writer& out, std::string_view key, bool first = false) {
    return out.raw(first ? "\"" : ",\"").raw(key).raw("\":");
}

inline text_writer& deps_u64(text_writer& out, std::uint64_t value) {
    return out.raw("\"").number(value).raw("\"");
}

inline text_writer& deps_name(text_writer& out, std::string_view name) { return out.string(name); }

inline text_writer& deps_u32_array(text_writer& out, const std::uint32_t* values, int count) {
    out.raw("[");
    for (int i = 0; i < count; ++i) out.raw(i ? "," : "").number(values[i]);
    return out.raw("]");
}

inline void write_deps_arg(text_writer& out, const dep_arg& a) {
    deps_key(out, "idx", true).number(a.idx);
    deps_name(deps_key(out, "type"), deps_arg_type_name(a.type));
    if (!a.has_tensor()) return;
    deps_u64(deps_key(out, "tensor_id"), a.tensor_id);
    deps_name(deps_key(out, "dtype"), dtype_name(a.slice.dtype));
    deps_u32_array(deps_key(out, "shape"), a.slice.shape, a.slice.ndims);
    deps_u64(deps_key(out, "start_offset"), a.slice.start_offset);
    deps_u32_array(deps_key(out, "strides"), a.slice.strides, a.slice.ndims);
}

inline void write_deps_task(text_writer& out, const dep_task& t) {
    deps_u64(deps_key(out, "task_id", true), t.task_id);
    deps_name(deps_key(out, "scope"), t.manual_scope ? "manual" : "auto");
    deps_key(out, "early_dispatch").raw(t.early_dispatch ? "true" : "false");
    deps_key(out, "kernel_ids").raw("[").number(t.kernel_ids[0]).raw(",").number(t.kernel_ids[1]);
    out.raw(",").number(t.kernel_ids[2]).raw("]");
    deps_key(out, "block_num").number(t.block_num);
    deps_key(out, "args").raw("[");
    for (std::size_t i = 0; i < t.args.size(); ++i) {
        out.raw(i ? ",{" : "{");
        write_deps_arg(out, t.args[i]);
        out.raw("}");
    }
    out.raw("]");
}

inline void write_deps_tensor(text_writer& out, const dep_tensor& t) {
    deps_u64(deps_key(out, "tensor_id", true), t.tensor_id);
    deps_u64(deps_key(out, "buffer_addr"), t.buffer_addr);
    deps_key(out, "version").number(t.version);
    deps_name(deps_key(out, "dtype"), dtype_name(t.dtype));
    deps_u64(deps_key(out, "buffer_numel"), t.buffer_numel);
}

inline void write_deps_edge(text_writer& out, const dep_edge& e) {
    deps_u64(deps_key(out, "pred", true), e.pred);
    deps_u64(deps_key(out, "succ"), e.succ);
    deps_key(out, "arg").number(e.arg);
    deps_name(deps_key(out, "source"), deps_edge_source_name(e.source));
    deps_key(out, "flags").raw("[");
    bool first_flag = true;
    for (const auto& [bit, name] : {std::pair{dep_wait, "\"wait\""}, std::pair{dep_retain, "\"retain\""}}) {
        if (!(e.flags & bit)) continue;
        out.raw(first_flag ? "" : ",").raw(name);
        first_flag = false;
    }
    out.raw("]");
    const bool tensormap = e.source == dep_edge_source::tensormap;
    if (tensormap) deps_name(deps_key(out, "overlap"), deps_overlap_name(e.overlap));
    if (e.source == dep_edge_source::explicit_dep) return;
    deps_u64(deps_key(out, "tensor_id"), e.tensor_id);
    deps_name(deps_key(out, "consumer_dtype"), dtype_name(e.consumer.dtype));
    deps_u32_array(deps_key(out, "consumer_shape"), e.consumer.shape, e.consumer.ndims);
    deps_u64(deps_key(out, "consumer_start_offset"), e.consumer.start_offset);
    deps_u32_array(deps_key(out, "consumer_strides"), e.consumer.strides, e.consumer.ndims);
    if (!tensormap) return;
    deps_u32_array(deps_key(out, "producer_shape"), e.producer.shape, e.producer.ndims);
    deps_u64(deps_key(out, "producer_start_offset"), e.producer.start_offset);
    deps_u32_array(deps_key(out, "producer_strides"), e.producer.strides, e.producer.ndims);
}

template <class Items, class WriteItem>
void write_deps_array(text_writer& out, std::string_view key, bool first, const Items& items, WriteItem write_item) {
    deps_key(out, key, first).raw("[");
    bool first_item = true;
    for (const auto& item : items) {
        out.raw(first_item ? "{" : ",{");
        write_item(out, item);
        out.raw("}");
        first_item = false;
    }
    out.raw("]");
}

}  // namespace detail

inline void write_deps_json(text_writer& out, const dep_graph& g) {
    out.raw("{");
    detail::write_deps_array(out, "tasks", true, g.tasks, detail::write_deps_task);
    detail::write_deps_array(out, "tensors", false, g.tensors, detail::write_deps_tensor);
    detail::write_deps_array(out, "edges", false, g.edges, detail::write_deps_edge);
    out.raw("}\n");
}

// Replays the capture and writes <prefix>/deps.json atomically, returning its
// path. An empty capture is a clean run with no tasks and still gets a file.
// A malformed stream writes nothing: the output_error names the file it did
// not write and why.
inline std::filesystem::path write_deps_json_file(const std::filesystem::path& prefix,
                                                  std::span<const dep_gen_record> records) {
    const auto path = prefix / schema::deps_file;
    dep_graph graph;
    try {
        graph = replay_dep_gen(records);
    } catch (const output_error& e) {
        detail::throw_output_error({path.native(), ": not written: ", e.what()});
    }
    write_artefact(path, [&](std::FILE* f) {
        text_writer out(f);
        write_deps_json(out, graph);
        return out.flush();
    });
    return path;
}

}  // namespace dfx
