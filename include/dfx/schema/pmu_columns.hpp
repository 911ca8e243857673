// pmu.csv's column order (spec args-dump-and-pmu.md B3): the fixed leading
// columns, then the event type's named counters in slot order
// (policy/pmu_event.hpp names them), then event_type last. The writer
// (output/pmu_csv.hpp) and the reader (convert/pmu/pmu_csv.hpp) both build
// and check the header from these.
//
//   for (std::string_view c : dfx::schema::pmu_leading_columns) header += c, header += ',';
//   ... counters ...; header += dfx::schema::pmu_event_type_column;
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

namespace dfx::schema {

inline constexpr std::array<std::string_view, 6> pmu_leading_columns = {
    "thread_id", "core_id", "task_id", "func_id", "core_type", "pmu_total_cycles"};
inline constexpr std::string_view pmu_event_type_column = "event_type";

// Where each leading column is in a row.
inline constexpr std::size_t pmu_thread_id_column = 0;
inline constexpr std::size_t pmu_core_id_column = 1;
inline constexpr std::size_t pmu_task_id_column = 2;
inline constexpr std::size_t pmu_func_id_column = 3;
inline constexpr std::size_t pmu_core_type_column = 4;
inline constexpr std::size_t pmu_total_cycles_column = 5;
// The first counter column.
inline constexpr std::size_t pmu_first_counter_column = pmu_leading_columns.size();

static_assert(pmu_leading_columns[pmu_core_type_column] == "core_type");
static_assert(pmu_leading_columns[pmu_total_cycles_column] == "pmu_total_cycles");

// The field separator (no quoting, no trailing comma).
inline constexpr char pmu_separator = ',';

}  // namespace dfx::schema
