// Puts the submits dep_gen captured back together from their records
// (record/dep_gen_records.hpp: one dense record per submit, then deps
// records while it says more_deps), and refuses a stream that does not have
// exactly that shape.
//
//   dfx::append_buffer stream;
//   dfx::append_dep_gen_record(stream, record);             // the host, per record collected
//   auto submits = dfx::read_dep_gen_submits(stream.bytes());   // or replay_dep_gen(stream.bytes(), ...)
//
// The host's copy of the stream holds each record's header and payload back
// to back, each starting on an 8-byte boundary (no cache-line padding), and
// the reader copies every field out with memcpy, so it assumes no alignment
// of the bytes it is handed.
//
// Why refuse rather than skip: a submit with a record missing or malformed
// replays into a graph with edges missing or invented, and deps.json has no
// way to say so. A wrong graph is worse than none, so any defect throws
// output_error naming the record, its byte offset and what is wrong, and no
// file is written.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "dfx/output/append_buffer.hpp"
#include "dfx/output/output_error.hpp"
#include "dfx/record/dep_gen_records.hpp"

namespace dfx {

// One submit as the orchestrator captured it.
struct dep_gen_submit {
    std::uint64_t task_id = 0;
    dep_gen_task_part task{};
    std::vector<dep_gen_tensor_part> tensors;  // index order; one per argument
    std::vector<std::uint64_t> explicit_deps;  // declaration order, duplicates kept
};

// Appends a record (its header and the payload right after it in memory) to
// the host's copy of the stream, padded to 8 bytes.
inline void append_dep_gen_record(append_buffer& stream, const dep_gen_record& r) {
    const std::size_t bytes = sizeof(dep_gen_record) + r.packed_payload_bytes();
    const std::size_t padded = (bytes + 7) / 8 * 8;
    std::byte* at = stream.extend(padded);
    std::memcpy(at, &r, bytes);
    std::memset(at + bytes, 0, padded - bytes);
}

namespace detail {

// Throws the output_error for the record at `offset`; `what` is the message's tail.
[[noreturn, gnu::cold, gnu::noinline]] inline void malformed_dep_gen(std::size_t index, std::size_t offset,
                                                                    std::uint64_t task_id,
                                                                    std::initializer_list<message_part> what) {
    std::string tail = message(what);
    throw output_error(message({"malformed dep_gen record stream: record ", index, " (byte ", offset, ", task ",
                                task_id, "): ", tail}));
}

// Reads the arguments of a submit record whose header `h` starts at `record`.
inline void read_dep_gen_arguments(std::size_t index, std::size_t offset, const std::byte* record,
                                   const dep_gen_record& h, dep_gen_submit& s) {
    const std::byte* types = record + dep_gen_record::types_offset();
    const std::byte* view_at = record + h.views_offset();
    std::uint32_t views = 0;
    s.tensors.resize(h.tensor_count);
    for (std::uint32_t i = 0; i < h.tensor_count; ++i) {
        const auto byte = static_cast<std::uint8_t>(types[i]);
        const std::uint8_t type = byte & static_cast<std::uint8_t>(~dep_gen_arg_has_view);
        const bool has_view = (byte & dep_gen_arg_has_view) != 0;
        if (type > static_cast<std::uint8_t>(arg_type::no_dep))
            malformed_dep_gen(index, offset, h.task_id, {"tensor index ", i, " has unknown argument type ", type});
        dep_gen_tensor_part& t = s.tensors[i];
        t.index = static_cast<std::uint8_t>(i);
        t.type = static_cast<arg_type>(type);
        t.has_view = has_view;
        // Only OUTPUT may lack a view. The reference would read a zero-filled
        // blob here, whose owner field reads as task 0: an invented creator edge.
        if (t.type != arg_type::output && !has_view)
            malformed_dep_gen(index, offset, h.task_id, {"tensor index ", i, " is not OUTPUT but carries no tensor view"});
        if (!has_view) continue;  // an OUTPUT's view, if any, is read and then not used (the replay skips OUTPUT)
        if (++views > h.view_count)
            malformed_dep_gen(index, offset, h.task_id,
                              {"more arguments carry a view than the record's view_count ", h.view_count});
        std::memcpy(&t.view, view_at, sizeof(tensor_view));
        view_at += sizeof(tensor_view);
        if (t.view.ndims > max_tensor_dims)
            malformed_dep_gen(index, offset, h.task_id,
                              {"tensor index ", i, " has ndims ", t.view.ndims, ", above ", max_tensor_dims});
    }
    if (views != h.view_count)
        malformed_dep_gen(index, offset, h.task_id,
                          {"view_count ", h.view_count, " but ", views, " arguments carry a view"});
}

// The stream read submit by submit: each submit is handed to
// emit(context, submit) once it is whole (its last record read), and only
// after it has been checked. Throws output_error on any structural defect
// (see the file comment). Not a template on what consumes the submits, so
// the replay, which needs one submit at a time, compiles neither a second
// reader nor a vector of every submit.
inline void read_dep_gen_stream(std::span<const std::byte> stream, void (*emit)(void*, dep_gen_submit&),
                                void* context) {
    dep_gen_submit open;
    bool awaiting_deps = false;  // `open` said more_deps: the next record must be its deps record
    std::size_t index = 0;
    for (std::size_t at = 0; at < stream.size(); ++index) {
        if (stream.size() - at < sizeof(dep_gen_record))
            throw_output_error({"malformed dep_gen record stream: record ", index, " (byte ", at, "): only ",
                                stream.size() - at, " bytes left, a record header takes ", sizeof(dep_gen_record)});
        dep_gen_record h;
        std::memcpy(&h, stream.data() + at, sizeof h);
        if (h.tensor_count > max_task_tensors)
            malformed_dep_gen(index, at, h.task_id, {"tensor_count ", h.tensor_count, " is above ", max_task_tensors});
        if (h.view_count > h.tensor_count)
            malformed_dep_gen(index, at, h.task_id,
                              {"view_count ", h.view_count, " is above its tensor_count ", h.tensor_count});
        const std::size_t bytes = sizeof(dep_gen_record) + h.packed_payload_bytes();
        if (h.packed_payload_bytes() > dep_gen_max_payload || bytes > stream.size() - at)
            malformed_dep_gen(index, at, h.task_id,
                              {"its payload of ", h.packed_payload_bytes(), " bytes runs past the stream's end (",
                               stream.size() - at - sizeof(dep_gen_record), " bytes left)"});
        const std::byte* record = stream.data() + at;
        if (h.kind == dep_gen_kind::submit) {
            if (awaiting_deps)
                malformed_dep_gen(index, at, h.task_id,
                                  {"a submit record while task ", open.task_id, " still expects a deps record"});
            open = dep_gen_submit{};
            open.task_id = h.task_id;
            open.task.flags = h.flags;
            open.task.tensor_count = h.tensor_count;
            for (int k = 0; k < 3; ++k) open.task.kernel_ids[k] = h.kernel_ids[k];
            open.task.block_num = h.block_num;
            read_dep_gen_arguments(index, at, record, h, open);
        } else if (h.kind == dep_gen_kind::deps) {
            if (!awaiting_deps) malformed_dep_gen(index, at, h.task_id, {"deps record without a submit that expects it"});
            if (h.task_id != open.task_id)
                malformed_dep_gen(index, at, h.task_id, {"deps record of another task while task ", open.task_id,
                                                         " expects its deps"});
            if (h.tensor_count != 0) malformed_dep_gen(index, at, h.task_id, {"deps record with tensors"});
        } else {
            malformed_dep_gen(index, at, h.task_id, {"unknown record kind ", static_cast<unsigned>(h.kind)});
        }
        const std::size_t deps_before = open.explicit_deps.size();
        open.explicit_deps.resize(deps_before + h.dep_count);
        if (h.dep_count > 0)
            std::memcpy(open.explicit_deps.data() + deps_before, record + h.deps_offset(), std::size_t{h.dep_count} * 8u);
        open.task.dep_count = static_cast<std::uint32_t>(open.explicit_deps.size());
        awaiting_deps = h.more_deps != 0;
        at += (bytes + 7) / 8 * 8;
        if (!awaiting_deps) emit(context, open);
    }
    if (awaiting_deps)
        throw_output_error({"malformed dep_gen record stream: the stream ends inside task ", open.task_id,
                            ", which expects another deps record (", open.explicit_deps.size(), " deps so far)"});
}

}  // namespace detail

// Every submit of the stream, in order. Throws output_error on any
// structural defect (see the file comment).
inline std::vector<dep_gen_submit> read_dep_gen_submits(std::span<const std::byte> stream) {
    std::vector<dep_gen_submit> submits;
    detail::read_dep_gen_stream(
        stream, [](void* to, dep_gen_submit& s) { static_cast<std::vector<dep_gen_submit>*>(to)->push_back(std::move(s)); },
        &submits);
    return submits;
}

}  // namespace dfx
