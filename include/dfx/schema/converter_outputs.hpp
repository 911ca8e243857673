// The default file names the dfx converters write next to their input (or
// into the dfx_outputs directory `dfx all` walks), so the tool that writes a
// report and the one that looks for it (dfx all, critical-path finding the
// merged traces) agree.
//
//   const std::string out = a.output.empty() ? sibling_path(input, std::string(dfx::schema::merged_trace_file)) : a.output;
//
// What the runtime writes is in schema/artefact_names.hpp.
#pragma once

#include <string_view>

namespace dfx::schema {

// dfx swimlane: the Perfetto / Chrome JSON trace.
inline constexpr std::string_view merged_trace_file = "merged_swimlane.json";
// dfx swimlane --format perfetto: the same trace as Perfetto's protobuf.
inline constexpr std::string_view merged_perfetto_trace_file = "merged_swimlane.pftrace";
// What critical-path looks for beside a records file: the newest merged_swimlane*.json.
inline constexpr std::string_view merged_trace_stem = "merged_swimlane";
static_assert(merged_trace_file.substr(0, merged_trace_stem.size()) == merged_trace_stem);
// dfx sched-overhead's report (dfx all redirects its stdout here).
inline constexpr std::string_view sched_overhead_report_file = "sched_overhead.txt";
// dfx dump's listing of an args_dump directory (dfx all, inside args_dump/).
inline constexpr std::string_view dump_list_file = "dump_list.txt";
// dfx pmu's summary (dfx all).
inline constexpr std::string_view pmu_summary_file = "pmu_summary.txt";
// dfx critical-path: its per-directory report (--report), the console
// output dfx all keeps, and the two critical-path models it writes.
inline constexpr std::string_view critical_path_markdown_file = "critical_path_report.md";
inline constexpr std::string_view critical_path_report_file = "critical_path.txt";
inline constexpr std::string_view cpm_static_file = "CPM_static.json";
inline constexpr std::string_view cpm_observed_file = "CPM_observed.json";
// ... with --format perfetto, as Perfetto's protobuf.
inline constexpr std::string_view cpm_static_perfetto_file = "CPM_static.pftrace";
inline constexpr std::string_view cpm_observed_perfetto_file = "CPM_observed.pftrace";
// dfx scope-stats: the self-contained HTML report.
inline constexpr std::string_view scope_stats_report_file = "scope_stats.html";
// dfx report --format html: the self-contained page, in the directory
// reported on unless -o names another.
inline constexpr std::string_view report_page_file = "dfx_report.html";
// dfx compare A B --format html: the self-contained page, in B unless -o
// names another file.
inline constexpr std::string_view compare_page_file = "dfx_compare.html";
// dfx all, in its scratch directory: the empty name map an L3 dispatch whose
// program cannot be resolved is labelled with.
inline constexpr std::string_view anonymous_name_map_file = "anonymous_name_map.json";

}  // namespace dfx::schema
