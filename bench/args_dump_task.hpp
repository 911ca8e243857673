// The task the args dump's per-task benchmarks run, written once for
// bench/args_dump_bench.cpp (timed) and bench/args_dump_ir.cpp (callgrind):
//
//   bench::args_dump::dump_task t;           4 inputs and 1 output of 256 B, input 1 marked
//   bench::args_dump::dispatch_work w;       the scheduler's uninstrumented work
//   bench::args_dump::floor_capture<Level>(arena, t, task);   the floor's copies, before dispatch
//   w.dispatch(task);
//   bench::args_dump::floor_complete<Level>(arena, t, task);  ...and after completion
//
// One task per iteration: before_dispatch, the register write,
// after_completion. The floor (bench/floor.hpp) is what a capture must copy:
// each captured tensor's bytes and its 128-byte metadata record (level 1:
// the marked input, 256 + 128 B; level 2: every tensor, 5 x (256 + 128) B).
#pragma once

#include <benchmark/benchmark.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "dfx/collect.hpp"
#include "floor.hpp"

namespace bench::args_dump {

template <int Level>
using dump_guards = typename dfx::collectors<dfx::swimlane_level<0>, dfx::dump_level<Level>>::scheduler;
template <int Level>
using dump_sink = dfx::scheduler_sink<dump_guards<Level>, dfx::block<>>;
template <int Level>
using dump_view = dfx::scheduler_view<dump_guards<Level>, dfx::tsc_clock, dump_sink<Level>>;

inline constexpr std::uint64_t tensor_bytes = 256;
inline constexpr std::array<std::int32_t, 3> kernels{-1, 0, -1};

inline dfx::tensor_view bytes_view(const std::vector<std::uint8_t>& data) {
    dfx::tensor_view v;
    v.addr = reinterpret_cast<std::uintptr_t>(data.data());
    v.dtype = static_cast<std::uint8_t>(dfx::dtype::uint8);
    v.ndims = 1;
    v.shape[0] = static_cast<std::uint32_t>(data.size());
    v.strides[0] = 1;
    return v;
}

// One task's arguments: 4 inputs and 1 output, input 1 marked for level 1.
struct dump_task {
    std::vector<std::vector<std::uint8_t>> data;
    std::array<dfx::tensor_view, 5> views;
    dfx::task_args<> args;

    dump_task() : data(5, std::vector<std::uint8_t>(tensor_bytes, 7)) {
        for (std::size_t i = 0; i < views.size(); ++i) views[i] = bytes_view(data[i]);
        for (std::size_t i = 0; i < 4; ++i) args.add_input(views[i]);
        args.add_output(views[4]);
        args.dump(views[1]);
    }

