// Swimlane collection level as a type.
//
// Each level is a real guard: data a level does not record cannot be
// recovered later, and code for a level that is off is never instantiated.
//   0 off
//   1 AICore per-task receive/start/end timing
//   2 = 1 + AICPU-stamped dispatch/finish per dispatch
//   3 = 2 + scheduler-loop phases (and the core-to-thread map)
//   4 = 3 + orchestrator phases
#pragma once

namespace dfx {

inline constexpr int max_swimlane_level = 4;

template <int Level>
struct swimlane_level {
    static_assert(Level >= 0 && Level <= max_swimlane_level,
                  "dfx::swimlane_level: collection level in [0, 4] (0=off, 1=AICore timing, "
                  "2=+dispatch/finish, 3=+sched phases, 4=+orch phases)");

    static constexpr int value = Level;
    static constexpr bool enabled = Level >= 1;
    static constexpr bool aicore_timing = Level >= 1;
    static constexpr bool dispatch_finish = Level >= 2;
    static constexpr bool scheduler_phases = Level >= 3;
    static constexpr bool orchestrator_phases = Level >= 4;
};

}  // namespace dfx
