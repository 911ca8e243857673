// The two kinds of AICore: AIC (cube) and AIV (vector).
//
//   layout.core_types.push_back(dfx::core_type::aiv);   swimlane: the core's kind
//   view.pmu_end(task_id, func_id, dfx::core_type::aiv); PMU: the row's kind
//
// One enum for every artefact, defined with its numbers and names in
// schema/core_types.hpp (the reference's core_type column of pmu.csv, 0 AIC
// and 1 AIV, and the "aic" / "aiv" strings of the records file's core_types).
// On a CPU thread pool with one kind of worker, use aiv for every core (the
// reference reader's default, too).
#pragma once

#include "dfx/schema/core_types.hpp"

namespace dfx {

using core_type = schema::core_type;

}  // namespace dfx
