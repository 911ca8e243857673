// Which producers each role needs for the guards it was compiled with: a role
// only sends the record kinds its guards stamp, so a collector that is off
// (or a lower swimlane level) never transports, or has buffers for, records
// it does not need.
#pragma once

#include "dfx/collect/producers.hpp"
#include "dfx/record/args_call_record.hpp"
#include "dfx/record/args_dump_records.hpp"
#include "dfx/record/dep_gen_records.hpp"
#include "dfx/record/pmu_record.hpp"
#include "dfx/record/scope_stats_records.hpp"
#include "dfx/record/swimlane_records.hpp"

namespace dfx {

template <class AicoreGuards, class Overflow>
using aicore_sink =
    producers_of<Overflow, when<AicoreGuards::timing, aicore_task_record>, when<AicoreGuards::pmu, pmu_record>>;

// A dump sends a record per capture call and, on a second channel, the tensor bytes.
template <class SchedulerGuards, class Overflow>
using scheduler_sink = producers_of<Overflow, when<SchedulerGuards::dispatch_finish, aicpu_task_record>,
                                    when<SchedulerGuards::phases, sched_phase_record>,
                                    when<(SchedulerGuards::dump_level > 0), args_call_record>,
                                    when<(SchedulerGuards::dump_level > 0), args_payload_chunk>>;

template <class OrchestratorGuards, class Overflow>
using orchestrator_sink =
    producers_of<Overflow, when<OrchestratorGuards::phases, orch_phase_record>,
                 when<OrchestratorGuards::dep_gen, dep_gen_record>,
                 when<OrchestratorGuards::scope_stats, scope_stats_record>>;

}  // namespace dfx
