// The two kinds of AICore: AIC (cube) and AIV (vector).
//
//   layout.core_types.push_back(dfx::core_type::aiv);   swimlane: the core's kind
//   view.pmu_end(task_id, func_id, dfx::core_type::aiv); PMU: the row's kind
//
// One enum for every artefact: the values are the reference's core_type
// column of pmu.csv (0 AIC, 1 AIV) and name the "aic" / "aiv" strings of the
// records file's core_types. On a CPU thread pool with one kind of worker,
// use aiv for every core (the reference reader's default, too).
#pragma once

#include <cstdint>

namespace dfx {

enum class core_type : std::uint8_t { aic = 0, aiv = 1 };

}  // namespace dfx
