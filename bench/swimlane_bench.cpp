// Swimlane stamp cost per task, per role, at each level, side by side in one
// run with the uninstrumented loop and with a runtime-gated twin (the same
// stamps behind `if (level >= N)` on a run-time int, as the reference does).
// Records go through the real transport with a live host draining them.
//
//   build/bench/swimlane_bench [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>

#include "dfx/collect.hpp"
#include "dfx/output/swimlane_host.hpp"
#include "dfx/policy/clock.hpp"

namespace {

using clock_source = dfx::tsc_clock;
using overflow = dfx::block<>;

// A small kernel, so the stamps' share is visible: 32 multiply-adds.
inline float kernel(float* data, std::uint64_t task) {
    float acc = static_cast<float>(task & 7);
    for (int i = 0; i < 32; ++i) acc = acc * 0.999f + data[i];
    data[task & 31] = acc;
    return acc;
}

dfx::swimlane_layout bench_layout() {
    dfx::swimlane_layout layout;
    layout.core_types = {dfx::core_type::aic};
    layout.scheduler_threads = 1;
    layout.clock_freq_hz = clock_source::frequency_hz();
    return layout;
}

// Host, channels and one thread's sinks for a compiled level (Level 0:
// nothing at all).
template <int Level>
struct fixture {
    using set = dfx::collectors<dfx::swimlane_level<Level>>;
    using aicore_sink = dfx::aicore_sink<typename set::aicore, overflow>;
    using scheduler_sink = dfx::scheduler_sink<typename set::scheduler, overflow>;
    using orchestrator_sink = dfx::orchestrator_sink<typename set::orchestrator, overflow>;

    dfx::channel_registry channels;
    std::unique_ptr<dfx::swimlane_host<>> host;

