// A program of a project that uses the *installed* dfxkit: built once by the
// Meson project in meson/ (dependency('dfxkit') through pkg-config) and once
// by the CMake project in cmake/ (find_package(dfxkit) + dfxkit::dfxkit).
//
// It includes the umbrella header, so every installed header (and Boost.Hana,
// through the package's dependencies) must resolve, and checks real behaviour:
// validation, the compile-time collectors matching the validated choice,
// selection over a compiled space, and a role view stamping into a sink.
// Exit status 0 only when every check holds.

#include <cstdint>
#include <cstdio>
#include <string>
#include <type_traits>

#include <dfx/dfx.hpp>

#ifndef DFX_CONSUMER_BUILD_SYSTEM
#error "the consumer project must define DFX_CONSUMER_BUILD_SYSTEM"
#endif
#ifndef DFX_CONSUMER_DFXKIT_VERSION
#error "the consumer project must define DFX_CONSUMER_DFXKIT_VERSION (the version its build system found)"
#endif

namespace {

int failures = 0;

void check(bool ok, const char* what) {
    std::printf("%s %s\n", ok ? "ok  " : "FAIL", what);
    if (!ok) ++failures;
}

struct counting_sink {
    int aicore = 0;
    int aicpu = 0;
    void push(const dfx::aicore_task_record&) noexcept { ++aicore; }
    void push(const dfx::aicpu_task_record&) noexcept { ++aicpu; }
};

// A narrow compiled space: swimlane 0 or 2, every other collector off.
using space = dfx::compiled_space<dfx::swimlane_levels<0, 2>, dfx::dump_levels<0>, dfx::pmu_events<0>,
                                  dfx::dep_gen_values<false>, dfx::scope_stats_values<false>>;

}  // namespace

int main() {
    std::printf("dfxkit %s via %s\n", DFX_CONSUMER_DFXKIT_VERSION, DFX_CONSUMER_BUILD_SYSTEM);

    dfx::run_config_input in;
    in.enable_chip_swimlane = dfx::level_arg{2};
    in.output_prefix = "/tmp/dfx_outputs/";
    const dfx::run_config cfg = dfx::validate(in);
    check(cfg.collectors.swimlane_level == 2, "validate: chip swimlane level 2 stays 2");
    check(cfg.output_prefix == "/tmp/dfx_outputs", "validate: trailing '/' of the output prefix dropped");
    check(cfg.keep_work_dir, "validate: an enabled collector keeps the work dir");

    dfx::run_config_input bare;
    bare.enable_chip_swimlane = true;
    bare.output_prefix = "out";
    check(dfx::validate(bare).collectors.swimlane_level == 4, "validate: enable_chip_swimlane=true means level 4");

    std::string field;
    try {
        dfx::run_config_input bad;
        bad.enable_chip_swimlane = dfx::level_arg{5};
        bad.output_prefix = "out";
        (void)dfx::validate(bad);
    } catch (const dfx::config_error& e) {
        field = e.field();
    }
    check(field == "enable_chip_swimlane", "validate: level 5 raises config_error naming enable_chip_swimlane");

    using level2 = dfx::collectors<dfx::swimlane_level<2>>;
    check(level2::choice == cfg.collectors, "collectors<swimlane_level<2>> is the validated choice");

    const bool selected = dfx::select_scheduler<space>(cfg, [](auto guards) {
        using G = decltype(guards);
        return G::dispatch_finish && !G::phases && G::dump_level == 0;
    });
    check(selected, "select_scheduler: level 2 picks dispatch/finish without phases");

    dfx::run_config_input level3 = in;
    level3.enable_chip_swimlane = dfx::level_arg{3};
    field.clear();
    try {
        dfx::select_scheduler<space>(dfx::validate(level3), [](auto) {});
    } catch (const dfx::config_error& e) {
        field = e.field();
    }
    check(field == "enable_chip_swimlane", "select_scheduler: level 3 is outside the compiled space");

    counting_sink sink;
    dfx::collector_set<level2, dfx::steady_clock_source, counting_sink> collectors{&sink};
    auto worker = collectors.aicore();
    auto scheduler = collectors.scheduler();
    for (std::uint32_t task = 0; task < 3; ++task) {
        auto stamp = scheduler.dispatching();
        worker.received(task, task + 1);
        worker.started();
        worker.ended();
        scheduler.finished(0, task + 1, stamp);
        auto phase = scheduler.phase(dfx::sched_phase_kind::dispatch, task);  // level 2: no phases
        static_assert(std::is_empty_v<decltype(phase)>);
        phase.processed(1);
    }
    check(sink.aicore == 3 && sink.aicpu == 3, "views at level 2: 3 AICore and 3 dispatch/finish records");

    std::printf("%s\n", failures == 0 ? "consumer OK" : "consumer FAILED");
    return failures == 0 ? 0 : 1;
}
