// dep_gen and scope stats cost on the orchestrator, side by side in one run
// with the uninstrumented loop and with a runtime-gated twin: per submit (a
// 3-argument task with one explicit dependency) and per scope boundary,
// records going through the real transport with a live host. One iteration
// is one submit (one scope), so the time per iteration is the cost of one.
//
// Names: BM_orchestrator_<collector>_{plain, typed<on>, runtime_gated/on}.
// Within a collector every variant does the same non-DFX work (the same
// descriptor write, the same scope bookkeeping), so
//   typed<false> - plain            what the compiled-off capture costs (0: it is empty)
//   typed<true> - plain             what the capture costs, compiled on
//   runtime_gated/0 - plain         what the reference's shape costs when off: the branch
//   runtime_gated/1 - plain         ... and when on (the capture plus the branch)
//
//   BM_orchestrator_dep_gen_plain            fill and publish a task descriptor
//   BM_orchestrator_dep_gen_typed<false|true>  + view.capture_submit(...), dep_gen compiled off / on
//   BM_orchestrator_dep_gen_runtime_gated/0|1  dep_gen compiled on, capture_submit behind `if (enabled)`
//   BM_orchestrator_scope_stats_plain          the scope's own bookkeeping
//   BM_orchestrator_scope_stats_typed<false|true>  + scope_begin / scope_end, compiled off / on
//   BM_orchestrator_scope_stats_runtime_gated/0|1  compiled on, each call behind `if (enabled)`
//   BM_orchestrator_dep_gen_floor<true>        the floor (bench/floor.hpp): the descriptor plus a
//       memcpy of what the host cannot derive: a 40-byte task header (id, flags, counts, kernel
//       ids, block_num), the 3 tensor views (88 B each) and the dependency id: 312 B, no clock
//   BM_orchestrator_scope_stats_floor<true>    the bookkeeping plus both samples taken and two
//       80-byte records (site, line, depth, ring, sample) copied out; no clock
//   BM_orchestrator_<collector>_no_wait<true>  typed<true> on channels that hold the whole
//       run (bench/no_wait_channels.hpp): the capture's own cost, no waiting for the host
//
// The gated twins test `runtime_enabled`, a volatile global set from the
// benchmark's argument: it is read at every test, as a runtime reads its
// config, and the compiler can neither fold it nor unswitch the loop on it.
//
// After each run the host's accounting is checked: 1 dep_gen record per
// captured submit (its 3 tensors and 1 dep inside), 2 scope stats records per
// captured scope, none when off or gated off, nothing dropped. A mismatch
// fails the benchmark (error) and the program exits 1, so the bench_smoke
// test catches a loop whose capture was optimised away or lost records.
//
//   build/bench/orchestrator_bench [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include "checked_run.hpp"
#include "dep_gen_task.hpp"
#include "floor.hpp"
#include "no_wait_channels.hpp"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "dfx/collect.hpp"
#include "dfx/output/dep_gen_host.hpp"
#include "dfx/output/scope_stats_host.hpp"

namespace {

// The gated twins' run-time switch (see the top of the file).
volatile int runtime_enabled = 0;

using bench::failed_checks;

std::uint64_t tasks(const benchmark::State& state) { return static_cast<std::uint64_t>(state.iterations()); }

// After the host stopped: exactly `expected` records collected, none dropped.
void check_records(benchmark::State& state, const char* what, const std::vector<dfx::channel_report>& report,
                   std::uint64_t expected) {
    const dfx::accounting_totals t = dfx::totals(report);
    if (t.collected == expected && t.dropped == 0 && t.balanced()) return;
    ++failed_checks;
    const std::string why = std::string(what) + ": " + std::to_string(t.collected) + " records collected, " +
                            std::to_string(t.dropped) + " dropped, expected " + std::to_string(expected);
    state.SkipWithError(why.c_str());
}

constexpr std::uint64_t dep_gen_records_per_submit = 1;  // one packed record: task, 3 views, 1 dep, 3 types
// Buffer bytes it takes: 32 + 3 x 88 + 8 + 3 = 307, on whole cache lines.
constexpr std::uint32_t dep_gen_record_bytes = 320;
constexpr std::uint64_t scope_stats_records_per_scope = 2;  // begin, end

template <bool DepGen, bool ScopeStats>
using set = dfx::collectors<dfx::swimlane_level<0>, dfx::dump_level<0>, dfx::pmu_event<0>, dfx::dep_gen<DepGen>,
                            dfx::scope_stats<ScopeStats>>;

template <bool DepGen, bool ScopeStats>
struct orchestrator {
    using guards = typename set<DepGen, ScopeStats>::orchestrator;
    using sink_type = dfx::orchestrator_sink<guards, dfx::block<>>;
    using view_type = dfx::orchestrator_view<guards, dfx::steady_clock_source, sink_type>;

