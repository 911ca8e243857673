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
#include "dep_gen_task.hpp"

namespace {

using guards = typename dfx::collectors<dfx::swimlane_level<0>, dfx::dep_gen<true>>::orchestrator;
using sink_type = dfx::orchestrator_sink<guards, dfx::block<>>;
using view_type = dfx::orchestrator_view<guards, dfx::steady_clock_source, sink_type>;

using bench::dep_gen::submit_work;

void plain(std::uint64_t tasks) {
    submit_work w;
    CALLGRIND_START_INSTRUMENTATION;
    for (std::uint64_t id = 1; id <= tasks; ++id) w.publish(id);
    CALLGRIND_STOP_INSTRUMENTATION;
}

// The floor (bench/dep_gen_task.hpp), as BM_orchestrator_dep_gen_floor runs it.
void floor(std::uint64_t tasks) {
    auto arena = std::make_unique<bench::floor_arena>();
    submit_work w;
    CALLGRIND_START_INSTRUMENTATION;
    for (std::uint64_t id = 1; id <= tasks; ++id) {
        w.publish(id);
        bench::dep_gen::floor_copy(*arena, w, id);
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
            w.capture(view, id);
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
