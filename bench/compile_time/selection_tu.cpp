// Compile-time cost of selection: one TU with a worker, a scheduler and an
// orchestrator loop, each reachable for every flag combination of the
// default space.
//   -DDFX_PER_ROLE   each role selected on its own (what dfxkit does)
//   otherwise        the naive shape: the runtime templated on the whole
//                    collectors<...> bundle, so every loop is instantiated
//                    once per flag combination (480 of them)
#include <cstdint>

#include "dfx/collect.hpp"
#include "dfx/config/selection.hpp"

#include <boost/hana/for_each.hpp>

struct sink {
    std::uint64_t n = 0;
    template <class R>
    void push(const R&) noexcept { ++n; }
};

template <class View, class Bundle = void>
__attribute__((noinline)) void worker_loop(View view, std::uint32_t tasks, float* data) {
    for (std::uint32_t t = 0; t < tasks; ++t) {
        view.received(t, t);
        view.started();
        data[t % 64] = data[(t + 1) % 64] * 1.5f + 1.0f;
        view.ended();
    }
}

template <class View, class Bundle = void>
__attribute__((noinline)) void scheduler_loop(View view, std::uint32_t tasks, std::uint32_t* regs) {
    for (std::uint32_t t = 0; t < tasks; ++t) {
        auto phase = view.phase(dfx::sched_phase_kind::dispatch, t);
        auto stamp = view.dispatching();
        regs[t % 24] = t;
        phase.processed(1);
        view.finished(t % 24, t, stamp);
    }
}

template <class View, class Bundle = void>
__attribute__((noinline)) void orchestrator_loop(View view, std::uint32_t tasks, std::uint64_t* ids) {
    for (std::uint32_t t = 0; t < tasks; ++t) {
        auto submit = view.submitting(t);
        ids[t % 16] = t;
        (void)submit;
    }
}

void run(const dfx::run_config& cfg, sink& s, std::uint32_t tasks, float* data, std::uint32_t* regs,
         std::uint64_t* ids) {
    using clock_source = dfx::steady_clock_source;
#ifdef DFX_PER_ROLE
    dfx::select_aicore(cfg, [&](auto g) { worker_loop(dfx::aicore_view<decltype(g), clock_source, sink>{&s}, tasks, data); });
    dfx::select_scheduler(cfg, [&](auto g) {
        scheduler_loop(dfx::scheduler_view<decltype(g), clock_source, sink>{&s}, tasks, regs);
    });
    dfx::select_orchestrator(cfg, [&](auto g) {
        orchestrator_loop(dfx::orchestrator_view<decltype(g), clock_source, sink>{&s}, tasks, ids);
    });
#else
    namespace hana = boost::hana;
    const auto& c = cfg.collectors;
    using space = dfx::default_space;
    hana::for_each(space::swimlane::policies, [&](auto sw) {
    hana::for_each(space::dump::policies, [&](auto du) {
    hana::for_each(space::pmu::policies, [&](auto pm) {
    hana::for_each(space::deps::policies, [&](auto dg) {
    hana::for_each(space::scopes::policies, [&](auto sc) {
        using bundle = dfx::collectors<typename decltype(sw)::type, typename decltype(du)::type,
                                       typename decltype(pm)::type, typename decltype(dg)::type,
                                       typename decltype(sc)::type>;
        if (!(bundle::choice == c)) return;
        using set = dfx::collector_set<bundle, clock_source, sink>;
        set collectors{&s};
        worker_loop<typename set::aicore_view, bundle>(collectors.aicore(), tasks, data);
        scheduler_loop<typename set::scheduler_view, bundle>(collectors.scheduler(), tasks, regs);
        orchestrator_loop<typename set::orchestrator_view, bundle>(collectors.orchestrator(), tasks, ids);
    }); }); }); }); });
#endif
}
