// Args dump throughput: how fast tensor bytes get from the scheduler's
// capture into args.bin (the page cache), and what a capture costs the
// scheduler.
//
//   BM_dump_drain/<KiB per tensor>/<threads>   end to end: scheduler threads
//       capture contiguous tensors through the view, chunks go through the
//       transport, the host drains them into args.bin. The time runs from the
//       first capture to host.stop() returning (every byte in the file); the
//       rate is payload bytes over that time.
//   BM_drain_only/<chunks per buffer>   the host side alone: collected
//       buffers of chunks written into args.bin, no producer competing for
//       the CPU: the drain's ceiling.
//   BM_capture_small   one task with 4 inputs of 256 B each, per
//       before_dispatch call, with the host draining: the scheduler's cost.
//
// Per-task cost on the scheduler, side by side in one run with the
// uninstrumented dispatch loop and with a runtime-gated twin. A task has 4
// inputs and 1 output of 256 B each (input 1 marked, as in
// `args.dump(in[1])`); per task the scheduler calls before_dispatch, writes
// the core's register, and calls after_completion; the host drains live
// into args.bin. One iteration is one task. Names:
// BM_scheduler_args_dump_{plain, typed<N>, runtime_gated/N}, N the dump
// level (compiled for typed, a run-time int for runtime_gated):
//
//   BM_scheduler_args_dump_plain             the register write alone
//   BM_scheduler_args_dump_typed<0>          + both capture calls, dump compiled off (empty)
//   BM_scheduler_args_dump_typed<1>          level 1: the marked input, 1 call record, 256 B per task
//   BM_scheduler_args_dump_typed<2>          level 2: every tensor, 2 call records, 1280 B per task
//   BM_scheduler_args_dump_runtime_gated/0|1|2   the level-1 and level-2 captures both compiled,
//       chosen per call by `if (dump_level >= 1) { if (dump_level >= 2) ...level 2... else ...level 1... }`
//   BM_scheduler_args_dump_floor<1|2>        the floor (bench/floor.hpp): the register write plus a
//       memcpy of each capture call's record (what the host cannot derive, record/args_call_record.hpp:
//       32 B + 24 B per tensor) and of each captured tensor's bytes (level 1: 56 + 256 B per task;
//       level 2: 128 + 4 x 256 and 56 + 256 B)
//   BM_scheduler_args_dump_floor_run<1|2>    the same copies over the footprint of a run held whole
//       (bench/floor.hpp, run_arena): each byte written once, as no_wait's channels are
//   BM_scheduler_args_dump_no_wait<1|2>      typed<N> on channels that hold the whole run
//       (bench/no_wait_channels.hpp): the capture's own cost, no waiting for the host
//   BM_scheduler_args_dump_minimal<1|2>      the same channels, written by the least capture this
//       design allows for this task (args_dump_task.hpp, minimal_call): the same bytes as no_wait<N>
//       (checked before the loop), without the general capture's decisions
//
// so typed<N> - plain is what the compiled dump costs at level N,
// runtime_gated/N - plain what the reference's shape costs (runtime_gated/0:
// its branches alone). The gated twins read the level from
// `runtime_dump_level`, a volatile global set from the benchmark's argument:
// read at every capture point, as a runtime reads its config, so the
// compiler can neither fold it nor unswitch the loop on it. After each run
// the bytes in args.bin are checked against tasks x bytes per task; a
// mismatch (here or in BM_dump_drain) fails the benchmark and the program
// exits 1, so the bench_smoke test catches it.
//
//   build-bench/bench/args_dump_bench [--benchmark_filter=...] [--dump_dir=DIR]
//   --smoke: tiny sizes, for the bench_smoke test
// args.bin goes to DIR (default: the system temp directory) and is deleted
// after each iteration, so the bytes stay in the page cache.
#include <benchmark/benchmark.h>

#include "args_dump_task.hpp"
#include "checked_run.hpp"
#include "floor.hpp"
#include "no_wait_channels.hpp"

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <new>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "dfx/collect.hpp"
#include "dfx/output/args_bin_stream.hpp"
#include "dfx/output/args_dump_host.hpp"

