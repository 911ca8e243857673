// The member names of chip_swimlane_records.json (spec chip-swimlane.md §2)
// that more than one file spells: the writer (output/chip_swimlane_json.hpp),
// the readers in convert/ and `dfx all`, which peeks at the level to decide
// what applies.
//
//   out.raw("{\n  \"").raw(dfx::schema::records_level_member).raw("\": ");   // the writer
//   if (key == dfx::schema::records_level_member) ...                        // a reader
//
// The row layouts inside aicore_tasks / aicpu_tasks are positional and
// documented where they are written and read.
#pragma once

#include <string_view>

namespace dfx::schema {

// Top level, in the order the writer puts them.
inline constexpr std::string_view records_level_member = "chip_swimlane_level";
inline constexpr std::string_view records_metadata_member = "metadata";
inline constexpr std::string_view records_aicore_tasks_member = "aicore_tasks";
inline constexpr std::string_view records_aicpu_tasks_member = "aicpu_tasks";
inline constexpr std::string_view records_scheduler_phases_member = "aicpu_scheduler_phases";
inline constexpr std::string_view records_orchestrator_phases_member = "aicpu_orchestrator_phases";
inline constexpr std::string_view records_host_orchestrator_phases_member = "host_orchestrator_phases";

// Inside metadata.
inline constexpr std::string_view records_clock_freq_member = "clock_freq_hz";
inline constexpr std::string_view records_num_cores_member = "num_cores";
inline constexpr std::string_view records_core_types_member = "core_types";
inline constexpr std::string_view records_core_to_thread_member = "core_to_thread";

// Inside a scheduler phase object: its kind (schema/phase_kinds.hpp names the values).
inline constexpr std::string_view phase_kind_member = "kind";

}  // namespace dfx::schema
