// What dep_gen captures per submit: one dense, variable-length transport
// record per submit (a packed record, transport/packed_records.hpp), holding
// only what the host cannot derive later.
//
//   dep_gen_record (32 bytes)           the task: id, kernels, block_num, flags, counts
//   tensor_count x std::uint8_t         each argument's type | dep_gen_arg_has_view,
//                                       padded to 8 bytes
//   view_count x tensor_view (88 B)     the views of the arguments that have one (not OUTPUT)
//   dep_count x std::uint64_t           explicit dependencies, in declaration order
//
// The types come first so the producer writes the record in one pass: it
// claims room for every argument having a view, writes each type and view
// as it meets them and commits what it wrote (view_count is known at the end).
// A submit whose explicit dependencies do not all fit one slot (4 KiB) sets
// `more_deps` and goes on in `more_deps` records of the same task (kind
// deps: no tensors, only the next deps), so no edge is ever cut. The
// orchestrator writes a submit's records in that order and the transport
// keeps the order. A submit with a record missing (a drop) cannot be
// replayed, which is why the host refuses to write deps.json after any loss.
//
// The header has no default member initialisers on purpose: the producer
// claims its slot and writes every byte once (no default initialisation in
// the slot, then the fields); build one off the transport with `{}`.
#pragma once

#include <cstddef>
#include <cstdint>

#include "dfx/record/tensor_view.hpp"

namespace dfx {

enum class dep_gen_kind : std::uint8_t { submit = 0, deps = 1 };

// The reference's DepGenRecord flag bits.
inline constexpr std::uint8_t dep_gen_in_manual_scope = 1u << 0;
inline constexpr std::uint8_t dep_gen_early_dispatch = 1u << 4;

// An argument's type byte: the arg_type code, and this bit when its view follows.
inline constexpr std::uint8_t dep_gen_arg_has_view = 0x80;

inline constexpr int max_task_tensors = 32;

struct dep_gen_record {
    std::uint64_t task_id;           // (ring << 32) | local id
    std::int32_t kernel_ids[3];      // {aic, aiv0, aiv1}; -1 = inactive
    std::uint32_t block_num;         // > 1 = SPMD
    std::uint16_t dep_count;         // explicit deps in this record's payload
    std::uint8_t tensor_count;       // arguments (type bytes) in this record; 0 in a deps record
    std::uint8_t view_count;         // views in this record (arguments with has_view)
    std::uint8_t flags;              // dep_gen_in_manual_scope | dep_gen_early_dispatch
    dep_gen_kind kind;
    std::uint8_t more_deps;          // 1: a deps record of the same task follows with the next deps
    std::uint8_t reserved;

    // A packed record of the transport (transport/packed_records.hpp).
    static constexpr std::uint32_t packed_slot_bytes = 4096;
    std::uint32_t packed_payload_bytes() const noexcept {
        return types_bytes(tensor_count) + std::uint32_t{view_count} * sizeof(tensor_view) + std::uint32_t{dep_count} * 8u;
    }
    // Where each part of the payload starts, from the record's first byte.
    static constexpr std::uint32_t types_offset() noexcept { return 32; }
    std::uint32_t views_offset() const noexcept { return types_offset() + types_bytes(tensor_count); }
    std::uint32_t deps_offset() const noexcept { return views_offset() + std::uint32_t{view_count} * sizeof(tensor_view); }
    // The type bytes of `tensors` arguments, padded so the views stay 8-byte aligned.
    static constexpr std::uint32_t types_bytes(std::uint32_t tensors) noexcept { return (tensors + 7u) & ~7u; }
};
static_assert(sizeof(dep_gen_record) == 32);

// Payload bytes a record can hold at most.
inline constexpr std::uint32_t dep_gen_max_payload = dep_gen_record::packed_slot_bytes - sizeof(dep_gen_record);
// Explicit deps a deps record (no tensors) holds at most.
inline constexpr std::uint32_t dep_gen_deps_per_record = dep_gen_max_payload / 8;
// The largest submit record's tensors leave room for this many deps, so
// every submit record carries at least its first ones.
static_assert(dep_gen_max_payload >= dep_gen_record::types_bytes(max_task_tensors) + max_task_tensors * sizeof(tensor_view) + 8);

// How the host holds a submit's argument once read back (output/dep_gen_stream.hpp).
struct dep_gen_tensor_part {
    std::uint8_t index = 0;               // argument index
    arg_type type = arg_type::input;
    bool has_view = false;                // false for OUTPUT (no buffer yet)
    tensor_view view{};                   // zero when !has_view
};

// How the host holds a submit's task fields once read back.
struct dep_gen_task_part {
    std::uint8_t flags = 0;
    std::uint16_t tensor_count = 0;
    std::uint32_t dep_count = 0;          // explicit deps over all the submit's records
    std::int32_t kernel_ids[3] = {-1, -1, -1};
    std::uint32_t block_num = 1;
};

}  // namespace dfx
