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

    // One record per submit (record/dep_gen_records.hpp), written once in
    // place in one pass: claimed for the most it can take (every argument
    // with a view), committed at what it took. Dependencies beyond what one
    // slot holds go on in deps records (rare: over 150 of them).
    task_token capture_submit(const submit_capture& s) noexcept {
        const std::uint32_t tensors =
            static_cast<std::uint32_t>(s.args.size() < max_task_tensors ? s.args.size() : max_task_tensors);
        const std::uint32_t types = dep_gen_record::types_bytes(tensors);
        const std::size_t all_deps = s.explicit_deps.size();
        const std::uint32_t room = (dep_gen_max_payload - types - tensors * std::uint32_t{sizeof(tensor_view)}) / 8u;
        const std::uint32_t deps = all_deps < room ? static_cast<std::uint32_t>(all_deps) : room;
        const std::uint32_t most = types + tensors * std::uint32_t{sizeof(tensor_view)} + deps * 8u;
        if constexpr (packed_sink<Sink, dep_gen_record>) {
            if (dep_gen_record* r = sink_->template claim<dep_gen_record>(most))
                sink_->template commit<dep_gen_record>(write(*r, s, tensors, deps, all_deps));
        } else {
            alignas(64) unsigned char slot[dep_gen_record::packed_slot_bytes];
            dep_gen_record* r = ::new (static_cast<void*>(slot)) dep_gen_record;
            write(*r, s, tensors, deps, all_deps);
            sink_->push(*r);
        }
        if (deps < all_deps) [[unlikely]] more_deps(s, deps);
        return {s.task_id};
    }

private:
    // Writes the submit record in place; returns its payload bytes. Every
    // input is read into a local first: the stores go through byte
    // pointers, which the compiler must assume alias `s`.
    [[gnu::always_inline]] static std::uint32_t write(dep_gen_record& r, const submit_capture& s, std::uint32_t tensors,
                                                      std::uint32_t deps, std::size_t all_deps) noexcept {
        const submit_arg* const args = s.args.data();
        const std::uint64_t* const dep_ids = s.explicit_deps.data();
        const std::uint32_t block_num = s.block_num > 0 ? s.block_num : 1;
        const auto flags = static_cast<std::uint8_t>((s.manual_scope ? dep_gen_in_manual_scope : 0u) |
                                                     (s.early_dispatch ? dep_gen_early_dispatch : 0u));
        const std::array<std::int32_t, 3> kernels = s.kernel_ids;
        r.task_id = s.task_id;
        r.kernel_ids[0] = kernels[0];
        r.kernel_ids[1] = kernels[1];
        r.kernel_ids[2] = kernels[2];
        r.block_num = block_num;
        r.dep_count = static_cast<std::uint16_t>(deps);
        r.tensor_count = static_cast<std::uint8_t>(tensors);
        r.flags = flags;
        r.kind = dep_gen_kind::submit;
        r.more_deps = deps < all_deps ? 1 : 0;
        r.reserved = 0;
        std::byte* const types = reinterpret_cast<std::byte*>(&r) + dep_gen_record::types_offset();
        const std::uint32_t types_bytes = dep_gen_record::types_bytes(tensors);
        for (std::uint32_t k = 0; k < types_bytes; k += 8) std::memset(types + k, 0, 8);  // the padding too
        std::byte* at = types + types_bytes;
        std::uint32_t views = 0;
        for (std::uint32_t i = 0; i < tensors; ++i) {
            const arg_type type = args[i].type;
            const tensor_view* const view = args[i].view;
            const bool has = type != arg_type::output && view != nullptr;
            types[i] = static_cast<std::byte>(static_cast<std::uint8_t>(type) | (has ? dep_gen_arg_has_view : 0u));
            if (has) {
                std::memcpy(at, view, sizeof(tensor_view));
                at += sizeof(tensor_view);
                ++views;
            }
        }
        r.view_count = static_cast<std::uint8_t>(views);
        for (std::uint32_t k = 0; k < deps; ++k) std::memcpy(at + std::size_t{k} * 8u, dep_ids + k, 8);
        return types_bytes + views * std::uint32_t{sizeof(tensor_view)} + deps * 8u;
    }

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