namespace {

bool smoke = false;
using bench::failed_checks;
std::filesystem::path dump_dir = std::filesystem::temp_directory_path() / "dfx_args_dump_bench";

using set = dfx::collectors<dfx::swimlane_level<0>, dfx::dump_level<2>>;
using guards = set::scheduler;
using sink_type = dfx::scheduler_sink<guards, dfx::block<>>;
using view_type = dfx::scheduler_view<guards, dfx::tsc_clock, sink_type>;

// The per-task benchmarks' task, dispatch and floor (shared with bench/args_dump_ir.cpp).
using bench::args_dump::bytes_view;
using bench::args_dump::dispatch_work;
using bench::args_dump::dump_sink;
using bench::args_dump::dump_task;
using bench::args_dump::dump_view;
using bench::args_dump::kernels;
using bench::args_dump::tensor_bytes;

dfx::args_dump_layout bench_layout(std::uint32_t threads) {
    dfx::args_dump_layout layout;
    layout.scheduler_threads = threads;
    layout.payload = {16, 256};  // 16 MiB in flight per thread
    return layout;
}

void BM_dump_drain(benchmark::State& state) {
    const auto tensor_bytes = static_cast<std::uint64_t>(state.range(0)) * 1024;
    const auto threads = static_cast<std::uint32_t>(state.range(1));
    const std::uint64_t per_thread = (smoke ? 8ULL : 1024ULL) << 20;
    const std::uint64_t tasks = per_thread / tensor_bytes;
    std::vector<std::vector<std::uint8_t>> data(threads);
    for (std::uint32_t t = 0; t < threads; ++t) {
        data[t].resize(tensor_bytes);
        for (std::uint64_t i = 0; i < tensor_bytes; ++i) data[t][i] = static_cast<std::uint8_t>(i * 13 + t);
    }
    std::uint64_t bytes = 0;
    for (auto _ : state) {
        dfx::channel_registry channels;
        dfx::args_dump_host<> host(2, dump_dir, bench_layout(threads), channels);
        host.start();
        const auto start = std::chrono::steady_clock::now();
        std::vector<std::thread> workers;
        for (std::uint32_t t = 0; t < threads; ++t)
            workers.emplace_back([&, t] {
                auto sink = channels.sink<sink_type>(t);
                view_type view{&sink};
                const dfx::tensor_view v = bytes_view(data[t]);
                dfx::task_args<> args;
                args.add_input(v);
                for (std::uint64_t k = 0; k < tasks; ++k) view.before_dispatch((std::uint64_t{t} << 32) | k, kernels, args);
            });
        for (auto& w : workers) w.join();
        host.stop();
        const auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        state.SetIterationTime(seconds);
        const std::uint64_t expected = std::uint64_t{threads} * tasks * tensor_bytes;
        if (host.payload_bytes_written() != expected) {
            ++failed_checks;
            state.SkipWithError("args.bin is missing bytes");
            break;
        }
        bytes += expected;
    }  // the host goes without write(): args.bin is discarded
    state.SetBytesProcessed(static_cast<std::int64_t>(bytes));
}

void BM_drain_only(benchmark::State& state) {
    const auto chunks_per_buffer = static_cast<std::uint32_t>(state.range(0));
    const std::uint64_t buffers = ((smoke ? 8ULL : 2048ULL) << 20) / (std::uint64_t{chunks_per_buffer} * dfx::args_payload_chunk_bytes);
    // One collected buffer of full chunks, packed as the producer writes them.
    constexpr std::uint32_t stride = dfx::packed_stride<dfx::args_payload_chunk>(dfx::args_payload_chunk_bytes);
    std::vector<std::byte> buffer(std::size_t{chunks_per_buffer} * stride);
    std::vector<dfx::args_payload_chunk*> chunks;
    for (std::uint32_t i = 0; i < chunks_per_buffer; ++i) {
        auto* c = ::new (static_cast<void*>(buffer.data() + std::size_t{i} * stride)) dfx::args_payload_chunk{};
        c->batch_size = std::uint64_t{chunks_per_buffer} * dfx::args_payload_chunk_bytes;
        c->offset = std::uint64_t{i} * dfx::args_payload_chunk_bytes;
        c->size = dfx::args_payload_chunk_bytes;
        std::memset(c->data(), 0x5A + static_cast<int>(i), dfx::args_payload_chunk_bytes);
        chunks.push_back(c);
    }
    const dfx::packed_records<dfx::args_payload_chunk> records{buffer.data(), chunks_per_buffer,
                                                               static_cast<std::uint32_t>(buffer.size())};
    std::uint64_t bytes = 0;
    for (auto _ : state) {
        dfx::args_bin_stream bin(dump_dir / "args.bin", 1);
        const auto start = std::chrono::steady_clock::now();
        for (std::uint64_t b = 0; b < buffers; ++b) {
            for (auto* c : chunks) c->batch = b * chunks_per_buffer;  // one batch per buffer, numbered as a producer would
            bin.consume(0, records);
        }
        state.SetIterationTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        if (!bin.error().empty()) {
            state.SkipWithError(bin.error().c_str());
            break;
        }
        bytes += bin.bytes_written();
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(bytes));
}

void BM_capture_small(benchmark::State& state) {
    std::vector<std::vector<std::uint8_t>> data(4, std::vector<std::uint8_t>(256, 7));
    dfx::channel_registry channels;
    dfx::args_dump_host<> host(2, dump_dir, bench_layout(1), channels);
    host.start();
    {
        auto sink = channels.sink<sink_type>(0);
        view_type view{&sink};
        std::vector<dfx::tensor_view> views;
        for (const auto& d : data) views.push_back(bytes_view(d));
        dfx::task_args<> args;
        for (const auto& v : views) args.add_input(v);
        std::uint64_t task = 0;
        for (auto _ : state) view.before_dispatch(task++, kernels, args);
        state.SetItemsProcessed(static_cast<std::int64_t>(task));
    }
    host.stop();
}

// ---- Per-task cost: plain / compiled level / runtime-gated twin ----

// The gated twins' run-time dump level (see the top of the file).
volatile int runtime_dump_level = 0;

// Levels 1 and 2 send the same record kinds, so one sink serves both views of a gated twin.
static_assert(std::is_same_v<dump_sink<1>, dump_sink<2>>);

// A live host for levels 1 and 2 (the gated twin's level 0 still has one:
// its compiled captures need their channels).
struct dump_fixture {
    dfx::channel_registry channels;
    dfx::args_dump_host<> host;
    explicit dump_fixture(int level) : host(level, dump_dir, bench_layout(1), channels) { host.start(); }
};

std::string dump_label(int level) {
    if (level == 0) return "off: nothing captured";
    return "level " + std::to_string(level) + ": " + (level == 2 ? "5 arguments in 2 call records, " : "1 argument, ") +
           std::to_string(dump_task::bytes_at(level)) + " B per task";
}

void check_payload(benchmark::State& state, const dfx::args_dump_host<>& host, int level) {
    const std::uint64_t expected = static_cast<std::uint64_t>(state.iterations()) * dump_task::bytes_at(level);
    if (host.payload_bytes_written() != expected) {
        const std::string why = "args.bin holds " + std::to_string(host.payload_bytes_written()) + " bytes, expected " +
                                std::to_string(expected);
        ++failed_checks;
        state.SkipWithError(why.c_str());
    }
}

void BM_scheduler_args_dump_plain(benchmark::State& state) {
    dump_task t;
    dispatch_work w;
    std::uint64_t task = 0;
    for (auto _ : state) w.dispatch(++task);
}

template <int Level>
void BM_scheduler_args_dump_typed(benchmark::State& state) {
    dump_task t;
    dispatch_work w;
    if constexpr (Level == 0) {
        dfx::channel_registry channels;  // no collector: the sink has no producer
        auto sink = channels.sink<dump_sink<0>>(0);
        dump_view<0> view{&sink};
        std::uint64_t task = 0;
        for (auto _ : state) {
            view.before_dispatch(++task, kernels, t.args);
            w.dispatch(task);
            view.after_completion(task, kernels, t.args);
        }
    } else {
        dump_fixture f(Level);
        {
            auto sink = f.channels.sink<dump_sink<Level>>(0);
            dump_view<Level> view{&sink};
            std::uint64_t task = 0;
            for (auto _ : state) {
                view.before_dispatch(++task, kernels, t.args);
                w.dispatch(task);
                view.after_completion(task, kernels, t.args);
            }
        }  // the sink publishes its last buffers
        f.host.stop();
        check_payload(state, f.host, Level);
    }
    state.SetLabel(dump_label(Level));
}

void BM_scheduler_args_dump_runtime_gated(benchmark::State& state) {
    const int level = static_cast<int>(state.range(0));
    runtime_dump_level = level;
    dump_task t;
    dispatch_work w;
    dump_fixture f(level > 0 ? level : 1);
    {
        auto sink = f.channels.sink<dump_sink<2>>(0);
        dump_view<1> marked{&sink};
        dump_view<2> all{&sink};
        std::uint64_t task = 0;
        for (auto _ : state) {
            ++task;
            if (const int l = runtime_dump_level; l >= 1) {
                if (l >= 2)
                    all.before_dispatch(task, kernels, t.args);
                else
                    marked.before_dispatch(task, kernels, t.args);
            }
            w.dispatch(task);
            if (const int l = runtime_dump_level; l >= 1) {
                if (l >= 2)
                    all.after_completion(task, kernels, t.args);
                else
                    marked.after_completion(task, kernels, t.args);
            }
        }
    }
    f.host.stop();
    check_payload(state, f.host, level);
    state.SetLabel(dump_label(level));
}

// The floor: each capture call's record and each captured tensor's bytes, copied once.
template <int Level>
void BM_scheduler_args_dump_floor(benchmark::State& state) {
    static_assert(Level == 1 || Level == 2);
    auto arena = std::make_unique<bench::floor_arena>();
    dump_task t;
    dispatch_work w;
    std::uint64_t task = 0;
    for (auto _ : state) {
        ++task;
        bench::args_dump::floor_capture<Level>(*arena, t, task);
        w.dispatch(task);
        bench::args_dump::floor_complete<Level>(*arena, t, task);
    }
    state.SetLabel(dump_label(Level));
}

constexpr std::int64_t no_wait_tasks = 20'000;

// The floor over a run's footprint (bench/floor.hpp, run_arena): the same
// copies as BM_scheduler_args_dump_floor, into memory as large as the run
// copies, each byte written once, as no_wait's channels are.
template <int Level>
void BM_scheduler_args_dump_floor_run(benchmark::State& state) {
    static_assert(Level == 1 || Level == 2);
    // What floor_capture and floor_complete copy (args_dump_task.hpp,
    // floor_call): per call 32 bytes and 24 per tensor, and the tensors' bytes.
    constexpr std::size_t call_of_one = 32 + 24 + bench::args_dump::tensor_bytes;
    constexpr std::size_t floor_bytes_per_task =
        Level == 2 ? (32 + 4 * 24 + 4 * bench::args_dump::tensor_bytes) + call_of_one : call_of_one;
    bench::run_arena arena(static_cast<std::size_t>(no_wait_tasks) * floor_bytes_per_task);
    dump_task t;
    dispatch_work w;
    std::uint64_t task = 0;
    for (auto _ : state) {
        ++task;
        bench::args_dump::floor_capture<Level>(arena, t, task);
        w.dispatch(task);
        bench::args_dump::floor_complete<Level>(arena, t, task);
    }
    state.SetLabel(dump_label(Level));
}

template <int Level>
void BM_scheduler_args_dump_no_wait(benchmark::State& state) {
    // Per task: call records (one per capture call that writes: 2 or 1, of
    // at most 128 or 64 bytes) and chunks (one per capture call that copies bytes).
    const std::vector<std::uint64_t> per_task = Level == 2 ? std::vector<std::uint64_t>{2, 2} : std::vector<std::uint64_t>{1, 1};
    bench::no_wait_channels<dump_sink<Level>> channels(no_wait_tasks, per_task, {Level == 2 ? 128u : 64u});
    dump_task t;
    dispatch_work w;
    auto sink = channels.sink();
    {
        dump_view<Level> view{&sink};
        std::uint64_t task = 0;
        for (auto _ : state) {
            view.before_dispatch(++task, kernels, t.args);
            w.dispatch(task);
            view.after_completion(task, kernels, t.args);
        }
    }
    channels.check(state, sink, per_task);
    state.SetLabel(dump_label(Level));
}

// The bytes a dump writes for `tasks` tasks, call records then chunks: the
// compiled capture (minimal = false) or args_dump_task.hpp's minimal_call.
// Empty if anything was dropped.
template <int Level>
std::string dump_bytes(bool minimal, std::uint64_t tasks) {
    std::string bytes[2];
    dfx::transport_host<> host;
    // Each record's header and payload (not the padding to its next cache line).
    const auto keep = [](std::string* into) {
        return [into]<class Record>(dfx::packed_records<Record> records) {
            for (dfx::packed_cursor<Record> at(records); const Record* r = at.peek(); at.advance())
                into->append(reinterpret_cast<const char*>(r), sizeof(Record) + r->packed_payload_bytes());
        };
    };
    auto calls = host.add_channel<dfx::args_call_record>("calls", 0, 4, 64, keep(&bytes[0]));
    auto chunks = host.add_channel<dfx::args_payload_chunk>("chunks", 0, 4, 64, keep(&bytes[1]));
    dump_sink<Level> sink(calls, chunks);
    dump_task t;
    for (std::size_t i = 0; i < t.data.size(); ++i)  // each tensor's bytes its own, so a wrong source shows
        for (std::size_t j = 0; j < t.data[i].size(); ++j) t.data[i][j] = static_cast<std::uint8_t>(i * 37 + j);
    {
        dump_view<Level> view{&sink};
        for (std::uint64_t task = 1; task <= tasks; ++task) {
            if (minimal) {
                bench::args_dump::minimal_capture<Level>(sink, t, task);
                bench::args_dump::minimal_complete<Level>(sink, t, task);
            } else {
                view.before_dispatch(task, kernels, t.args);
                view.after_completion(task, kernels, t.args);
            }
        }
    }
    sink.finish();
    host.start();
    host.stop();
    for (const auto& c : host.report())
        if (c.dropped != 0) return {};  // a drop writes fewer bytes both ways: no comparison
    return bytes[0] + bytes[1];
}

// no_wait<Level>'s loop with the capture replaced by minimal_call, which must
// write exactly what the capture writes (else the benchmark fails).
template <int Level>
void BM_scheduler_args_dump_minimal(benchmark::State& state) {
    const std::string captured = dump_bytes<Level>(false, 8);
    if (captured.empty() || dump_bytes<Level>(true, 8) != captured) {
        ++failed_checks;
        state.SkipWithError("minimal_call does not write what the capture writes");
        return;
    }
    const std::vector<std::uint64_t> per_task = Level == 2 ? std::vector<std::uint64_t>{2, 2} : std::vector<std::uint64_t>{1, 1};
    bench::no_wait_channels<dump_sink<Level>> channels(no_wait_tasks, per_task, {Level == 2 ? 128u : 64u});
    dump_task t;
    dispatch_work w;
    auto sink = channels.sink();
    std::uint64_t task = 0;
    for (auto _ : state) {
        ++task;
        bench::args_dump::minimal_capture<Level>(sink, t, task);
        w.dispatch(task);
        bench::args_dump::minimal_complete<Level>(sink, t, task);
    }
    channels.check(state, sink, per_task);
    state.SetLabel(dump_label(Level));
}

BENCHMARK(BM_dump_drain)
    ->ArgsProduct({{64, 1024, 8192}, {1, 2}})
    ->ArgNames({"KiB", "threads"})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_drain_only)->Arg(16)->Arg(256)->ArgName("chunks")->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_capture_small);
