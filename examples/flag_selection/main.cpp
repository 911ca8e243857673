// Run-time flags -> compiled collector choices, per role.
//
// Parses the reference flag surface, validates it, asks each role which of
// its compiled guard sets the flags select, and runs a few tasks through the
// selected views so the records each role produced can be counted. This is
// the pattern a runtime follows: validate once, select per role, then run
// each role's loop with its own view type.
//
//   dfx-flag-selection --chip-swimlane-level 2 --enable-pmu 4 --tasks 1000
#include <cstdint>
#include <cstdio>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "dfx/dfx.hpp"
#include "dfx/config/cli_flags.hpp"

namespace {

// Counts what each role pushed; a real runtime hands its transport producer here.
struct counting_sink {
    std::uint64_t aicore = 0, aicpu = 0, phases = 0, orchestrator = 0, dep_gen = 0, scope_stats = 0;
    void push(const dfx::aicore_task_record&) noexcept { ++aicore; }
    void push(const dfx::aicpu_task_record&) noexcept { ++aicpu; }
    void push(const dfx::sched_phase_record&) noexcept { ++phases; }
    void push(const dfx::orch_phase_record&) noexcept { ++orchestrator; }
    void push(const dfx::dep_gen_record&) noexcept { ++dep_gen; }
    void push(const dfx::scope_stats_record&) noexcept { ++scope_stats; }
};

using clock_source = dfx::steady_clock_source;

template <class View>
void run_orchestrator(View view, std::uint32_t tasks) {
    const auto sample = [] { return dfx::scope_sample{}; };
    view.scope_begin(sample);
    for (std::uint32_t t = 0; t < tasks; ++t) {
        auto submit = view.submitting(t);
        view.capture_submit({.task_id = t});
    }
    view.scope_end(sample);
}

template <class View>
void run_scheduler(View view, std::uint32_t tasks) {
    for (std::uint32_t t = 0; t < tasks; ++t) {
        auto phase = view.phase(dfx::sched_phase_kind::dispatch, t);
        auto stamp = view.dispatching();
        phase.processed(1);
        view.finished(t % 24, t, stamp);
    }
}

template <class View>
void run_worker(View view, std::uint32_t tasks) {
    for (std::uint32_t t = 0; t < tasks; ++t) {
        view.received(t, t);
        view.started();
        view.ended();
    }
}

std::string yes_no(bool b) { return b ? "on" : "off"; }

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"Map run-time DFX flags onto the compiled collector choices, per role"};
    dfx::run_config_flags flags;
    dfx::add_run_config_flags(app, flags);
    std::uint32_t tasks = 1000;
    std::string prefix = "dfx_outputs";
    app.add_option("--tasks", tasks, "Tasks to run through each role's view")->check(CLI::Range(1u, 100'000'000u));
    app.add_option("--output-prefix", prefix, "Where the artefacts would go");

    try {
        dfx::parse_with_run_config_flags(app, argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e);
    }

    dfx::run_config cfg;
    try {
        cfg = dfx::validate(flags.to_input(prefix));
    } catch (const dfx::config_error& e) {
        fmt::print(stderr, "error: {}\n", e.what());
        return 2;
    }

    const auto& c = cfg.collectors;
    fmt::print("requested: swimlane level {}, dump level {}, PMU event {} ({}), dep_gen {}, scope_stats {}\n",
               c.swimlane_level, c.dump_level, c.pmu_event,
               dfx::pmu_event_name(static_cast<dfx::pmu_event_id>(c.pmu_event)), yes_no(c.dep_gen),
               yes_no(c.scope_stats));

    counting_sink sink;
    dfx::select_aicore(cfg, [&](auto guards) {
        using G = decltype(guards);
        fmt::print("AICore worker   -> aicore_guards<timing={}, pmu={}>\n", yes_no(G::timing), yes_no(G::pmu));
        run_worker(dfx::aicore_view<G, clock_source, counting_sink>{&sink}, tasks);
    });
    dfx::select_scheduler(cfg, [&](auto guards) {
        using G = decltype(guards);
        fmt::print("AICPU scheduler -> scheduler_guards<dispatch_finish={}, phases={}, dump={}>\n",
                   yes_no(G::dispatch_finish), yes_no(G::phases), G::dump_level);
        run_scheduler(dfx::scheduler_view<G, clock_source, counting_sink>{&sink}, tasks);
    });
    dfx::select_orchestrator(cfg, [&](auto guards) {
        using G = decltype(guards);
        fmt::print("Orchestrator    -> orchestrator_guards<phases={}, dep_gen={}, scope_stats={}>\n",
                   yes_no(G::phases), yes_no(G::dep_gen), yes_no(G::scope_stats));
        run_orchestrator(dfx::orchestrator_view<G, clock_source, counting_sink>{&sink}, tasks);
    });
    fmt::print("Host collectors :");
    bool any_host = false;
    dfx::select_host(cfg, [&](auto policy) {
        using P = decltype(policy);
        any_host = true;
        if constexpr (requires { P::aicore_timing; })
            fmt::print(" swimlane_level<{}>", P::value);
        else if constexpr (requires { P::marked_only; })
            fmt::print(" dump_level<{}>", P::value);
        else if constexpr (requires { P::id; })
            fmt::print(" pmu_event<{}> ({})", P::value, P::name);
        else if constexpr (std::is_same_v<P, dfx::dep_gen<true>>)
            fmt::print(" dep_gen");
        else
            fmt::print(" scope_stats");
    });
    fmt::print("{}\n", any_host ? "" : " none");

    using sizes = dfx::space_size<dfx::default_space>;
    fmt::print("records from {} tasks: aicore {}, aicpu dispatch/finish {}, scheduler phases {}, orchestrator {}, "
               "dep_gen {}, scope stats {}\n",
               tasks, sink.aicore, sink.aicpu, sink.phases, sink.orchestrator, sink.dep_gen, sink.scope_stats);
    fmt::print("compiled guard sets in the default space: AICore {}, scheduler {}, orchestrator {}\n", sizes::aicore,
               sizes::scheduler, sizes::orchestrator);
    if (cfg.any_enabled())
        fmt::print("artefacts would go under {} (keep-work-dir forced on)\n", cfg.output_prefix);
    return 0;
}
