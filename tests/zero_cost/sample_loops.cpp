// A device runtime's three hot loops, instrumented with dfxkit's role views.
//
// The same source is compiled in several variants (check_zero_cost.py):
//   -DDFX_SAMPLE_PLAIN          the uninstrumented twin: STAMP(...) lines vanish
//                               in the preprocessor, no dfx header is included
//   (no macro)                  instrumented, dfx::collectors<> (everything off)
//   -DDFX_SAMPLE_SWIMLANE=N     instrumented, dfx::collectors<dfx::swimlane_level<N>>
//   -DDFX_SAMPLE_SWITCHES       instrumented, dep_gen and scope stats on (the
//                               orchestrator loop must then differ from plain)
//   -DDFX_SAMPLE_SABOTAGE       instrumented, everything off, plus one extra
//                               volatile store in the worker loop: a deliberate
//                               difference the checker must detect
//
// The clock is dfx::tsc_clock, so every timestamp the views take is exactly
// one rdtsc instruction, which is what the guards test counts.
//
// Only lines wrapped in STAMP(...) may differ between the variants; the code
// around them is shared verbatim, so "off == plain" is a statement about the
// views alone.
#include <cstdint>

#include "sample_loops.hpp"

#if defined(DFX_SAMPLE_PLAIN)

#define STAMP(...)

#else

#include <span>
#include <type_traits>

#include "dfx/collect/collector_set.hpp"
#include "dfx/policy/clock.hpp"
#include "dfx/policy/collectors.hpp"
#include "sample_sink.hpp"

#define STAMP(...) __VA_ARGS__

#if defined(DFX_SAMPLE_SWIMLANE)
using sample_collectors = dfx::collectors<dfx::swimlane_level<DFX_SAMPLE_SWIMLANE>>;
#elif defined(DFX_SAMPLE_SWITCHES)
using sample_collectors = dfx::collectors<dfx::swimlane_level<0>, dfx::dump_level<0>, dfx::pmu_event<0>,
                                          dfx::dep_gen<true>, dfx::scope_stats<true>>;
#else
using sample_collectors = dfx::collectors<>;  // everything off
#endif

using sample_set = dfx::collector_set<sample_collectors, dfx::tsc_clock, dfx_zc_sink>;

// The runtime's collectors: a constant, so the sink's address is folded into
// the loops rather than loaded from memory.
constexpr sample_set the_collectors{&dfx_zc_the_sink};

#endif

// ---------------------------------------------------------------------------
// AICore worker: receive, start, run the kernel, end.
extern "C" std::uint64_t dfx_zc_worker_loop(const dfx_zc_task* tasks, std::uint32_t n_tasks,
                                            const std::uint32_t* data) {
    STAMP(auto view = the_collectors.aicore();)
    std::uint64_t total = 0;
    for (std::uint32_t i = 0; i < n_tasks; ++i) {
        const dfx_zc_task& task = tasks[i];
        STAMP(view.received(task.token, task.reg_id);)
        STAMP(view.started();)
        std::uint64_t sum = 0;  // the "kernel": sum the task's input slice
        for (std::uint32_t j = 0; j < task.length; ++j) sum += data[task.offset + j];
        STAMP(view.ended();)
#if defined(DFX_SAMPLE_SABOTAGE)
        dfx_zc_sabotage_cell = task.reg_id;  // the one side effect the plain twin lacks
#endif
        total += sum;
    }
    return total;
}

// ---------------------------------------------------------------------------
// AICPU scheduler: per-core state keeps the dispatch stamp between dispatch and
// completion, as a real scheduler does. Below level 2 the stamp is an empty
// type and [[no_unique_address]] makes the slot exactly the plain slot.
struct dfx_zc_core_slot {
    std::uint32_t reg_id;  // the token the core last reported back
    STAMP([[no_unique_address]] sample_set::scheduler_view::stamp dispatched;)
};

#if !defined(DFX_SAMPLE_PLAIN)
static_assert(!std::is_empty_v<sample_set::scheduler_view::stamp> ||
                  sizeof(dfx_zc_core_slot) == sizeof(std::uint32_t),
              "an empty dispatch stamp must not change the per-core state");
#endif

dfx_zc_core_slot dfx_zc_core_slots[dfx_zc_max_cores];

extern "C" void dfx_zc_scheduler_loop(const dfx_zc_task* tasks, std::uint32_t n_tasks,
                                      volatile std::uint32_t* regs) {
    STAMP(auto view = the_collectors.scheduler();)
    // Reading the queue depths costs a volatile load; the sampler is only
    // called when phases are on.
    STAMP(const auto depths = [&] { return dfx::queue_depths{static_cast<std::int16_t>(regs[0]), 0, 0}; };)
    for (std::uint32_t iter = 0; iter < n_tasks; ++iter) {
        STAMP(auto phase = view.phase(dfx::sched_phase_kind::dispatch, iter, depths);)
        const dfx_zc_task& task = tasks[iter];
        const std::uint32_t core = task.core % dfx_zc_max_cores;
        dfx_zc_core_slot& slot = dfx_zc_core_slots[core];
        STAMP(slot.dispatched = view.dispatching();)
        regs[core] = task.reg_id;  // dispatch: write the core's register
        slot.reg_id = regs[core];  // completion: the core echoes the token back
        STAMP(view.finished(core, slot.reg_id, slot.dispatched);)
        STAMP(phase.processed(1);)
        STAMP(phase.task(task.token);)
        STAMP(phase.depths_at_end(depths);)
    }
}

// ---------------------------------------------------------------------------
// Orchestrator: one submit per task, building its descriptor.
extern "C" void dfx_zc_orchestrator_loop(std::uint64_t first_id, std::uint32_t n_tasks,
                                         dfx_zc_descriptor* out) {
    STAMP(auto view = the_collectors.orchestrator();)
    // The scope's sampler is only called when scope stats is on.
    STAMP(const auto sample = [&] { return dfx::scope_sample{0, static_cast<std::int32_t>(n_tasks), 0, 0, 1, 1, 0}; };)
    STAMP(view.scope_begin(sample, "sample_loops.cpp", 1);)
    for (std::uint32_t i = 0; i < n_tasks; ++i) {
        const std::uint64_t id = first_id + i;
        STAMP(auto submit = view.submitting(id);)
        dfx_zc_descriptor& desc = out[i];
        desc.task_id = id;
        desc.args[0] = id * 64;
        desc.args[1] = id * 64 + 4096;
        desc.args[2] = id ^ first_id;
        desc.kind = i % 3;
        desc.fanin = i == 0 ? 0 : 1;
        STAMP(const std::uint64_t deps[1] = {id - 1};)
        STAMP(view.capture_submit({.task_id = id, .kernel_ids = {-1, static_cast<std::int32_t>(desc.kind), -1},
                                   .explicit_deps = std::span<const std::uint64_t>(deps, desc.fanin)});)
    }
    STAMP(view.scope_end(sample);)
}