BENCHMARK(BM_scheduler_args_dump_plain);
BENCHMARK_TEMPLATE(BM_scheduler_args_dump_typed, 0);
BENCHMARK_TEMPLATE(BM_scheduler_args_dump_typed, 1);
BENCHMARK_TEMPLATE(BM_scheduler_args_dump_typed, 2);
BENCHMARK(BM_scheduler_args_dump_runtime_gated)->Arg(0)->Arg(1)->Arg(2);
BENCHMARK_TEMPLATE(BM_scheduler_args_dump_floor, 1);
BENCHMARK_TEMPLATE(BM_scheduler_args_dump_floor, 2);
BENCHMARK_TEMPLATE(BM_scheduler_args_dump_floor_run, 1)->Iterations(no_wait_tasks);
BENCHMARK_TEMPLATE(BM_scheduler_args_dump_floor_run, 2)->Iterations(no_wait_tasks);
BENCHMARK_TEMPLATE(BM_scheduler_args_dump_no_wait, 1)->Iterations(no_wait_tasks);
BENCHMARK_TEMPLATE(BM_scheduler_args_dump_no_wait, 2)->Iterations(no_wait_tasks);
BENCHMARK_TEMPLATE(BM_scheduler_args_dump_minimal, 1)->Iterations(no_wait_tasks);
BENCHMARK_TEMPLATE(BM_scheduler_args_dump_minimal, 2)->Iterations(no_wait_tasks);

}  // namespace

int main(int argc, char** argv) {
    std::vector<char*> args;
    for (int i = 0; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--smoke")
            smoke = true;
        else if (arg.rfind("--dump_dir=", 0) == 0)
            dump_dir = arg.substr(11);
        else
            args.push_back(argv[i]);
    }
    std::filesystem::create_directories(dump_dir);
    int n = static_cast<int>(args.size());
    benchmark::Initialize(&n, args.data());
    const int status = bench::run_checked("args_dump_bench");
    std::error_code ec;
    std::filesystem::remove_all(dump_dir, ec);
    return status;
}
