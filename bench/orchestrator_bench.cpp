// dep_gen and scope stats cost on the orchestrator, side by side in one run
// with the uninstrumented loop: per submit (a 3-argument task with one
// explicit dependency) and per scope boundary, collectors compiled off and on,
// records going through the real transport with a live host.
//
//   build/bench/orchestrator_bench
#include <benchmark/benchmark.h>

#include <cstdint>

#include "dfx/collect.hpp"
#include "dfx/output/dep_gen_host.hpp"
#include "dfx/output/scope_stats_host.hpp"

namespace {

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
    ~orchestrator() {
        deps.stop();
        scopes.stop();
    }
};

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

// The submit path of a runtime: fill a descriptor, and capture it.
template <bool DepGen>
void BM_submit(benchmark::State& state) {
    orchestrator<DepGen, false> o;
    {
        auto sink = o.channels.template sink<typename orchestrator<DepGen, false>::sink_type>(0);
        typename orchestrator<DepGen, false>::view_type view{&sink};
        const dfx::tensor_view a = tensor(0x1000), b = tensor(0x2000), c = tensor(0x3000);
        const dfx::submit_arg args[] = {{dfx::arg_type::input, &a}, {dfx::arg_type::input, &b}, {dfx::arg_type::inout, &c}};
        task_descriptor ring[64];
        std::uint64_t id = 0;
        for (auto _ : state) {
            ++id;
            task_descriptor& d = ring[id & 63];
            d.id = id;
            d.args[0] = a.addr;
            d.args[1] = b.addr;
            d.args[2] = c.addr;
            benchmark::DoNotOptimize(d);
            const std::uint64_t deps[1] = {id - 1};
            view.capture_submit({.task_id = id, .kernel_ids = {-1, 1, -1}, .args = args, .explicit_deps = deps});
        }
    }
}

void BM_submit_plain(benchmark::State& state) {
    task_descriptor ring[64];
    std::uint64_t id = 0;
    for (auto _ : state) {
        ++id;
        task_descriptor& d = ring[id & 63];
        d.id = id;
        d.args[0] = 0x1000;
        d.args[1] = 0x2000;
        d.args[2] = 0x3000;
        benchmark::DoNotOptimize(d);
    }
}

// One scope: begin, a little work, end.
template <bool ScopeStats>
void BM_scope(benchmark::State& state) {
    orchestrator<false, ScopeStats> o;
    {
        auto sink = o.channels.template sink<typename orchestrator<false, ScopeStats>::sink_type>(0);
        typename orchestrator<false, ScopeStats>::view_type view{&sink};
        std::int32_t head = 0;
        const auto sample = [&] { return dfx::scope_sample{0, head, 0, static_cast<std::uint64_t>(head) * 64, 1, 1, 0}; };
        for (auto _ : state) {
            view.scope_begin(sample, "orchestrator_bench.cpp", 1);
            ++head;
            benchmark::DoNotOptimize(head);
            view.scope_end(sample);
        }
    }
}

void BM_scope_plain(benchmark::State& state) {
    std::int32_t head = 0;
    for (auto _ : state) {
        ++head;
        benchmark::DoNotOptimize(head);
    }
}

}  // namespace

BENCHMARK(BM_submit_plain);
BENCHMARK_TEMPLATE(BM_submit, false);
BENCHMARK_TEMPLATE(BM_submit, true);
BENCHMARK(BM_scope_plain);
BENCHMARK_TEMPLATE(BM_scope, false);
BENCHMARK_TEMPLATE(BM_scope, true);

BENCHMARK_MAIN();