    // Payload bytes per task captured at a level: the marked input at 1;
    // the 4 inputs before dispatch and the output after completion at 2.
    static constexpr std::uint64_t bytes_at(int level) { return level == 2 ? 5 * tensor_bytes : level == 1 ? tensor_bytes : 0; }
    // Channel bytes of the call records per task at a level (record/args_call_record.hpp,
    // each on whole cache lines): 32 + 4 x 24 -> 128 and 32 + 24 -> 64 at 2; 64 at 1.
    static constexpr std::uint64_t call_record_bytes_at(int level) { return level == 2 ? 192 : level == 1 ? 64 : 0; }
};

// The scheduler's dispatch without DFX: write the core's register. Every
// variant does exactly this.
struct dispatch_work {
    std::uint32_t reg[8] = {};
    void dispatch(std::uint64_t task) {
        reg[task & 7] = static_cast<std::uint32_t>(task);
        benchmark::DoNotOptimize(reg);
    }
};

// The floor of one capture call: what the host cannot derive, the call
// record (record/args_call_record.hpp: a 32-byte header and a 24-byte entry
// per one-dimensional tensor), and each captured tensor's bytes, copied once.
template <std::size_t Tensors, class Arena>
void floor_call(Arena& arena, const dump_task& t, std::uint64_t task, const std::size_t (&slots)[Tensors]) {
    struct entry {
        std::uint64_t head;
        std::uint64_t size;
        std::uint32_t shape;
        std::uint32_t stride;
    };
    struct call_bytes {
        std::uint64_t task_id;
        std::uint64_t batch;
        std::int32_t kernel_ids[3];
        std::uint32_t size;
        entry entries[Tensors];
    };
    static_assert(sizeof(call_bytes) == 32 + 24 * Tensors);
    call_bytes c;
    c.task_id = task;
    c.batch = task;
    c.kernel_ids[0] = kernels[0];
    c.kernel_ids[1] = kernels[1];
    c.kernel_ids[2] = kernels[2];
    c.size = static_cast<std::uint32_t>(24 * Tensors);
    for (std::size_t k = 0; k < Tensors; ++k)
        c.entries[k] = {slots[k] | std::uint64_t{1} << 8 | std::uint64_t{1} << 24, tensor_bytes,
                        static_cast<std::uint32_t>(tensor_bytes), 1};
    arena.put(c);
    for (std::size_t k = 0; k < Tensors; ++k) std::memcpy(arena.take(tensor_bytes), t.data[slots[k]].data(), tensor_bytes);
    benchmark::ClobberMemory();
}
// The least a capture call of this design writes for the benchmark's task:
// the call record and the chunk the capture writes (the same bytes), claimed
// at their known sizes and filled field by field, without the general
// capture's decisions (marks and stage masks, each view's layout and size,
// truncation, scalars, the chunking of large batches). What the capture
// costs over this is its generality; what this costs over the floor is the
// transport's two claims and commits, the chunk's header and the second
// stream of lines (docs/hot-paths.md).
template <std::size_t Tensors, class Sink>
void minimal_call(Sink& sink, const dump_task& t, std::uint64_t task, const std::size_t (&slots)[Tensors],
                  dfx::dump_stage stage) {
    constexpr std::uint32_t entry_bytes = 24 * Tensors;
    constexpr std::uint32_t bytes = Tensors * tensor_bytes;
    const std::uint64_t batch = sink.template produced<dfx::args_payload_chunk>();
    dfx::args_call_record* const call = sink.template claim<dfx::args_call_record>(entry_bytes);
    if (call) {
        call->task_id = task;
        call->payload_batch = batch;
        call->kernel_ids[0] = kernels[0];
        call->kernel_ids[1] = kernels[1];
        call->kernel_ids[2] = kernels[2];
        call->size = entry_bytes;
        std::byte* at = dfx::packed_payload(call);
        for (std::size_t k = 0; k < Tensors; ++k) {
            // head: arg index, bits (role, contiguous), dtype, ndims 1, stage; then the
            // bytes captured; then shape[0] and strides[0] (record/args_call_record.hpp)
            const std::uint64_t role = static_cast<std::uint64_t>(t.args.role(static_cast<int>(slots[k])));
            const std::uint64_t words[3] = {
                slots[k] | (role | dfx::args_entry_contiguous) << 8 |
                    std::uint64_t{static_cast<std::uint8_t>(dfx::dtype::uint8)} << 16 | std::uint64_t{1} << 24 |
                    std::uint64_t{static_cast<std::uint8_t>(stage)} << 32,
                tensor_bytes, tensor_bytes | std::uint64_t{1} << 32};
            std::memcpy(at, words, sizeof words);
            at += sizeof words;
        }
    }
    dfx::args_payload_chunk* const chunk = sink.template claim<dfx::args_payload_chunk>(bytes, [&] {
        return dfx::args_payload_chunk{.batch = batch, .batch_size = bytes, .offset = 0, .size = bytes, .reserved = {}};
    });
    if (chunk) {
        for (std::size_t k = 0; k < Tensors; ++k)
            std::memcpy(chunk->data() + k * tensor_bytes, t.data[slots[k]].data(), tensor_bytes);
        sink.template commit<dfx::args_payload_chunk>(bytes);
    }
    if (call) sink.template commit<dfx::args_call_record>(entry_bytes);
}
// What the minimal calls write per task: the level's captures, before dispatch...
template <int Level, class Sink>
void minimal_capture(Sink& sink, const dump_task& t, std::uint64_t task) {
    static_assert(Level == 1 || Level == 2);
    if constexpr (Level == 1) {
        minimal_call(sink, t, task, {1}, dfx::dump_stage::before_dispatch);
    } else {
        minimal_call(sink, t, task, {0, 1, 2, 3}, dfx::dump_stage::before_dispatch);
    }
}
// ...and after completion.
template <int Level, class Sink>
void minimal_complete(Sink& sink, const dump_task& t, std::uint64_t task) {
    if constexpr (Level == 2) minimal_call(sink, t, task, {4}, dfx::dump_stage::after_completion);
}

// What the floor copies before dispatch (level 1: the marked input; level 2: the 4 inputs)...
template <int Level, class Arena>
void floor_capture(Arena& arena, const dump_task& t, std::uint64_t task) {
    static_assert(Level == 1 || Level == 2);
    if constexpr (Level == 1) {
        floor_call(arena, t, task, {1});
    } else {
        floor_call(arena, t, task, {0, 1, 2, 3});
    }
}
// ...and after completion (level 2: the output).
template <int Level, class Arena>
void floor_complete(Arena& arena, const dump_task& t, std::uint64_t task) {
    if constexpr (Level == 2) floor_call(arena, t, task, {4});
}

}  // namespace bench::args_dump
