// dep_gen on the orchestrator: one capture per submit, recorded as a task
// part, one tensor part per argument and as many deps parts as the explicit
// dependencies need (record/dep_gen_records.hpp), so no edge is ever cut.
#pragma once

#include <array>
#include <cstdint>
#include <new>
#include <span>

#include "dfx/collect/sink.hpp"
#include "dfx/record/dep_gen_records.hpp"

namespace dfx {

struct submit_arg {
    arg_type type = arg_type::input;
    // Null for OUTPUT (the runtime allocates it at submit); required for every
    // other type: the replay refuses a stream with a viewless input rather
    // than invent edges.
    const tensor_view* view = nullptr;
};

// What joins a task's timing records with its node in deps.json: the
// orchestrator's capture_submit() returns it, the worker's received() takes
// it. Carry it with the task from submit to run, and the two cannot disagree.
// (A runtime without dep_gen makes one itself: dfx::task_token{id}.)
struct task_token {
    std::uint64_t value = 0;
};

struct submit_capture {
    std::uint64_t task_id = 0;
    bool manual_scope = false;
    bool early_dispatch = false;
    std::array<std::int32_t, 3> kernel_ids{-1, -1, -1};  // {aic, aiv0, aiv1}; all -1 = a dummy task
    std::uint32_t block_num = 1;                          // > 1 = SPMD
    std::span<const submit_arg> args{};                   // at most max_task_tensors are kept
    std::span<const std::uint64_t> explicit_deps{};
};

namespace detail {

template <bool On, class Sink>
class dep_gen_capture {
public:
    constexpr explicit dep_gen_capture(Sink*) noexcept {}
    task_token capture_submit(const submit_capture& s) noexcept { return {s.task_id}; }
};

template <class Sink>
class dep_gen_capture<true, Sink> {
    static_assert(record_sink<Sink, dep_gen_record>,
                  "dfx::orchestrator_view: the sink must accept dep_gen_record with a noexcept push");

public:
    constexpr explicit dep_gen_capture(Sink* sink) noexcept : sink_(sink) {}

    // Each part is written in place in the channel's slot (emit_record,
    // collect/sink.hpp): no 128-byte record built on the stack and copied.
    task_token capture_submit(const submit_capture& s) noexcept {
        const std::size_t tensors = s.args.size() < max_task_tensors ? s.args.size() : max_task_tensors;
        emit_record<dep_gen_record>(*sink_, [&](dep_gen_record& r) {
            r.task_id = s.task_id;
            r.part = dep_gen_part::task;
            r.task.flags = (s.manual_scope ? dep_gen_in_manual_scope : 0u) | (s.early_dispatch ? dep_gen_early_dispatch : 0u);
            r.task.tensor_count = static_cast<std::uint16_t>(tensors);
            r.task.dep_count = static_cast<std::uint32_t>(s.explicit_deps.size());
            for (int k = 0; k < 3; ++k) r.task.kernel_ids[k] = s.kernel_ids[static_cast<std::size_t>(k)];
            r.task.block_num = s.block_num > 0 ? s.block_num : 1;
        });
        for (std::size_t i = 0; i < tensors; ++i) {
            const submit_arg& arg = s.args[i];
            emit_record<dep_gen_record>(*sink_, [&](dep_gen_record& t) {
                t.task_id = s.task_id;
                t.part = dep_gen_part::tensor;
                // The part built where it lies (not zeroed, then filled).
                const bool has_view = arg.type != arg_type::output && arg.view != nullptr;
                ::new (static_cast<void*>(&t.tensor)) dep_gen_tensor_part{
                    static_cast<std::uint8_t>(i), arg.type, has_view, {}, has_view ? *arg.view : tensor_view{}};
            });
        }
        for (std::size_t first = 0; first < s.explicit_deps.size(); first += dep_gen_deps_per_part) {
            emit_record<dep_gen_record>(*sink_, [&](dep_gen_record& d) {
                d.task_id = s.task_id;
                d.part = dep_gen_part::deps;
                d.deps = dep_gen_deps_part{};
                std::size_t n = s.explicit_deps.size() - first;
                if (n > dep_gen_deps_per_part) n = dep_gen_deps_per_part;
                d.count = static_cast<std::uint8_t>(n);
                for (std::size_t k = 0; k < n; ++k) d.deps.deps[k] = s.explicit_deps[first + k];
            });
        }
        return {s.task_id};
    }

private:
    Sink* sink_;
};

}  // namespace detail
}  // namespace dfx
