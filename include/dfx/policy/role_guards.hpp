// Per-role guard sets: the few bits of the collector policies that change the
// code a role runs. Two configurations with the same guards for a role share
// one instantiation of that role's loop, which is what keeps the number of
// compiled loops small (see docs/selection.md).
#pragma once

#include "dfx/policy/collector_choice.hpp"
#include "dfx/policy/dump_level.hpp"

namespace dfx {

// AICore worker: per-task timing (swimlane >= 1) and PMU counters (any event;
// the event type only changes what the counter source programs at start-up
// and how the host names the columns, not the worker loop).
template <bool Timing, bool Pmu>
struct aicore_guards {
    static constexpr bool timing = Timing;
    static constexpr bool pmu = Pmu;
    static constexpr bool any = Timing || Pmu;

    static constexpr bool matches(const collector_choice& c) noexcept {
        return (c.swimlane_level >= 1) == Timing && (c.pmu_event != 0) == Pmu;
    }
};

// AICPU scheduler: dispatch/finish stamps (swimlane >= 2), loop phases
// (swimlane >= 3) and argument capture (dump level).
template <bool DispatchFinish, bool Phases, int DumpLevel>
struct scheduler_guards {
    static_assert(!Phases || DispatchFinish,
                  "dfx::scheduler_guards: scheduler phases (level 3) imply dispatch/finish (level 2)");
    static_assert(DumpLevel >= 0 && DumpLevel <= max_dump_level,
                  "dfx::scheduler_guards: dump level in [0, 2]");

    static constexpr bool dispatch_finish = DispatchFinish;
    static constexpr bool phases = Phases;
    static constexpr int dump_level = DumpLevel;
    static constexpr bool any = DispatchFinish || DumpLevel > 0;

    static constexpr bool matches(const collector_choice& c) noexcept {
        return (c.swimlane_level >= 2) == DispatchFinish && (c.swimlane_level >= 3) == Phases &&
               c.dump_level == DumpLevel;
    }
};

// Orchestrator: submit/alloc phases (swimlane 4), per-submit graph capture
// (dep_gen) and ring fill per scope (scope stats).
template <bool Phases, bool DepGen, bool ScopeStats>
struct orchestrator_guards {
    static constexpr bool phases = Phases;
    static constexpr bool dep_gen = DepGen;
    static constexpr bool scope_stats = ScopeStats;
    static constexpr bool any = Phases || DepGen || ScopeStats;

    static constexpr bool matches(const collector_choice& c) noexcept {
        return (c.swimlane_level >= 4) == Phases && c.dep_gen == DepGen &&
               c.scope_stats == ScopeStats;
    }
};

}  // namespace dfx
