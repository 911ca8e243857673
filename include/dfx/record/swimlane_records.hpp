// Chip swimlane records: what each level's stamps store.
//
// Plain aggregates (Boost.PFR reflects them) with sizes asserted, so a change
// in layout is a deliberate one. Timestamps are raw ticks of the clock source.
#pragma once

#include <cstdint>

#include "dfx/schema/phase_kinds.hpp"

namespace dfx {

// Level >= 1, one per task execution on an AICore (the producer is the core,
// so the core id is implied by the buffer it lands in).
struct aicore_task_record {
    std::uint64_t start = 0;
    std::uint64_t end = 0;
    std::uint64_t task_token = 0;          // ring << 32 | local id; identity, not a join key
    std::uint32_t reg_task_id = 0;         // per-core dispatch token: the join key with aicpu_task_record
    std::uint32_t receive_to_start = 0;    // start - receive, saturated
};
static_assert(sizeof(aicore_task_record) == 32);

// Level >= 2, one per dispatch, stamped by the AICPU scheduler thread.
struct aicpu_task_record {
    std::uint64_t dispatch = 0;
    std::uint64_t finish = 0;
    std::uint32_t core = 0;
    std::uint32_t reg_task_id = 0;
};
static_assert(sizeof(aicpu_task_record) == 24);

// The scheduler-loop phase kinds: the reference's ChipSwimlaneSchedPhaseKind
// values (0-13, 3 unused), plus `generic` for a scheduler that is not
// Simpler's, defined once with their names in schema/phase_kinds.hpp. What
// each means, also on a CPU thread pool: docs/swimlane.md.
using sched_phase_kind = schema::phase_kind;

// Ready-queue depths per core type, in the reference's [AIC, AIV, MIX] order.
struct queue_depths {
    std::int16_t aic = 0;
    std::int16_t aiv = 0;
    std::int16_t mix = 0;
};

// Level >= 3, one per non-idle scheduler-loop phase.
struct sched_phase_record {
    std::uint64_t start = 0;
    std::uint64_t end = 0;
    std::uint64_t task_id = 0;             // dummy_task, predicated_skip, graph_prepare only
    std::uint32_t loop_iter = 0;
    std::uint32_t tasks_processed = 0;
    std::uint32_t pop_hit = 0;             // dispatch only
    std::uint32_t pop_miss = 0;            // dispatch only
    queue_depths depth_at_start{};
    queue_depths depth_at_end{};
    sched_phase_kind kind = sched_phase_kind::complete;
    std::uint8_t reserved[3]{};
};
static_assert(sizeof(sched_phase_record) == 56);

// Level 4, one per submit_task() / alloc_tensors() of the orchestrator.
struct orch_phase_record {
    std::uint64_t start = 0;
    std::uint64_t end = 0;
    std::uint64_t task_id = 0;
    std::uint32_t submit_idx = 0;
    std::uint32_t reserved = 0;
};
static_assert(sizeof(orch_phase_record) == 32);

}  // namespace dfx
