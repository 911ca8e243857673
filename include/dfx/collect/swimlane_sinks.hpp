// Which producers each role needs for the swimlane guards it was compiled
// with: a role only sends the record kinds its guards stamp, so a lower level
// never transports (or has buffers for) a higher level's records.
#pragma once

#include <type_traits>

#include "dfx/collect/producers.hpp"
#include "dfx/record/swimlane_records.hpp"

namespace dfx {

template <class AicoreGuards, class Overflow>
using swimlane_aicore_sink =
    std::conditional_t<AicoreGuards::timing, producers<Overflow, aicore_task_record>, producers<Overflow>>;

template <class SchedulerGuards, class Overflow>
using swimlane_scheduler_sink = std::conditional_t<
    SchedulerGuards::phases, producers<Overflow, aicpu_task_record, sched_phase_record>,
    std::conditional_t<SchedulerGuards::dispatch_finish, producers<Overflow, aicpu_task_record>, producers<Overflow>>>;

template <class OrchestratorGuards, class Overflow>
using swimlane_orchestrator_sink =
    std::conditional_t<OrchestratorGuards::phases, producers<Overflow, orch_phase_record>, producers<Overflow>>;

}  // namespace dfx
