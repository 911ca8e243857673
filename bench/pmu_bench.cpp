// PMU cost per task on the AICore worker, for each counter source, side by
// side in one run with the uninstrumented loop, the loop compiled with PMU
// off, and a runtime-gated twin (PMU compiled on, pmu_begin / pmu_end each
// behind `if (enabled)` on a run-time int, as the reference does). Records
// (one pmu_record per task) go through the real transport to a live
// dfx::pmu_host (event 2, PIPE_UTILIZATION) draining them. One iteration is
// one task, so the time per iteration is the cost per task.
//
// Names: BM_worker_pmu_{plain, typed<S>, runtime_gated<S>/on}, S the counter
// source. Every variant runs the same kernel (the 32-FMA kernel of
// swimlane_bench), so
//   typed<off> - plain              what the compiled-off calls cost (0: they are empty)
//   typed<S> - plain                reading source S twice and sending the record, compiled on
//   runtime_gated<S>/0 - plain      the reference's shape with PMU off: the branches
//   runtime_gated<S>/1 - plain      ... with PMU on: the capture plus the branches
//
//   BM_worker_pmu_plain                     the kernel alone
//   BM_worker_pmu_typed<off>                pmu_event<0>: the view's PMU calls compiled empty, no source
//   BM_worker_pmu_typed<S>                  pmu_event<2> with source S
//   BM_worker_pmu_runtime_gated<S>/0|1      pmu_event<2> with source S, calls behind `if (enabled)`
//
// The sources S (policy/pmu_source.hpp, policy/perf_pmu_source.hpp):
//   perf_event      dfx::perf_pmu_source<>: the thread's CPU counters through
//                   perf_event_open, one read() system call per counter per
//                   sample. Where the kernel refuses perf_event_open (the
//                   2-vCPU development VM: ENOENT, no PMU in the guest) these
//                   benchmarks are SKIPPED with an error saying so and
//                   measure nothing: the fallback is never timed under the
//                   perf name.
//   simulated       dfx::simulated_pmu_source: deterministic counts.
//   host_fallback   dfx::host_pmu_source, what dfx-sim uses: perf_event_open
//                   if granted, else the simulated source. The label says
//                   which source counted (and perf's errno when refused).
//   device          a device runtime's own source, modelled here: the core's
//                   cycle and 8 event counters read as 9 volatile 64-bit
//                   loads from a register block. On this host the block is
//                   ordinary memory, so this is the capture's own cost plus
//                   the loads; a real MMIO read adds its bus latency twice
//                   per task.
// After each run the host's rows are checked: one per task (none for
// runtime_gated/0), each from the source the benchmark names, none dropped;
// a mismatch fails the benchmark (error) and the program exits 1, so the
// bench_smoke test catches it. A refused perf_event_open is not a failure:
// it is the host's answer, reported as the benchmark's error text.
//
// The gated twins test `runtime_enabled`, a volatile global set from the
// benchmark's argument: read at every test, as a runtime reads its config,
// so the compiler can neither fold it nor unswitch the loop on it.
//
//   build/bench/pmu_bench [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include "checked_run.hpp"

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <type_traits>

#include "dfx/collect.hpp"
#include "dfx/output/channel_registry.hpp"
#include "dfx/output/pmu_host.hpp"
#include "dfx/policy/perf_pmu_source.hpp"