    dfx::channel_registry channels;
    dfx::dep_gen_host<> deps{channels};
    dfx::scope_stats_host<> scopes{channels};

    orchestrator() {
        deps.start();
        scopes.start();
    }
    ~orchestrator() { stop(); }
    void stop() {
        deps.stop();
        scopes.stop();
    }
};

using bench::dep_gen::submit_work;

void BM_orchestrator_dep_gen_plain(benchmark::State& state) {
    submit_work w;
    std::uint64_t id = 0;
    for (auto _ : state) w.publish(++id);
}

template <bool DepGen>
void BM_orchestrator_dep_gen_typed(benchmark::State& state) {
    using o_type = orchestrator<DepGen, false>;
    o_type o;
    {
        auto sink = o.channels.template sink<typename o_type::sink_type>(0);
        typename o_type::view_type view{&sink};
        submit_work w;
        std::uint64_t id = 0;
        for (auto _ : state) {
            w.publish(++id);
            w.capture(view, id);
        }
    }  // the sink publishes its last buffer
    o.stop();
    check_records(state, "dep_gen", o.deps.report(), DepGen ? dep_gen_records_per_submit * tasks(state) : 0);
}

void BM_orchestrator_dep_gen_runtime_gated(benchmark::State& state) {
    runtime_enabled = static_cast<int>(state.range(0));
    using o_type = orchestrator<true, false>;
    o_type o;
    {
        auto sink = o.channels.sink<o_type::sink_type>(0);
        o_type::view_type view{&sink};
        submit_work w;
        std::uint64_t id = 0;
        for (auto _ : state) {
            w.publish(++id);
            if (runtime_enabled) w.capture(view, id);
        }
    }
    o.stop();
    check_records(state, "dep_gen", o.deps.report(),
                  state.range(0) ? dep_gen_records_per_submit * tasks(state) : 0);
}

// The dep_gen floor: the bytes of the submit the host cannot derive, copied once.
template <bool On>
void BM_orchestrator_dep_gen_floor(benchmark::State& state) {
    static_assert(On);
    auto arena = std::make_unique<bench::floor_arena>();
    submit_work w;
    std::uint64_t id = 0;
    for (auto _ : state) {
        w.publish(++id);
        bench::dep_gen::floor_copy(*arena, w, id);
        benchmark::ClobberMemory();
    }
}

// One scope: begin, the scope's own bookkeeping, end. The sampler is only
// called when the capture is on (the collector's contract).
struct scope_work {
    std::int32_t head = 0;

