// Transport throughput: records per second per producer and in aggregate for
// 1..N producers, 32- and 64-byte records, with the host draining (the
// consumer copies every buffer out, as the real collectors do), and the
// producer's cost per record beside a bare timestamp read, in one run.
//
//   build/bench/transport_bench [--benchmark_filter=...]
//   --smoke: tiny sizes, for the bench_smoke test
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "dfx/policy/clock.hpp"
#include "dfx/transport.hpp"

namespace {

bool smoke = false;

template <std::size_t Bytes>
struct record {
    std::uint64_t sequence;
    std::uint8_t payload[Bytes - sizeof(std::uint64_t)];
};

// The host's copy-out: what a collector does with a buffer before recycling it.
struct copy_out {
    std::vector<std::byte>* scratch;
    template <class R>
    void operator()(std::span<const R> records) const {
        const std::size_t bytes = records.size_bytes();
        if (scratch->size() < bytes) scratch->resize(bytes);
        std::memcpy(scratch->data(), records.data(), bytes);
        benchmark::DoNotOptimize(scratch->data());
    }
};

constexpr std::uint32_t buffers_per_producer = 8;
constexpr std::uint32_t records_per_buffer = 4096;

// Each iteration: N producer threads push `per_producer` records each, then
// the host drains everything; the time covers both, so the consumer has to
// keep up for the rate to count.
template <std::size_t Bytes>
void BM_transport(benchmark::State& state) {
    using rec = record<Bytes>;
    const auto producers = static_cast<std::uint32_t>(state.range(0));
    const std::uint64_t per_producer = smoke ? 100'000 : 20'000'000;
    std::uint64_t dropped = 0;
    for (auto _ : state) {
        dfx::transport_host<> host;
        std::vector<std::vector<std::byte>> scratch(producers);
        std::vector<dfx::channel_ref<rec>> refs;
        for (std::uint32_t p = 0; p < producers; ++p)
            refs.push_back(host.template add_channel<rec>("bench", p, buffers_per_producer, records_per_buffer,
                                                          copy_out{&scratch[p]}));
        host.start();
        const auto start = std::chrono::steady_clock::now();
        std::vector<std::thread> threads;
        for (std::uint32_t p = 0; p < producers; ++p)
            threads.emplace_back([&, p] {
                dfx::producer<rec> out{refs[p]};
                rec r{};
                for (std::uint64_t i = 0; i < per_producer; ++i) {
                    r.sequence = i;
                    out.push(r);
                }
            });
        for (auto& t : threads) t.join();
        host.stop();
        const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
        state.SetIterationTime(elapsed.count());
        const auto totals = dfx::totals(host.report());
        dropped += totals.dropped;
        if (!totals.balanced() || totals.collected != producers * per_producer)
            state.SkipWithError("records lost: the accounting does not balance");
    }
    const double records = static_cast<double>(state.iterations()) * producers * per_producer;
    state.counters["records_per_s"] = benchmark::Counter(records, benchmark::Counter::kIsRate);
    state.counters["per_producer_records_per_s"] = benchmark::Counter(records / producers, benchmark::Counter::kIsRate);
    state.counters["ns_per_record_per_producer"] =
        benchmark::Counter(records / producers, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
    state.counters["dropped"] = static_cast<double>(dropped);
    state.SetBytesProcessed(static_cast<std::int64_t>(records) * static_cast<std::int64_t>(Bytes));
}

// The producer's hot path alone (buffers recycled by a live host), for the
// per-record cost in ns beside the cost of reading a timestamp.
template <std::size_t Bytes>
void BM_push_cost(benchmark::State& state) {
    using rec = record<Bytes>;
    dfx::transport_host<> host;
    std::vector<std::byte> scratch;
    auto ref = host.template add_channel<rec>("bench", 0, buffers_per_producer, records_per_buffer, copy_out{&scratch});
    host.start();
    {
        dfx::producer<rec> out{ref};
        rec r{};
        for (auto _ : state) {
            ++r.sequence;
            out.push(r);
        }
    }
    host.stop();
    state.counters["dropped"] = static_cast<double>(dfx::totals(host.report()).dropped);
}

void BM_tsc_read(benchmark::State& state) {
    for (auto _ : state) benchmark::DoNotOptimize(dfx::tsc_clock::now());
}

void BM_steady_clock_read(benchmark::State& state) {
    for (auto _ : state) benchmark::DoNotOptimize(dfx::steady_clock_source::now());
}

// Up to twice the cores: the oversubscribed cases show the parking path at work.
const int max_producers = static_cast<int>(2 * std::max(1u, std::thread::hardware_concurrency()));

BENCHMARK(BM_tsc_read);
BENCHMARK(BM_steady_clock_read);
BENCHMARK_TEMPLATE(BM_push_cost, 32);
BENCHMARK_TEMPLATE(BM_push_cost, 64);
BENCHMARK_TEMPLATE(BM_transport, 32)->DenseRange(1, max_producers)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_transport, 64)->DenseRange(1, max_producers)->UseManualTime()->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
    std::vector<char*> args;
    for (int i = 0; i < argc; ++i) {
        if (std::string(argv[i]) == "--smoke")
            smoke = true;
        else
            args.push_back(argv[i]);
    }
    int n = static_cast<int>(args.size());
    benchmark::Initialize(&n, args.data());
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
