// Instructions per task of the dep_gen capture, exactly, under callgrind:
// the same submit as orchestrator_bench's BM_orchestrator_dep_gen_* (3
// tensors, 1 explicit dep; the descriptor published, then the capture), on
// a channel that holds the whole run (the producer never waits), with only
// the task loop instrumented.
//
//   dep_gen_ir MODE TASKS      MODE: plain | floor | dep_gen
//   valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=OUT dep_gen_ir dep_gen 20000
//   callgrind_annotate OUT | grep 'PROGRAM TOTALS'
//
// Run each mode at two task counts: (Ir(2N) - Ir(N)) / N is the cost of one
// task, with whatever a run pays once taken out. Not part of the build:
// compile it against the headers to measure (docs/hot-paths.md),
//   g++ -std=c++20 -O3 -DNDEBUG -Iinclude -Ibench bench/dep_gen_ir.cpp -o dep_gen_ir -lbenchmark -lpthread
// so old (fixed 128-byte parts) and new (one packed record) headers can be
// measured with the same source: the channel is sized in bytes, 640 per
// submit, which covers both.
#include <benchmark/benchmark.h>
#include <valgrind/callgrind.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "dfx/collect.hpp"
#include "dfx/output/dep_gen_host.hpp"
#include "floor.hpp"

namespace {

using guards = typename dfx::collectors<dfx::swimlane_level<0>, dfx::dep_gen<true>>::orchestrator;
using sink_type = dfx::orchestrator_sink<guards, dfx::block<>>;
using view_type = dfx::orchestrator_view<guards, dfx::steady_clock_source, sink_type>;

struct task_descriptor {
    std::uint64_t id;
    std::uint64_t args[3];
};

dfx::tensor_view tensor(std::uint64_t addr) {
    dfx::tensor_view v;
    v.addr = addr;
    v.size = 4096;
    v.ndims = 1;
    v.shape[0] = 1024;
    v.strides[0] = 1;
    return v;
}

// orchestrator_bench.cpp's submit_work.
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
};

void plain(std::uint64_t tasks) {
    submit_work w;
    CALLGRIND_START_INSTRUMENTATION;
    for (std::uint64_t id = 1; id <= tasks; ++id) w.publish(id);
    CALLGRIND_STOP_INSTRUMENTATION;
}

// orchestrator_bench.cpp's BM_orchestrator_dep_gen_floor.
void floor(std::uint64_t tasks) {
    auto arena = std::make_unique<bench::floor_arena>();
    submit_work w;
    struct header {
        std::uint64_t task_id;
        std::uint32_t flags, tensor_count, dep_count;
        std::int32_t kernel_ids[3];
        std::uint32_t block_num, reserved;
    };
    CALLGRIND_START_INSTRUMENTATION;
    for (std::uint64_t id = 1; id <= tasks; ++id) {
        w.publish(id);
        const std::uint64_t deps[1] = {id - 1};
        std::byte* out = arena->take(sizeof(header) + 3 * sizeof(dfx::tensor_view) + sizeof deps);
        const header h{id, 0, 3, 1, {-1, 1, -1}, 1, 0};
        std::memcpy(out, &h, sizeof h);
        out += sizeof h;
        for (const dfx::submit_arg& a : w.args) {
            std::memcpy(out, a.view, sizeof(dfx::tensor_view));
            out += sizeof(dfx::tensor_view);
        }
        std::memcpy(out, deps, sizeof deps);
        benchmark::ClobberMemory();
    }
    CALLGRIND_STOP_INSTRUMENTATION;
}

// The real host, its channel big enough for the whole run, started after the loop.
int dep_gen(std::uint64_t tasks) {
    constexpr std::uint64_t record = dfx::channel_record_size<dfx::dep_gen_record>();
    constexpr std::uint64_t buffer_bytes = 128 * 1024;
    const auto per_buffer = static_cast<std::uint32_t>(buffer_bytes / record);
    const auto buffers = static_cast<std::uint32_t>(tasks * 640 / buffer_bytes + 2);
    dfx::channel_registry channels;
    dfx::dep_gen_host<> host(channels, {buffers, per_buffer});
    {
        auto sink = channels.sink<sink_type>(0);
        view_type view{&sink};
        submit_work w;
        CALLGRIND_START_INSTRUMENTATION;
        for (std::uint64_t id = 1; id <= tasks; ++id) {
            w.publish(id);
            const std::uint64_t deps[1] = {id - 1};
            view.capture_submit({.task_id = id, .kernel_ids = {-1, 1, -1}, .args = w.args, .explicit_deps = deps});
        }
        CALLGRIND_STOP_INSTRUMENTATION;
    }
    host.start();
    host.stop();
    const auto r = host.report().front();
    if (r.dropped != 0 || !r.balanced() || r.collected < tasks) {
        std::fprintf(stderr, "dep_gen_ir: %llu records collected, %llu dropped\n",
                     static_cast<unsigned long long>(r.collected), static_cast<unsigned long long>(r.dropped));
        return 1;
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: dep_gen_ir plain|floor|dep_gen TASKS\n");
        return 2;
    }
    const std::string mode = argv[1];
    char* end = nullptr;
    const unsigned long long tasks = std::strtoull(argv[2], &end, 10);
    if (!end || *end != '\0' || tasks == 0 || tasks > 10'000'000) {
        std::fprintf(stderr, "dep_gen_ir: TASKS: a count in [1, 10^7] expected, got '%s'\n", argv[2]);
        return 2;
    }
    if (mode == "plain") plain(tasks);
    else if (mode == "floor") floor(tasks);
    else if (mode == "dep_gen") return dep_gen(tasks);
    else {
        std::fprintf(stderr, "dep_gen_ir: MODE: plain, floor or dep_gen expected, got '%s'\n", argv[1]);
        return 2;
    }
    return 0;
}
