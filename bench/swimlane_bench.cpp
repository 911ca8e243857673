// Swimlane stamp cost per task, per role, at each level, side by side in one
// run with the uninstrumented loop and with a runtime-gated twin (the same
// stamps behind `if (level >= N)` on a run-time int, as the reference does).
// Records go through the real transport with a live host draining them.
// One iteration is one task, so the time per iteration is the cost per task.
//
// Names: BM_<role>_{plain, typed<N>, runtime_gated/N}; N is the swimlane
// level (compiled for typed, a run-time int for runtime_gated). Per role,
// every variant runs the same non-DFX work, so typed<N> - plain is what the
// compiled stamps cost, runtime_gated/N - plain what the reference's shape
// costs at that level, and runtime_gated/0 - plain what its branches cost
// when the swimlane is off (typed<0> is the uninstrumented loop, proven
// exactly in docs/zero-cost.md).
//
//   BM_worker_plain                    AICore worker: the 32-FMA kernel alone
//   BM_worker_typed<0|1>               + received / started / ended (level >= 1)
//   BM_worker_runtime_gated/0|1        the same stamps behind `if (level >= 1)`
//   BM_scheduler_plain                 AICPU scheduler: one register write per dispatch
//   BM_scheduler_typed<0..3>           + dispatch / finish (>= 2), + loop phase (>= 3)
//   BM_scheduler_runtime_gated/0..3    the same behind `if (level >= 2)` / `if (level >= 3)`
//   BM_orchestrator_plain              orchestrator: publish one descriptor per submit
//   BM_orchestrator_typed<0|3|4>       + the submit phase (level 4; 3 shows it still off)
//   BM_orchestrator_runtime_gated/0|3|4  the same behind `if (level >= 4)`
//   BM_<role>_floor<N>                 the floor at level N (bench/floor.hpp): the role's work,
//                                      the bare tsc reads its stamps take and a memcpy of its
//                                      record bytes (worker 3 reads + 32 B; scheduler 2 + 24 B,
//                                      level 3 + 2 reads + 56 B; orchestrator 2 + 32 B)
//   BM_<role>_no_wait<N>               typed<N> with channels that hold the whole run
//                                      (bench/no_wait_channels.hpp): the producer never
//                                      waits for the host, so this is the stamps' own cost
//
// The gated twins take the level from state.range(0), kept in a register
// and tested at each stamp (g++ -O3 keeps the tests in the loop; nothing
// unswitches it into a stamp-free copy, though it may merge a task's
// adjacent tests into one branch); the host behind them is a level-4 one,
// since every stamp is compiled.
//
// After each run the host's accounting is checked: per task, 1 record for
// the worker at level >= 1, 1 (level 2) or 2 (level 3) for the scheduler, 1
// for the orchestrator at level 4, none otherwise, nothing dropped. A
// mismatch fails the benchmark (error) and the program exits 1, so the
// bench_smoke test catches a loop whose stamps were optimised away.
//
//   build/bench/swimlane_bench [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include "checked_run.hpp"
#include "floor.hpp"
#include "no_wait_channels.hpp"

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

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

using bench::failed_checks;

// Records per task each role sends at a level.
std::uint64_t worker_records(int level) { return level >= 1 ? 1 : 0; }
std::uint64_t scheduler_records(int level) { return level >= 3 ? 2 : level >= 2 ? 1 : 0; }
std::uint64_t orchestrator_records(int level) { return level >= 4 ? 1 : 0; }

// After the host stopped: exactly per_task records per iteration collected, none dropped.
void check_records(benchmark::State& state, const dfx::swimlane_host<>* host, std::uint64_t per_task) {
    const std::uint64_t expected = per_task * static_cast<std::uint64_t>(state.iterations());
    const dfx::accounting_totals t = host ? dfx::totals(host->report()) : dfx::accounting_totals{};
    if (t.collected == expected && t.dropped == 0 && t.balanced()) return;
    ++failed_checks;
    const std::string why = "swimlane: " + std::to_string(t.collected) + " records collected, " +
                            std::to_string(t.dropped) + " dropped, expected " + std::to_string(expected);
    state.SkipWithError(why.c_str());
}

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
    check_records(state, f.host.get(), worker_records(Level));
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
    check_records(state, &f.host, worker_records(level));
}

