// deps.json, the reference dependency-graph schema (spec dep-gen.md §2):
//
//   {"tasks":[...],"tensors":[...],"edges":[...]}\n
//
// one compact line, keys in the reference's order, every u64 (task ids,
// tensor ids, addresses, element counts and offsets) as a decimal string so
// values above 2^53 survive JavaScript readers, i32/u32 values as numbers.
// The reference viewer and the swimlane/critical-path tools read it as is.
//
//   dfx::write_deps_json_file(prefix, stream);    // <prefix>/deps.json, or throws output_error
#pragma once

#include <cstddef>
#include <cstdint>
#include <cerrno>
#include <cstdio>
#include <cstring>
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

// A task's members up to and including `"args":[`; the caller writes the
// arguments and the closing `]`.
inline void write_deps_task_head(text_writer& out, const dep_task_head& t) {
    deps_u64(deps_key(out, "task_id", true), t.task_id);
    deps_name(deps_key(out, "scope"), t.manual_scope ? "manual" : "auto");
    deps_key(out, "early_dispatch").raw(t.early_dispatch ? "true" : "false");
    deps_key(out, "kernel_ids").raw("[").number(t.kernel_ids[0]).raw(",").number(t.kernel_ids[1]);
    out.raw(",").number(t.kernel_ids[2]).raw("]");
    deps_key(out, "block_num").number(t.block_num);
    deps_key(out, "args").raw("[");
}

inline void write_deps_task(text_writer& out, const dep_task& t) {
    write_deps_task_head(out, {t.task_id, t.manual_scope, t.early_dispatch,
                               {t.kernel_ids[0], t.kernel_ids[1], t.kernel_ids[2]}, t.block_num});
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

namespace detail {

// The replay's sink while deps.json is written: tasks straight into the
// file, tensors and edges into two anonymous temporary files appended after them (the
// three arrays come one after another, but the replay finds their items
// interleaved). No dep_graph is built, so the host translation unit compiles
// neither its vectors nor a second pass over them.
class deps_json_stream {
public:
    explicit deps_json_stream(std::FILE* file) : tasks_(file), tensors_(tensors_buffer_.file), edges_(edges_buffer_.file) {
        tasks_.out.raw("{\"tasks\":[");
    }

    dep_graph_sink sink() {
        return {this,
                [](void* c, const dep_task_head& h, std::span<const dep_gen_tensor_part> args) {
                    auto& self = *static_cast<deps_json_stream*>(c);
                    self.tasks_.raw(self.tasks_ ? ",{" : "{");
                    write_deps_task_head(self.tasks_.out, h);
                    for (std::size_t i = 0; i < args.size(); ++i) {
                        self.tasks_.out.raw(i ? ",{" : "{");
                        write_deps_arg(self.tasks_.out, dep_arg_of(args[i]));
                        self.tasks_.out.raw("}");
                    }
                    self.tasks_.out.raw("]}");
                },
                [](void* c, const dep_tensor& t) {
                    auto& self = *static_cast<deps_json_stream*>(c);
                    self.tensors_.raw(self.tensors_ ? ",{" : "{");
                    write_deps_tensor(self.tensors_.out, t);
                    self.tensors_.out.raw("}");
                },
                [](void* c, const dep_edge& e) {
                    auto& self = *static_cast<deps_json_stream*>(c);
                    self.edges_.raw(self.edges_ ? ",{" : "{");
                    write_deps_edge(self.edges_.out, e);
                    self.edges_.out.raw("}");
                }};
    }

    // The rest of the file after the last submit; false if a write failed.
    bool finish() {
        tasks_.out.raw("],\"tensors\":[");
        if (!tasks_.out.flush() || !tensors_buffer_.append_to(tensors_, tasks_.file)) return false;
        tasks_.out.raw("],\"edges\":[");
        if (!tasks_.out.flush() || !edges_buffer_.append_to(edges_, tasks_.file)) return false;
        tasks_.out.raw("]}\n");
        return tasks_.out.flush();
    }

private:
    // A writer, and whether it has written an item (the next one needs a comma).
    struct item_writer {
        explicit item_writer(std::FILE* f) : file(f), out(f) {}
        text_writer& raw(std::string_view text) {
            any = true;
            return out.raw(text);
        }
        explicit operator bool() const noexcept { return any; }
        std::FILE* file;
        text_writer out;
        bool any = false;
    };
    // An anonymous temporary file (std::tmpfile: unlinked at once, so a
    // killed run leaves nothing behind), copied out once. A file rather
    // than memory: the edges' text is the largest part of deps.json, and
    // in memory it raised the peak of a 10^5-task finish() by a third.
    struct spill_file {
        spill_file() : file(std::tmpfile()) {
            if (!file) detail::throw_output_error({"deps.json: cannot create a temporary file: ", std::strerror(errno)});
        }
        ~spill_file() { std::fclose(file); }
        spill_file(const spill_file&) = delete;
        spill_file& operator=(const spill_file&) = delete;
        bool append_to(item_writer& w, std::FILE* to) {
            if (!w.out.flush() || std::fflush(file) != 0 || std::fseek(file, 0, SEEK_SET) != 0) return false;
            char block[1 << 16];
            for (std::size_t n; (n = std::fread(block, 1, sizeof block, file)) > 0;)
                if (std::fwrite(block, 1, n, to) != n) return false;
            return !std::ferror(file);
        }
        std::FILE* file;
    };

    spill_file tensors_buffer_, edges_buffer_;  // before the writers that write into them
    item_writer tasks_, tensors_, edges_;
};

}  // namespace detail

// Replays the capture and writes <prefix>/deps.json atomically, returning its
// path. An empty capture is a clean run with no tasks and still gets a file.
// A malformed stream writes nothing (the half-written temporary is removed):
// the output_error names the file it did not write and why.
inline std::filesystem::path write_deps_json_file(const std::filesystem::path& prefix,
                                                  std::span<const std::byte> stream) {
    const auto path = prefix / schema::deps_file;
    write_artefact(path, [&](std::FILE* f) {
        detail::deps_json_stream json(f);
        try {
            replay_dep_gen(stream, json.sink());
        } catch (const output_error& e) {
            detail::throw_output_error({path.native(), ": not written: ", e.what()});
        }
        return json.finish();
    });
    return path;
}

}  // namespace dfx
