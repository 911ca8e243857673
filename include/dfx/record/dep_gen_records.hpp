// What dep_gen captures per submit, as fixed-size transport records.
//
// A submit is one `task` part, then one `tensor` part per argument (in index
// order), then as many `deps` parts as its explicit dependencies need (14 per
// part). One producer (the orchestrator) writes them in that order and the
// transport keeps the order, so the host reads a submit back as a run of
// parts. A submit with any part missing (a drop) cannot be replayed, which
// is why the host refuses to write deps.json after any loss.
#pragma once

#include <cstdint>

#include "dfx/record/tensor_view.hpp"

namespace dfx {

enum class dep_gen_part : std::uint8_t { task = 0, tensor = 1, deps = 2 };

// The reference's DepGenRecord flag bits.
inline constexpr std::uint32_t dep_gen_in_manual_scope = 1u << 0;
inline constexpr std::uint32_t dep_gen_early_dispatch = 1u << 4;

inline constexpr int dep_gen_deps_per_part = 14;
inline constexpr int max_task_tensors = 32;

struct dep_gen_task_part {
    std::uint32_t flags = 0;
    std::uint16_t tensor_count = 0;       // tensor parts that follow
    std::uint16_t reserved = 0;
    std::uint32_t dep_count = 0;          // explicit deps in the deps parts that follow
    std::int32_t kernel_ids[3] = {-1, -1, -1};  // {aic, aiv0, aiv1}; -1 = inactive
    std::uint32_t block_num = 1;
};

struct dep_gen_tensor_part {
    std::uint8_t index = 0;               // argument index
    arg_type type = arg_type::input;
    bool has_view = false;                // false for OUTPUT (no buffer yet)
    std::uint8_t reserved[5] = {};
    tensor_view view{};
};

struct dep_gen_deps_part {
    std::uint64_t deps[dep_gen_deps_per_part] = {};  // producer task ids, in declaration order
};

struct dep_gen_record {
    std::uint64_t task_id = 0;            // (ring << 32) | local id
    dep_gen_part part = dep_gen_part::task;
    std::uint8_t count = 0;               // deps part: entries used
    std::uint8_t reserved[6] = {};
    union {
        dep_gen_task_part task;
        dep_gen_tensor_part tensor;
        dep_gen_deps_part deps;
    };

    dep_gen_record() noexcept : task() {}
};
static_assert(sizeof(dep_gen_record) == 128);

}  // namespace dfx
