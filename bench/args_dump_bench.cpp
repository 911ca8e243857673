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
//   build-bench/bench/args_dump_bench [--benchmark_filter=...] [--dump_dir=DIR]
//   --smoke: tiny sizes, for the bench_smoke test
// args.bin goes to DIR (default: the system temp directory) and is deleted
// after each iteration, so the bytes stay in the page cache.
#include <benchmark/benchmark.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "dfx/collect.hpp"
#include "dfx/output/args_bin_stream.hpp"
#include "dfx/output/args_dump_host.hpp"

namespace {

bool smoke = false;
std::filesystem::path dump_dir = std::filesystem::temp_directory_path() / "dfx_args_dump_bench";

using set = dfx::collectors<dfx::swimlane_level<0>, dfx::dump_level<2>>;
using guards = set::scheduler;
using sink_type = dfx::scheduler_sink<guards, dfx::block<>>;
using view_type = dfx::scheduler_view<guards, dfx::tsc_clock, sink_type>;

constexpr std::array<std::int32_t, 3> kernels{-1, 0, -1};

dfx::tensor_view bytes_view(const std::vector<std::uint8_t>& data) {
    dfx::tensor_view v;
    v.addr = reinterpret_cast<std::uintptr_t>(data.data());
    v.dtype = static_cast<std::uint8_t>(dfx::dtype::uint8);
    v.ndims = 1;
    v.shape[0] = static_cast<std::uint32_t>(data.size());
    v.strides[0] = 1;
    return v;
}

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
    std::vector<dfx::args_payload_chunk> buffer(chunks_per_buffer);
    for (std::uint32_t i = 0; i < chunks_per_buffer; ++i) {
        buffer[i].batch_size = std::uint64_t{chunks_per_buffer} * dfx::args_payload_chunk_bytes;
        buffer[i].offset = std::uint64_t{i} * dfx::args_payload_chunk_bytes;
        buffer[i].size = dfx::args_payload_chunk_bytes;
        std::memset(buffer[i].data, 0x5A + static_cast<int>(i), dfx::args_payload_chunk_bytes);
    }
    std::uint64_t bytes = 0;
    for (auto _ : state) {
        dfx::args_bin_stream bin(dump_dir / "args.bin", 1);
        const auto start = std::chrono::steady_clock::now();
        for (std::uint64_t b = 0; b < buffers; ++b) {
            for (auto& c : buffer) c.batch = b * chunks_per_buffer;  // one batch per buffer, numbered as a producer would
            bin.consume(0, buffer);
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

BENCHMARK(BM_dump_drain)
    ->ArgsProduct({{64, 1024, 8192}, {1, 2}})
    ->ArgNames({"KiB", "threads"})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_drain_only)->Arg(16)->Arg(256)->ArgName("chunks")->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_capture_small);

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
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    std::error_code ec;
    std::filesystem::remove_all(dump_dir, ec);
    return 0;
}
