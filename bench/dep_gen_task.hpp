// The submit the dep_gen benchmarks run, written once for
// bench/orchestrator_bench.cpp (timed) and bench/dep_gen_ir.cpp (callgrind):
//
//   bench::dep_gen::submit_work w;              3 tensors of 4 KiB: 2 inputs, 1 inout
//   w.publish(id);                              the orchestrator's uninstrumented work
//   w.capture(view, id);                        the capture: 1 explicit dep (id - 1)
//   bench::dep_gen::floor_copy(arena, w, id);   the floor: what the host cannot derive, copied once
//
// The floor (bench/floor.hpp) is a 40-byte task header (id, flags, counts,
// kernel ids, block_num), the 3 tensor views (88 B each) and the dependency
// id: 312 B, no clock. Only what both the old and the new dep_gen headers
// have is used, so dep_gen_ir can measure either with this source.
#pragma once

#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "dfx/collect.hpp"
#include "floor.hpp"

namespace bench::dep_gen {

struct task_descriptor {
    std::uint64_t id;
    std::uint64_t args[3];
};

inline dfx::tensor_view tensor(std::uint64_t addr) {
    dfx::tensor_view v;
    v.addr = addr;
    v.size = 4096;
    v.ndims = 1;
    v.shape[0] = 1024;
    v.strides[0] = 1;
    return v;
}

// The submit path of a runtime without DFX: fill the task's descriptor in
// the ring and publish it. Every dep_gen variant does exactly this.
struct submit_work {
    dfx::tensor_view a = tensor(0x1000), b = tensor(0x2000), c = tensor(0x3000);
    dfx::submit_arg args[3] = {{dfx::arg_type::input, &a}, {dfx::arg_type::input, &b}, {dfx::arg_type::inout, &c}};
    task_descriptor ring[64] = {};

    void publish(std::uint64_t id) {
        task_descriptor& d = ring[id & 63];
        d.id = id;
        d.args[0] = a.addr;
        d.args[1] = b.addr;
        d.args[2] = c.addr;
        benchmark::DoNotOptimize(d);
    }

    template <class View>
    void capture(View& view, std::uint64_t id) const {
        const std::uint64_t deps[1] = {id - 1};
        view.capture_submit({.task_id = id, .kernel_ids = {-1, 1, -1}, .args = args, .explicit_deps = deps});
    }
};

struct floor_header {
    std::uint64_t task_id;
    std::uint32_t flags, tensor_count, dep_count;
    std::int32_t kernel_ids[3];
    std::uint32_t block_num, reserved;
};
static_assert(sizeof(floor_header) == 40);

// The dep_gen floor: the bytes of the submit the host cannot derive, copied once.
inline void floor_copy(floor_arena& arena, const submit_work& w, std::uint64_t id) {
    const std::uint64_t deps[1] = {id - 1};
    std::byte* out = arena.take(sizeof(floor_header) + 3 * sizeof(dfx::tensor_view) + sizeof deps);
    const floor_header h{id, 0, 3, 1, {-1, 1, -1}, 1, 0};
    std::memcpy(out, &h, sizeof h);
    out += sizeof h;
    for (const dfx::submit_arg& a : w.args) {
        std::memcpy(out, a.view, sizeof(dfx::tensor_view));
        out += sizeof(dfx::tensor_view);
    }
    std::memcpy(out, deps, sizeof deps);
}

}  // namespace bench::dep_gen
