// Puts the submits dep_gen captured back together from their record parts
// (record/dep_gen_records.hpp: a `task` part, then `tensor_count` `tensor`
// parts in argument order, then ceil(dep_count/14) `deps` parts, all carrying
// the task id), and refuses a stream that does not have exactly that shape.
//
// Why refuse rather than skip: a submit with a part missing or misplaced
// replays into a graph with edges missing or invented, and deps.json has no
// way to say so. A wrong graph is worse than none, so any defect throws
// output_error naming the record and what is wrong, and no file is written.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "dfx/output/output_error.hpp"
#include "dfx/record/dep_gen_records.hpp"

namespace dfx {

// One submit as the orchestrator captured it.
struct dep_gen_submit {
    std::uint64_t task_id = 0;
    dep_gen_task_part task{};
    std::vector<dep_gen_tensor_part> tensors;  // index order; one per announced tensor
    std::vector<std::uint64_t> explicit_deps;  // declaration order, duplicates kept

    bool complete() const noexcept {
        return tensors.size() == task.tensor_count && explicit_deps.size() == task.dep_count;
    }
};

namespace detail {

inline const char* dep_gen_part_name(dep_gen_part part) noexcept {
    switch (part) {
        case dep_gen_part::task: return "task";
        case dep_gen_part::tensor: return "tensor";
        case dep_gen_part::deps: return "deps";
    }
    return "unknown";
}

// Throws the output_error for record `index`; `what` is the message's tail.
[[noreturn, gnu::cold, gnu::noinline]] inline void malformed_dep_gen(std::size_t index, const dep_gen_record& r,
                                                                    std::initializer_list<message_part> what) {
    std::string tail = message(what);
    throw output_error(message({"malformed dep_gen record stream: record ", index, " (", dep_gen_part_name(r.part),
                                " part, task ", r.task_id, "): ", tail}));
}

[[gnu::cold, gnu::noinline]] inline std::string submit_progress(const dep_gen_submit& s) {
    return message({"task ", s.task_id, " has ", s.tensors.size(), " of ", s.task.tensor_count, " tensor parts and ",
                    s.explicit_deps.size(), " of ", s.task.dep_count, " deps"});
}

inline void check_tensor_part(std::size_t index, const dep_gen_record& r, const dep_gen_submit& s) {
    const dep_gen_tensor_part& t = r.tensor;
    if (t.index >= s.task.tensor_count)
        malformed_dep_gen(index, r, {"tensor index ", t.index, " is beyond the task's tensor_count ", s.task.tensor_count});
    if (t.index != s.tensors.size())
        malformed_dep_gen(index, r, {"tensor index ", t.index, " is out of order: expected index ", s.tensors.size()});
    const auto type = static_cast<std::uint8_t>(t.type);
    if (type > static_cast<std::uint8_t>(arg_type::no_dep))
        malformed_dep_gen(index, r, {"tensor index ", t.index, " has unknown argument type ", type});
    if (t.type == arg_type::output) return;  // no view to check: none exists at submit
    // Only OUTPUT may lack a view. The reference would read a zero-filled
    // blob here, whose owner field reads as task 0: an invented creator edge.
    if (!t.has_view) malformed_dep_gen(index, r, {"tensor index ", t.index, " is not OUTPUT but carries no tensor view"});
    if (t.view.ndims > max_tensor_dims)
        malformed_dep_gen(index, r, {"tensor index ", t.index, " has ndims ", t.view.ndims, ", above ", max_tensor_dims});
}

}  // namespace detail

namespace detail {

// The stream read submit by submit: each submit is handed to
// emit(context, submit) once the next task part, or the end, closes it, and
// only after it has been checked whole. Throws output_error on any
// structural defect (see the file comment). Not a template on what consumes
// the submits, so the replay, which needs one submit at a time, compiles
// neither a second reader nor a vector of every submit.
inline void read_dep_gen_stream(std::span<const dep_gen_record> records, void (*emit)(void*, dep_gen_submit&),
                                void* context) {
    dep_gen_submit open;
    bool any = false;  // whether `open` holds a submit
    for (std::size_t i = 0; i < records.size(); ++i) {
        const dep_gen_record& r = records[i];
        switch (r.part) {
            case dep_gen_part::task: {
                if (any && !open.complete())
                    malformed_dep_gen(i, r, {"the previous submit is incomplete: ", submit_progress(open)});
                if (r.task.tensor_count > max_task_tensors)
                    malformed_dep_gen(i, r, {"tensor_count ", r.task.tensor_count, " is above ", max_task_tensors});
                if (any) emit(context, open);
                open = dep_gen_submit{};
                open.task_id = r.task_id;
                open.task = r.task;
                open.tensors.reserve(r.task.tensor_count);  // at most 32; dep_count is not trusted for sizing
                any = true;
                break;
            }
            case dep_gen_part::tensor:
            case dep_gen_part::deps: {
                if (!any || (open.complete() && open.task_id != r.task_id))
                    malformed_dep_gen(i, r, {dep_gen_part_name(r.part), " part without a preceding task part"});
                if (open.task_id != r.task_id)
                    malformed_dep_gen(i, r, {"belongs to another task while the open submit is incomplete: ",
                                             submit_progress(open)});
                if (r.part == dep_gen_part::tensor) {
                    check_tensor_part(i, r, open);
                    open.tensors.push_back(r.tensor);
                    break;
                }
                if (open.tensors.size() < open.task.tensor_count)
                    malformed_dep_gen(i, r, {"deps part before all tensor parts: ", submit_progress(open)});
                const std::size_t remaining = open.task.dep_count - open.explicit_deps.size();
                if (remaining == 0)
                    malformed_dep_gen(i, r, {"one deps part more than the task's dep_count ", open.task.dep_count, " needs"});
                const std::size_t expected =
                    remaining < std::size_t{dep_gen_deps_per_part} ? remaining : std::size_t{dep_gen_deps_per_part};
                if (r.count != expected)
                    malformed_dep_gen(i, r, {"deps part holds ", r.count, " deps, expected ", expected, " (",
                                             submit_progress(open), ")"});
                open.explicit_deps.insert(open.explicit_deps.end(), r.deps.deps, r.deps.deps + r.count);
                break;
            }
            default:
                malformed_dep_gen(i, r, {"unknown part kind ", static_cast<unsigned>(r.part)});
        }
    }
    if (!any) return;
    if (!open.complete())
        throw_output_error({"malformed dep_gen record stream: the stream ends inside a submit: ", submit_progress(open)});
    emit(context, open);
}

}  // namespace detail

// Every submit of the stream, in order. Throws output_error on any
// structural defect (see the file comment).
inline std::vector<dep_gen_submit> read_dep_gen_submits(std::span<const dep_gen_record> records) {
    std::vector<dep_gen_submit> submits;
    detail::read_dep_gen_stream(
        records, [](void* to, dep_gen_submit& s) { static_cast<std::vector<dep_gen_submit>*>(to)->push_back(std::move(s)); },
        &submits);
    return submits;
}

}  // namespace dfx