    dfx::scope_sample sample() const { return {0, head, 0, static_cast<std::uint64_t>(head) * 64, 1, 1, 0}; }
    void body() {
        ++head;
        benchmark::DoNotOptimize(head);
    }
};

void BM_orchestrator_scope_stats_plain(benchmark::State& state) {
    scope_work w;
    for (auto _ : state) w.body();
}

template <bool ScopeStats>
void BM_orchestrator_scope_stats_typed(benchmark::State& state) {
    using o_type = orchestrator<false, ScopeStats>;
    o_type o;
    {
        auto sink = o.channels.template sink<typename o_type::sink_type>(0);
        typename o_type::view_type view{&sink};
        scope_work w;
        const auto sample = [&w] { return w.sample(); };
        for (auto _ : state) {
            view.scope_begin(sample, "orchestrator_bench.cpp", 1);
            w.body();
            view.scope_end(sample);
        }
    }
    o.stop();
    check_records(state, "scope stats", o.scopes.report(),
                  ScopeStats ? scope_stats_records_per_scope * tasks(state) : 0);
}

void BM_orchestrator_scope_stats_runtime_gated(benchmark::State& state) {
    runtime_enabled = static_cast<int>(state.range(0));
    using o_type = orchestrator<false, true>;
    o_type o;
    {
        auto sink = o.channels.sink<o_type::sink_type>(0);
        o_type::view_type view{&sink};
        scope_work w;
        const auto sample = [&w] { return w.sample(); };
        for (auto _ : state) {
            if (runtime_enabled) view.scope_begin(sample, "orchestrator_bench.cpp", 1);
            w.body();
            if (runtime_enabled) view.scope_end(sample);
        }
    }
    o.stop();
    check_records(state, "scope stats", o.scopes.report(),
                  state.range(0) ? scope_stats_records_per_scope * tasks(state) : 0);
}

// The scope stats floor: both samples taken, two 80-byte records copied out.
template <bool On>
void BM_orchestrator_scope_stats_floor(benchmark::State& state) {
    static_assert(On);
    auto arena = std::make_unique<bench::floor_arena>();
    scope_work w;
    const auto record = [](const dfx::scope_sample& s, dfx::scope_phase phase) {
        dfx::scope_stats_record r;
        std::memcpy(r.site, "orchestrator_bench.cpp", sizeof "orchestrator_bench.cpp");
        r.site_line = 1;
        r.phase = phase;
        r.task_start = s.task_window_tail;
        r.task_end = s.task_window_head;
        r.heap_start = s.heap_reclaim;
        r.heap_end = s.heap_alloc;
        r.dep_pool_start = s.dep_pool_tail;
        r.dep_pool_end = s.dep_pool_top;
        r.tensormap_used = s.tensormap_live;
        return r;
    };
    for (auto _ : state) {
        arena->put(record(w.sample(), dfx::scope_phase::begin));
        w.body();
        arena->put(record(w.sample(), dfx::scope_phase::end));
    }
}

constexpr std::int64_t no_wait_tasks = 200'000;

template <bool On>
void BM_orchestrator_dep_gen_no_wait(benchmark::State& state) {
    using o_type = orchestrator<On, false>;
    bench::no_wait_channels<typename o_type::sink_type> channels(no_wait_tasks, {dep_gen_records_per_submit},
                                                                 {dep_gen_record_bytes});
    auto sink = channels.sink();
    {
        typename o_type::view_type view{&sink};
        submit_work w;
        std::uint64_t id = 0;
        for (auto _ : state) {
            w.publish(++id);
            w.capture(view, id);
        }
    }
    channels.check(state, sink, {dep_gen_records_per_submit});
}

template <bool On>
void BM_orchestrator_scope_stats_no_wait(benchmark::State& state) {
    using o_type = orchestrator<false, On>;
    bench::no_wait_channels<typename o_type::sink_type> channels(no_wait_tasks, {scope_stats_records_per_scope});
    auto sink = channels.sink();
    {
        typename o_type::view_type view{&sink};
        scope_work w;
        const auto sample = [&w] { return w.sample(); };
        for (auto _ : state) {
            view.scope_begin(sample, "orchestrator_bench.cpp", 1);
            w.body();
            view.scope_end(sample);
        }
    }
    channels.check(state, sink, {scope_stats_records_per_scope});
}

}  // namespace

BENCHMARK(BM_orchestrator_dep_gen_plain);
BENCHMARK_TEMPLATE(BM_orchestrator_dep_gen_typed, false);
BENCHMARK_TEMPLATE(BM_orchestrator_dep_gen_typed, true);
BENCHMARK(BM_orchestrator_dep_gen_runtime_gated)->Arg(0)->Arg(1);
BENCHMARK_TEMPLATE(BM_orchestrator_dep_gen_floor, true);
BENCHMARK_TEMPLATE(BM_orchestrator_dep_gen_no_wait, true)->Iterations(no_wait_tasks);
BENCHMARK(BM_orchestrator_scope_stats_plain);
BENCHMARK_TEMPLATE(BM_orchestrator_scope_stats_typed, false);
BENCHMARK_TEMPLATE(BM_orchestrator_scope_stats_typed, true);
BENCHMARK(BM_orchestrator_scope_stats_runtime_gated)->Arg(0)->Arg(1);
BENCHMARK_TEMPLATE(BM_orchestrator_scope_stats_floor, true);
BENCHMARK_TEMPLATE(BM_orchestrator_scope_stats_no_wait, true)->Iterations(no_wait_tasks);

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    return bench::run_checked("orchestrator_bench");
}
