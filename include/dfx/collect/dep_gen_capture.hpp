// dep_gen on the orchestrator: one capture per submit, recorded as one dense
// variable-length record (record/dep_gen_records.hpp: the task, the views it
// has, its explicit deps, the argument types), plus deps records only when
// its dependencies overflow one slot, so no edge is ever cut.
//
//   auto token = view.capture_submit({.task_id = id, .kernel_ids = {...}, .args = args, .explicit_deps = deps});
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <span>

#include "dfx/collect/sink.hpp"
#include "dfx/record/dep_gen_records.hpp"
#include "dfx/transport/packed_records.hpp"

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
    static_assert(packed_sink<Sink, dep_gen_record> || record_sink<Sink, dep_gen_record>,
                  "dfx::orchestrator_view: the sink must claim dep_gen_record in place at its size "
                  "(claim<>(n) / commit<>(n), as dfx::producers does) or accept it with a noexcept push");

public:
    constexpr explicit dep_gen_capture(Sink* sink) noexcept : sink_(sink) {}

    // One record per submit (record/dep_gen_records.hpp), claimed at its size
    // and written once in place: the header, the views of the arguments
    // that have one, the explicit deps, the type bytes. Dependencies beyond
    // what one slot holds go on in deps records (rare: over 150 of them).
    task_token capture_submit(const submit_capture& s) noexcept {
        const std::uint32_t tensors =
            static_cast<std::uint32_t>(s.args.size() < max_task_tensors ? s.args.size() : max_task_tensors);
        std::uint32_t views = 0;
        for (std::uint32_t i = 0; i < tensors; ++i) views += has_view(s.args[i]) ? 1u : 0u;
        const std::size_t all_deps = s.explicit_deps.size();
        const std::uint32_t room = (dep_gen_max_payload - views * std::uint32_t{sizeof(tensor_view)} - tensors) / 8u;
        const std::uint32_t deps = all_deps < room ? static_cast<std::uint32_t>(all_deps) : room;
        const std::uint32_t payload = views * std::uint32_t{sizeof(tensor_view)} + deps * 8u + tensors;
        emit_packed<dep_gen_record>(*sink_, payload, [&](dep_gen_record& r) {
            r.task_id = s.task_id;
            r.kernel_ids[0] = s.kernel_ids[0];
            r.kernel_ids[1] = s.kernel_ids[1];
            r.kernel_ids[2] = s.kernel_ids[2];
            r.block_num = s.block_num > 0 ? s.block_num : 1;
            r.dep_count = static_cast<std::uint16_t>(deps);
            r.tensor_count = static_cast<std::uint8_t>(tensors);
            r.view_count = static_cast<std::uint8_t>(views);
            r.flags = static_cast<std::uint8_t>((s.manual_scope ? dep_gen_in_manual_scope : 0u) |
                                                (s.early_dispatch ? dep_gen_early_dispatch : 0u));
            r.kind = dep_gen_kind::submit;
            r.more_deps = deps < all_deps ? 1 : 0;
            r.reserved = 0;
            std::byte* at = packed_payload(&r);
            std::byte* const types = at + views * std::uint32_t{sizeof(tensor_view)} + deps * 8u;
            for (std::uint32_t i = 0; i < tensors; ++i) {
                const submit_arg& arg = s.args[i];
                const bool view = has_view(arg);
                types[i] = static_cast<std::byte>(static_cast<std::uint8_t>(arg.type) | (view ? dep_gen_arg_has_view : 0u));
                if (view) {
                    std::memcpy(at, arg.view, sizeof(tensor_view));
                    at += sizeof(tensor_view);
                }
            }
            if (deps > 0) std::memcpy(at, s.explicit_deps.data(), std::size_t{deps} * 8u);
        });
        if (deps < all_deps) [[unlikely]] more_deps(s, deps);
        return {s.task_id};
    }

private:
    static bool has_view(const submit_arg& arg) noexcept { return arg.type != arg_type::output && arg.view != nullptr; }

    [[gnu::noinline]] void more_deps(const submit_capture& s, std::size_t first) noexcept {
        const std::size_t all = s.explicit_deps.size();
        while (first < all) {
            const std::uint32_t deps =
                all - first < dep_gen_deps_per_record ? static_cast<std::uint32_t>(all - first) : dep_gen_deps_per_record;
            emit_packed<dep_gen_record>(*sink_, deps * 8u, [&](dep_gen_record& r) {
                r.task_id = s.task_id;
                r.kernel_ids[0] = s.kernel_ids[0];
                r.kernel_ids[1] = s.kernel_ids[1];
                r.kernel_ids[2] = s.kernel_ids[2];
                r.block_num = s.block_num > 0 ? s.block_num : 1;
                r.dep_count = static_cast<std::uint16_t>(deps);
                r.tensor_count = 0;
                r.view_count = 0;
                r.flags = 0;
                r.kind = dep_gen_kind::deps;
                r.more_deps = first + deps < all ? 1 : 0;
                r.reserved = 0;
                std::memcpy(packed_payload(&r), s.explicit_deps.data() + first, std::size_t{deps} * 8u);
            });
            first += deps;
        }
    }

    Sink* sink_;
};

}  // namespace detail
}  // namespace dfx