    fixture() {
        if constexpr (Level > 0) {
            host = std::make_unique<dfx::swimlane_host<>>(Level, bench_layout(), channels);
            host->start();
        }
    }
};

// The runtime-gated twins compile every stamp, so they need every channel: a
// level-4 host, whatever level the run-time int asks for.
struct gated_fixture {
    dfx::channel_registry channels;
    dfx::swimlane_host<> host{4, bench_layout(), channels};
    gated_fixture() { host.start(); }
};

template <class Sink>
Sink make_sink(const dfx::channel_registry& channels) {
    return channels.sink<Sink>(0);
}

float data[32] = {};

void BM_worker_plain(benchmark::State& state) {
    std::uint64_t task = 0;
    for (auto _ : state) benchmark::DoNotOptimize(kernel(data, ++task));
}

template <int Level>
void BM_worker_typed(benchmark::State& state) {
    fixture<Level> f;
    {
        auto sink = make_sink<typename fixture<Level>::aicore_sink>(f.channels);
        dfx::aicore_view<typename fixture<Level>::set::aicore, clock_source, decltype(sink)> view{&sink};
        std::uint64_t task = 0;
        for (auto _ : state) {
            ++task;
            view.received(task, static_cast<std::uint32_t>(task));
            view.started();
            benchmark::DoNotOptimize(kernel(data, task));
            view.ended();
        }
    }
    if (f.host) f.host->stop();
}

// The reference's shape: one compiled loop, every stamp behind a run-time test.
void BM_worker_runtime_gated(benchmark::State& state) {
    const int level = static_cast<int>(state.range(0));
    gated_fixture f;
    {
        dfx::producer<dfx::aicore_task_record, overflow> out{f.channels.get<dfx::aicore_task_record>(0)};
        dfx::aicore_task_record r{};
        std::uint64_t received = 0;
        std::uint64_t task = 0;
        for (auto _ : state) {
            ++task;
            if (level >= 1) {
                received = clock_source::now();
                r.task_token = task;
                r.reg_task_id = static_cast<std::uint32_t>(task);
            }
            if (level >= 1) {
                r.start = clock_source::now();
                r.receive_to_start = static_cast<std::uint32_t>(r.start - received);
            }
            benchmark::DoNotOptimize(kernel(data, task));
            if (level >= 1) {
                r.end = clock_source::now();
                out.push(r);
            }
        }
    }
    f.host.stop();
}

void BM_scheduler_plain(benchmark::State& state) {
    std::uint32_t reg[8] = {};
    std::uint64_t task = 0;
    for (auto _ : state) {
        ++task;
        reg[task & 7] = static_cast<std::uint32_t>(task);  // "dispatch": write the core's register
        benchmark::DoNotOptimize(reg);
    }
}

template <int Level>
void BM_scheduler_typed(benchmark::State& state) {
    fixture<Level> f;
    {
        auto sink = make_sink<typename fixture<Level>::scheduler_sink>(f.channels);
        dfx::scheduler_view<typename fixture<Level>::set::scheduler, clock_source, decltype(sink)> view{&sink};
        std::uint32_t reg[8] = {};
        std::uint64_t task = 0;
        for (auto _ : state) {
            ++task;
            auto phase = view.phase(dfx::sched_phase_kind::dispatch, static_cast<std::uint32_t>(task));
            auto stamp = view.dispatching();
            reg[task & 7] = static_cast<std::uint32_t>(task);
            benchmark::DoNotOptimize(reg);
            phase.processed(1);
            view.finished(0, static_cast<std::uint32_t>(task), stamp);
        }
    }
    if (f.host) f.host->stop();
}

void BM_scheduler_runtime_gated(benchmark::State& state) {
    const int level = static_cast<int>(state.range(0));
    gated_fixture f;
    {
        dfx::producer<dfx::aicpu_task_record, overflow> aicpu_out{f.channels.get<dfx::aicpu_task_record>(0)};
        dfx::producer<dfx::sched_phase_record, overflow> phase_out{f.channels.get<dfx::sched_phase_record>(0)};
        std::uint32_t reg[8] = {};
        std::uint64_t task = 0;
        for (auto _ : state) {
            ++task;
            dfx::sched_phase_record p{};
            if (level >= 3) p.start = clock_source::now();
            std::uint64_t dispatched = 0;
            if (level >= 2) dispatched = clock_source::now();
            reg[task & 7] = static_cast<std::uint32_t>(task);
            benchmark::DoNotOptimize(reg);
            if (level >= 3) {
                p.tasks_processed = 1;
                p.loop_iter = static_cast<std::uint32_t>(task);
                p.end = clock_source::now();
                phase_out.push(p);
            }
            if (level >= 2) aicpu_out.push({dispatched, clock_source::now(), 0, static_cast<std::uint32_t>(task)});
        }
    }
    f.host.stop();
}

void BM_orchestrator_plain(benchmark::State& state) {
    std::uint64_t ids[16] = {};
    std::uint64_t task = 0;
    for (auto _ : state) {
        ++task;
        ids[task & 15] = task;  // "submit": publish a descriptor
        benchmark::DoNotOptimize(ids);
    }
}

template <int Level>
void BM_orchestrator_typed(benchmark::State& state) {
    fixture<Level> f;
    {
        auto sink = make_sink<typename fixture<Level>::orchestrator_sink>(f.channels);
        dfx::orchestrator_view<typename fixture<Level>::set::orchestrator, clock_source, decltype(sink)> view{&sink};
        std::uint64_t ids[16] = {};
        std::uint64_t task = 0;
        for (auto _ : state) {
            ++task;
            auto submit = view.submitting(task);
            ids[task & 15] = task;
            benchmark::DoNotOptimize(ids);
        }
    }
    if (f.host) f.host->stop();
}

}  // namespace

BENCHMARK(BM_worker_plain);
BENCHMARK_TEMPLATE(BM_worker_typed, 0);
BENCHMARK_TEMPLATE(BM_worker_typed, 1);
BENCHMARK(BM_worker_runtime_gated)->Arg(0)->Arg(1);
BENCHMARK(BM_scheduler_plain);
BENCHMARK_TEMPLATE(BM_scheduler_typed, 0);
BENCHMARK_TEMPLATE(BM_scheduler_typed, 1);
BENCHMARK_TEMPLATE(BM_scheduler_typed, 2);
BENCHMARK_TEMPLATE(BM_scheduler_typed, 3);
BENCHMARK(BM_scheduler_runtime_gated)->Arg(0)->Arg(1)->Arg(2)->Arg(3);
BENCHMARK(BM_orchestrator_plain);
BENCHMARK_TEMPLATE(BM_orchestrator_typed, 0);
BENCHMARK_TEMPLATE(BM_orchestrator_typed, 3);
BENCHMARK_TEMPLATE(BM_orchestrator_typed, 4);

BENCHMARK_MAIN();