// The worker's floor: three clock reads and one 32-byte record copied out.
template <int Level>
void BM_worker_floor(benchmark::State& state) {
    static_assert(Level == 1);
    auto arena = std::make_unique<bench::floor_arena>();
    std::uint64_t task = 0;
    for (auto _ : state) {
        ++task;
        const std::uint64_t received = clock_source::now();
        const std::uint64_t start = clock_source::now();
        benchmark::DoNotOptimize(kernel(data, task));
        const std::uint64_t end = clock_source::now();
        arena->put(dfx::aicore_task_record{start, end, task, static_cast<std::uint32_t>(task),
                                           static_cast<std::uint32_t>(start - received)});
    }
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
    check_records(state, f.host.get(), scheduler_records(Level));
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
    check_records(state, &f.host, scheduler_records(level));
}

// The scheduler's floor: level 2 two reads and a 24-byte record; level 3
// also the phase's two reads and its 56-byte record.
template <int Level>
void BM_scheduler_floor(benchmark::State& state) {
    static_assert(Level == 2 || Level == 3);
    auto arena = std::make_unique<bench::floor_arena>();
    std::uint32_t reg[8] = {};
    std::uint64_t task = 0;
    for (auto _ : state) {
        ++task;
        std::uint64_t phase_start = 0;
        if constexpr (Level >= 3) phase_start = clock_source::now();
        const std::uint64_t dispatched = clock_source::now();
        reg[task & 7] = static_cast<std::uint32_t>(task);
        benchmark::DoNotOptimize(reg);
        if constexpr (Level >= 3) {
            dfx::sched_phase_record p{};
            p.start = phase_start;
            p.end = clock_source::now();
            p.loop_iter = static_cast<std::uint32_t>(task);
            p.tasks_processed = 1;
            p.kind = dfx::sched_phase_kind::dispatch;
            arena->put(p);
        }
        arena->put(dfx::aicpu_task_record{dispatched, clock_source::now(), 0, static_cast<std::uint32_t>(task)});
    }
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
    check_records(state, f.host.get(), orchestrator_records(Level));
}

// The submit phase behind `if (level >= 4)`, as the worker and scheduler twins.
void BM_orchestrator_runtime_gated(benchmark::State& state) {
    const int level = static_cast<int>(state.range(0));
    gated_fixture f;
    {
        dfx::producer<dfx::orch_phase_record, overflow> out{f.channels.get<dfx::orch_phase_record>(0)};
        std::uint64_t ids[16] = {};
        std::uint64_t task = 0;
        std::uint32_t submit_idx = 0;
        for (auto _ : state) {
            ++task;
            dfx::orch_phase_record r{};
            if (level >= 4) {
                r.task_id = task;
                r.submit_idx = submit_idx++;
                r.start = clock_source::now();
            }
            ids[task & 15] = task;
            benchmark::DoNotOptimize(ids);
            if (level >= 4) {
                r.end = clock_source::now();
                out.push(r);
            }
        }
    }
    f.host.stop();
    check_records(state, &f.host, orchestrator_records(level));
}

// The orchestrator's floor at level 4: two reads and a 32-byte record.
template <int Level>
void BM_orchestrator_floor(benchmark::State& state) {
    static_assert(Level == 4);
    auto arena = std::make_unique<bench::floor_arena>();
    std::uint64_t ids[16] = {};
    std::uint64_t task = 0;
    std::uint32_t submit_idx = 0;
    for (auto _ : state) {
        ++task;
        const std::uint64_t start = clock_source::now();
        ids[task & 15] = task;
        benchmark::DoNotOptimize(ids);
        arena->put(dfx::orch_phase_record{start, clock_source::now(), task, submit_idx++, 0});
    }
}

// typed<N> without waiting for a host: the same loops on channels that hold
// the whole run (no_wait_tasks iterations).
constexpr std::int64_t no_wait_tasks = 1'000'000;

