// PMU: one record per kernel execution on an AICore (a task on a core; a MIX
// task gives one per participating core, an SPMD task one per block), the
// counter deltas between the view's pmu_begin() and pmu_end(). The core is
// the producer, so its id is implied by the channel the record lands in.
#pragma once

#include <cstdint>

#include "dfx/policy/pmu_event.hpp"
#include "dfx/policy/pmu_source.hpp"
#include "dfx/record/core_type.hpp"

namespace dfx {

struct pmu_record {
    std::uint64_t task_id = 0;                            // (ring << 32) | local id: joins with args_dump.json
    std::uint32_t func_id = 0;                            // kernel id of this core's subtask
    core_type core = core_type::aic;                      // the core_type column: 0 AIC, 1 AIV
    std::uint8_t reserved_core[3] = {};                   // keeps the layout explicit
    std::uint64_t total_cycles = 0;
    std::uint32_t counters[pmu_counter_slots] = {};       // slot i = column pmu_counters(event)[i]; saturated
    pmu_source_kind source = pmu_source_kind::none;       // which counter source produced the counts
    std::uint8_t unavailable_columns = 0;                 // bit i: slot i had no counter and reads 0
    std::uint16_t refused_errno = 0;                      // the preferred source's errno after a fallback
    std::uint32_t reserved = 0;
};
static_assert(sizeof(pmu_record) == 64);

}  // namespace dfx
