// report_once: the report's measurement of a run, compiled once. Measuring a
// run reads every artefact it holds (records, deps.json, scope stats, PMU),
// the heaviest code of `dfx report` and `dfx compare`: defined in
// cmd_report.cpp, and cmd_compare.cpp calls it instead of compiling its own
// copy (cmd_compare.cpp then compiled in 0.6x the time,
// bench/compile_time/dfx_tus.sh). swimlane_once.hpp does the same for the
// swimlane readers and trace writer.
//
//   const rep::unit_measures m = measure_run_unit(unit, stderr, 120, /*keep_digest=*/true);
#pragma once

#include <cstddef>
#include <cstdio>

#include "dfx/convert/report/run_units.hpp"
#include "dfx/convert/report/unit_measures.hpp"

namespace dfx::cli {

// report::measure_unit.
dfx::convert::report::unit_measures measure_run_unit(const dfx::convert::report::run_unit& unit, std::FILE* warnings,
                                                     std::size_t timeline_bins, bool keep_digest);

}  // namespace dfx::cli