template <int Level>
void BM_worker_no_wait(benchmark::State& state) {
    using sink_type = typename fixture<Level>::aicore_sink;
    bench::no_wait_channels<sink_type> channels(no_wait_tasks, {1});
    auto sink = channels.sink();
    {
        dfx::aicore_view<typename fixture<Level>::set::aicore, clock_source, sink_type> view{&sink};
        std::uint64_t task = 0;
        for (auto _ : state) {
            ++task;
            view.received(task, static_cast<std::uint32_t>(task));
            view.started();
            benchmark::DoNotOptimize(kernel(data, task));
            view.ended();
        }
    }
    channels.check(state, sink, {1});
}

template <int Level>
void BM_scheduler_no_wait(benchmark::State& state) {
    using sink_type = typename fixture<Level>::scheduler_sink;
    // One record of each kind per task: aicpu_task_record (level 2), + sched_phase_record (3).
    const std::vector<std::uint64_t> per_task = Level >= 3 ? std::vector<std::uint64_t>{1, 1} : std::vector<std::uint64_t>{1};
    bench::no_wait_channels<sink_type> channels(no_wait_tasks, per_task);
    auto sink = channels.sink();
    {
        dfx::scheduler_view<typename fixture<Level>::set::scheduler, clock_source, sink_type> view{&sink};
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
    channels.check(state, sink, per_task);
}

template <int Level>
void BM_orchestrator_no_wait(benchmark::State& state) {
    using sink_type = typename fixture<Level>::orchestrator_sink;
    bench::no_wait_channels<sink_type> channels(no_wait_tasks, {1});
    auto sink = channels.sink();
    {
        dfx::orchestrator_view<typename fixture<Level>::set::orchestrator, clock_source, sink_type> view{&sink};
        std::uint64_t ids[16] = {};
        std::uint64_t task = 0;
        for (auto _ : state) {
            ++task;
            auto submit = view.submitting(task);
            ids[task & 15] = task;
            benchmark::DoNotOptimize(ids);
        }
    }
    channels.check(state, sink, {1});
}

}  // namespace

BENCHMARK(BM_worker_plain);
BENCHMARK_TEMPLATE(BM_worker_typed, 0);
BENCHMARK_TEMPLATE(BM_worker_typed, 1);
BENCHMARK(BM_worker_runtime_gated)->Arg(0)->Arg(1);
BENCHMARK_TEMPLATE(BM_worker_floor, 1);
BENCHMARK_TEMPLATE(BM_worker_no_wait, 1)->Iterations(no_wait_tasks);
BENCHMARK(BM_scheduler_plain);
BENCHMARK_TEMPLATE(BM_scheduler_typed, 0);
BENCHMARK_TEMPLATE(BM_scheduler_typed, 1);
BENCHMARK_TEMPLATE(BM_scheduler_typed, 2);
BENCHMARK_TEMPLATE(BM_scheduler_typed, 3);
BENCHMARK(BM_scheduler_runtime_gated)->Arg(0)->Arg(1)->Arg(2)->Arg(3);
BENCHMARK_TEMPLATE(BM_scheduler_floor, 2);
BENCHMARK_TEMPLATE(BM_scheduler_floor, 3);
BENCHMARK_TEMPLATE(BM_scheduler_no_wait, 2)->Iterations(no_wait_tasks);
BENCHMARK_TEMPLATE(BM_scheduler_no_wait, 3)->Iterations(no_wait_tasks);
BENCHMARK(BM_orchestrator_plain);
BENCHMARK_TEMPLATE(BM_orchestrator_typed, 0);
BENCHMARK_TEMPLATE(BM_orchestrator_typed, 3);
BENCHMARK_TEMPLATE(BM_orchestrator_typed, 4);
BENCHMARK(BM_orchestrator_runtime_gated)->Arg(0)->Arg(3)->Arg(4);
BENCHMARK_TEMPLATE(BM_orchestrator_floor, 4);
BENCHMARK_TEMPLATE(BM_orchestrator_no_wait, 4)->Iterations(no_wait_tasks);

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    return bench::run_checked("swimlane_bench");
}
