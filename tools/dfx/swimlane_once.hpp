// swimlane_once: the swimlane capture's readers and trace writer, compiled
// once. They are the heaviest code of dfx (the records reader, the deps.json
// reader, both trace backends); every command that includes their headers
// and calls them compiles its own copy. These are defined in
// cmd_swimlane.cpp, which compiles them anyway, and the other commands call
// these instead: cmd_critical_path.cpp compiled in half the time (39.8 ->
// 20.6 s), cmd_sched_overhead.cpp in 0.7x (bench/compile_time/dfx_tus.sh).
// The one-unit build (-Dconverters_one_unit) compiled them once already.
//
//   sw::perf_data pd = read_swimlane_records(records, stderr, lenient, sw::phase_records::loop);
//   sw::deps_graph g = read_swimlane_deps(deps, stderr, sw::deps_policy::required, lenient,
//                                         dfx::convert::reader_threads::one_thread, false);
//   for (const std::string& t : perfetto_cpm_traces(dir, records, name_map, result, lenient)) ...
#pragma once

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "dfx/convert/swimlane/deps_graph.hpp"
#include "dfx/convert/swimlane/perf_data.hpp"

namespace dfx::convert::deps {
struct cp_result;
}

namespace dfx::cli {

// swimlane::load_perf_data.
dfx::convert::swimlane::perf_data read_swimlane_records(const std::string& path, std::FILE* warnings, bool lenient,
                                                        dfx::convert::swimlane::phase_records phases);

// swimlane::load_deps_graph.
dfx::convert::swimlane::deps_graph read_swimlane_deps(const std::string& path, std::FILE* warnings,
                                                      dfx::convert::swimlane::deps_policy policy, bool lenient,
                                                      dfx::convert::reader_threads threads, bool task_maps);

// deps::write_cpm_perfetto_traces: critical-path's Perfetto CPM traces are
// swimlane traces.
std::vector<std::string> perfetto_cpm_traces(const std::filesystem::path& dir, const std::filesystem::path& records,
                                             const std::filesystem::path& name_map,
                                             const dfx::convert::deps::cp_result& r, bool lenient);

}  // namespace dfx::cli
