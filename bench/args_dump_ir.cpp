// Instructions per task of the args dump capture, exactly, under callgrind:
// the same task as args_dump_bench's BM_scheduler_args_dump_* (4 inputs and
// 1 output of 256 B, input 1 marked; before_dispatch, the register write,
// after_completion; task, dispatch and floor from bench/args_dump_task.hpp,
// shared with args_dump_bench), on channels that hold the whole run (the producer never
// waits), with only the task loop instrumented.
//
//   args_dump_ir MODE TASKS      MODE: plain | floor1 | floor2 | dump1 | dump2 | minimal1 | minimal2
//   valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=OUT args_dump_ir dump1 20000
//   callgrind_annotate OUT | grep 'PROGRAM TOTALS'
//
// Run each mode at two task counts: (Ir(2N) - Ir(N)) / N is the cost of one
// task, with whatever a run pays once (the first buffer) taken out. Not part
// of the build: compile it against the headers to measure (docs/hot-paths.md),
//   g++ -std=c++20 -O3 -DNDEBUG -Iinclude -Ibench bench/args_dump_ir.cpp -o args_dump_ir -lbenchmark -lpthread
// so old and new headers can be measured with the same source.
#include <benchmark/benchmark.h>
#include <valgrind/callgrind.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <unistd.h>

#include "args_dump_task.hpp"
#include "dfx/collect.hpp"
#include "dfx/output/args_dump_host.hpp"
#include "floor.hpp"

namespace {

using namespace bench::args_dump;

void plain(std::uint64_t tasks) {
    dispatch_work w;
    CALLGRIND_START_INSTRUMENTATION;
    for (std::uint64_t task = 1; task <= tasks; ++task) w.dispatch(task);
    CALLGRIND_STOP_INSTRUMENTATION;
}

template <int Level>
void floor(std::uint64_t tasks) {
    auto arena = std::make_unique<bench::floor_arena>();
    dump_task t;
    dispatch_work w;
    CALLGRIND_START_INSTRUMENTATION;
    for (std::uint64_t task = 1; task <= tasks; ++task) {
        floor_capture<Level>(*arena, t, task);
        w.dispatch(task);
        floor_complete<Level>(*arena, t, task);
    }
    CALLGRIND_STOP_INSTRUMENTATION;
}

// The real host, its channels big enough for the whole run, started after the loop.
// Minimal = true: args_dump_task.hpp's minimal_call in place of the capture
// (the same bytes; args_dump_bench's BM_scheduler_args_dump_minimal checks it).
template <int Level, bool Minimal = false>
int dump(std::uint64_t tasks) {
    const auto dir = std::filesystem::temp_directory_path() / ("dfx_args_dump_ir_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    dfx::args_dump_layout layout;
    const std::uint64_t chunks = tasks * (Level == 2 ? 2 : 1);
    const std::uint64_t call_bytes = tasks * dump_task::call_record_bytes_at(Level);
    layout.records = {static_cast<std::uint32_t>(call_bytes / (1024 * dfx::args_call_record::packed_slot_bytes) + 2), 1024};
    layout.payload = {static_cast<std::uint32_t>(chunks / 1024 + 2), 1024};
    dump_task t;
    dispatch_work w;
    std::uint64_t written = 0;
    {
        dfx::channel_registry channels;
        dfx::args_dump_host<dfx::host_memory> host(Level, dir, layout, channels);
        {
            auto sink = channels.sink<dump_sink<Level>>(0);
            dump_view<Level> view{&sink};
            CALLGRIND_START_INSTRUMENTATION;
            for (std::uint64_t task = 1; task <= tasks; ++task) {
                if constexpr (Minimal) {
                    minimal_capture<Level>(sink, t, task);
                    w.dispatch(task);
                    minimal_complete<Level>(sink, t, task);
                } else {
                    view.before_dispatch(task, kernels, t.args);
                    w.dispatch(task);
                    view.after_completion(task, kernels, t.args);
                }
            }
            CALLGRIND_STOP_INSTRUMENTATION;
        }
        host.start();
        host.stop();
        written = host.payload_bytes_written();
        for (const auto& c : host.report())
            if (c.dropped != 0 || !c.balanced()) {
                std::fprintf(stderr, "args_dump_ir: %s dropped %llu\n", c.name.c_str(),
                             static_cast<unsigned long long>(c.dropped));
                return 1;
            }
    }
    std::filesystem::remove_all(dir);
    const std::uint64_t expected = tasks * dump_task::bytes_at(Level);
    if (written != expected) {
        std::fprintf(stderr, "args_dump_ir: %llu payload bytes written, expected %llu\n",
                     static_cast<unsigned long long>(written), static_cast<unsigned long long>(expected));
        return 1;
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: args_dump_ir plain|floor1|floor2|dump1|dump2|minimal1|minimal2 TASKS\n");
        return 2;
    }
    const std::string mode = argv[1];
    char* end = nullptr;
    const unsigned long long tasks = std::strtoull(argv[2], &end, 10);
    if (!end || *end != '\0' || tasks == 0 || tasks > 10'000'000) {
        std::fprintf(stderr, "args_dump_ir: TASKS: a count in [1, 10^7] expected, got '%s'\n", argv[2]);
        return 2;
    }
    if (mode == "plain") plain(tasks);
    else if (mode == "floor1") floor<1>(tasks);
    else if (mode == "floor2") floor<2>(tasks);
    else if (mode == "dump1") return dump<1>(tasks);
    else if (mode == "dump2") return dump<2>(tasks);
    else if (mode == "minimal1") return dump<1, true>(tasks);
    else if (mode == "minimal2") return dump<2, true>(tasks);
    else {
        std::fprintf(stderr, "args_dump_ir: MODE: plain, floor1, floor2, dump1, dump2, minimal1 or minimal2 expected, got '%s'\n", argv[1]);
        return 2;
    }
    return 0;
}