namespace {

using clock_source = dfx::tsc_clock;
using overflow = dfx::block<>;
constexpr int event = 2;  // PIPE_UTILIZATION, the reference's default
constexpr std::uint32_t func_id = 1;

// The gated twins' run-time switch (see the top of the file).
volatile int runtime_enabled = 0;

using bench::failed_checks;

// A small kernel, so the capture's share is visible: 32 multiply-adds (the
// same as swimlane_bench's worker).
float data[32] = {};
inline float kernel(float* d, std::uint64_t task) {
    float acc = static_cast<float>(task & 7);
    for (int i = 0; i < 32; ++i) acc = acc * 0.999f + d[i];
    d[task & 31] = acc;
    return acc;
}

// The device's PMU counter registers, as a stand-in: the cycle counter, then
// the 8 event counters.
volatile std::uint64_t device_registers[1 + dfx::pmu_counter_slots] = {};

// The counter sources, named as they appear in the benchmark names.
struct off {};  // PMU compiled off: no source at all
using perf_event = dfx::perf_pmu_source<>;
using simulated = dfx::simulated_pmu_source;
using host_fallback = dfx::host_pmu_source;

// A device runtime's own source (it only has to model dfx::pmu_counter_source).
class device {
public:
    bool open(dfx::pmu_event_id) noexcept { return true; }  // the event selectors are programmed at start-up
    void read(dfx::pmu_sample& out) noexcept {
        out.total_cycles = device_registers[0];
        for (int i = 0; i < dfx::pmu_counter_slots; ++i) out.counters[i] = device_registers[1 + i];
    }
    dfx::pmu_source_status status() const noexcept { return {dfx::pmu_source_kind::device, 0, 0}; }
};
static_assert(dfx::pmu_counter_source<device>);

template <class Source>
constexpr dfx::pmu_source_kind expected_kind() {
    if constexpr (std::is_same_v<Source, perf_event>) return dfx::pmu_source_kind::perf_event;
    else if constexpr (std::is_same_v<Source, simulated>) return dfx::pmu_source_kind::simulated;
    else if constexpr (std::is_same_v<Source, device>) return dfx::pmu_source_kind::device;
    else return dfx::pmu_source_kind::none;  // host_fallback: whichever it opened
}

std::string errno_text(unsigned e) { return "errno " + std::to_string(e) + ": " + std::strerror(static_cast<int>(e)); }

// Opens the source on the calling (benchmark) thread, which is the thread
// perf counts. False, with the benchmark skipped and the reason given, when
// it cannot count: perf_event_open refused is never measured as something else.
template <class Source>
bool open_source(benchmark::State& state, Source& source) {
    if (!source.open(static_cast<dfx::pmu_event_id>(event))) {
        const std::string why = "perf_event_open refused (" + errno_text(source.status().refused_errno) +
                                "): nothing measured under this name; the fallback runs as <host_fallback>";
        state.SkipWithError(why.c_str());
        return false;
    }
    const dfx::pmu_source_status s = source.status();
    std::string label = dfx::pmu_source_name(s.kind);
    if (s.kind == dfx::pmu_source_kind::simulated) label = "simulated";
    if (s.refused_errno != 0) label += ", perf_event_open refused (" + errno_text(s.refused_errno) + ")";
    if (s.unavailable_columns != 0) {
        int n = 0;
        for (int i = 0; i < dfx::pmu_counter_slots; ++i) n += (s.unavailable_columns >> i) & 1;
        label += ", " + std::to_string(n) + " columns without a counter";
    }
    state.SetLabel(label);
    return true;
}

// One core's PMU channel and a live host draining it.
struct fixture {
    dfx::channel_registry channels;
    dfx::pmu_host<> host{event, dfx::pmu_layout{.core_to_thread = {0}}, channels};
    fixture() { host.start(); }
};

using on_guards = dfx::collectors<dfx::swimlane_level<0>, dfx::dump_level<0>, dfx::pmu_event<event>>::aicore;
using on_sink = dfx::aicore_sink<on_guards, overflow>;
static_assert(on_guards::pmu && !on_guards::timing);

// After host.stop(): one row per captured task, each from the expected source.
void check_rows(benchmark::State& state, const dfx::pmu_host<>& host, std::uint64_t expected, dfx::pmu_source_kind kind) {
    const dfx::pmu_summary s = host.summary();
    const auto k = static_cast<std::size_t>(kind);
    if (s.rows != expected || s.dropped != 0 || (expected > 0 && s.rows_by_source[k] != expected)) {
        const std::string why = "PMU rows do not match: " + std::to_string(s.rows) + " rows (" +
                                std::to_string(s.rows_by_source[k]) + " from the expected source), " +
                                std::to_string(s.dropped) + " dropped, " + std::to_string(expected) + " tasks captured";
        ++failed_checks;
        state.SkipWithError(why.c_str());
    }
}

void BM_worker_pmu_plain(benchmark::State& state) {
    std::uint64_t task = 0;
    for (auto _ : state) benchmark::DoNotOptimize(kernel(data, ++task));
}

template <class Source>
void BM_worker_pmu_typed(benchmark::State& state) {
    if constexpr (std::is_same_v<Source, off>) {
        using guards = dfx::all_off::aicore;
        using sink_type = dfx::aicore_sink<guards, overflow>;
        static_assert(!guards::pmu);
        dfx::channel_registry channels;  // no collector: the sink has no producer
        auto sink = channels.sink<sink_type>(0);
        dfx::aicore_view<guards, clock_source, sink_type> view{&sink};
        std::uint64_t task = 0;
        for (auto _ : state) {
            ++task;
            view.pmu_begin();
            benchmark::DoNotOptimize(kernel(data, task));
            view.pmu_end(task, func_id, dfx::core_type::aiv);
        }
    } else {
        fixture f;
        Source source;
        if (!open_source(state, source)) return;
        {
            auto sink = f.channels.sink<on_sink>(0);
            dfx::aicore_view<on_guards, clock_source, on_sink, Source> view{&sink, &source};
            std::uint64_t task = 0;
            for (auto _ : state) {
                ++task;
                view.pmu_begin();
                benchmark::DoNotOptimize(kernel(data, task));
                view.pmu_end(task, func_id, dfx::core_type::aiv);
            }
        }  // the sink publishes its last buffer
        f.host.stop();
        const dfx::pmu_source_kind kind = std::is_same_v<Source, host_fallback> ? source.status().kind : expected_kind<Source>();
        check_rows(state, f.host, static_cast<std::uint64_t>(state.iterations()), kind);
    }
}

template <class Source>
void BM_worker_pmu_runtime_gated(benchmark::State& state) {
    runtime_enabled = static_cast<int>(state.range(0));
    fixture f;
    Source source;
    if (!open_source(state, source)) return;
    {
        auto sink = f.channels.sink<on_sink>(0);
        dfx::aicore_view<on_guards, clock_source, on_sink, Source> view{&sink, &source};
        std::uint64_t task = 0;
        for (auto _ : state) {
            ++task;
            if (runtime_enabled) view.pmu_begin();
            benchmark::DoNotOptimize(kernel(data, task));
            if (runtime_enabled) view.pmu_end(task, func_id, dfx::core_type::aiv);
        }
    }
    f.host.stop();
    const dfx::pmu_source_kind kind = std::is_same_v<Source, host_fallback> ? source.status().kind : expected_kind<Source>();
    check_rows(state, f.host, state.range(0) ? static_cast<std::uint64_t>(state.iterations()) : 0, kind);
}

}  // namespace

BENCHMARK(BM_worker_pmu_plain);
BENCHMARK_TEMPLATE(BM_worker_pmu_typed, off);
BENCHMARK_TEMPLATE(BM_worker_pmu_typed, perf_event);
BENCHMARK_TEMPLATE(BM_worker_pmu_runtime_gated, perf_event)->Arg(0)->Arg(1);
BENCHMARK_TEMPLATE(BM_worker_pmu_typed, simulated);
BENCHMARK_TEMPLATE(BM_worker_pmu_runtime_gated, simulated)->Arg(0)->Arg(1);
BENCHMARK_TEMPLATE(BM_worker_pmu_typed, host_fallback);
BENCHMARK_TEMPLATE(BM_worker_pmu_runtime_gated, host_fallback)->Arg(0)->Arg(1);
BENCHMARK_TEMPLATE(BM_worker_pmu_typed, device);
BENCHMARK_TEMPLATE(BM_worker_pmu_runtime_gated, device)->Arg(0)->Arg(1);

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    return bench::run_checked("pmu_bench");
}
