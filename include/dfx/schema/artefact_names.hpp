// The file names of what a run writes under its prefix (<work_dir>/dfx_outputs/
// or an L3 dispatch's rank<r>/d<k>/): the on-disk contract the writers in
// output/ and the readers in convert/ share, so both spell each name once.
//
//   const auto records = prefix / dfx::schema::records_file;               // the writer
//   file_in(arg, {dfx::schema::records_file, dfx::schema::legacy_records_file});  // a reader
//
// Names inside a subdirectory come as the directory, the file, and the path
// relative to the prefix (what a reader given the prefix looks for).
// What the converters write is in schema/converter_outputs.hpp; the L3
// directories and dispatch_program.json are in schema/l3_layout.hpp.
#pragma once

#include <string_view>

namespace dfx::schema {

// Chip swimlane (../shared/spec/chip-swimlane.md §2).
inline constexpr std::string_view records_file = "chip_swimlane_records.json";
// The reference's pre-v3 name of the same file; readers still accept it.
inline constexpr std::string_view legacy_records_file = "l2_perf_records.json";

// Dependency graph (dep_gen).
inline constexpr std::string_view deps_file = "deps.json";

// Args dump: a manifest and the payload file it points at, in their own directory.
inline constexpr std::string_view args_dump_dir = "args_dump";
inline constexpr std::string_view args_dump_manifest_file = "args_dump.json";
inline constexpr std::string_view args_dump_manifest_path = "args_dump/args_dump.json";
// The payload's name when a manifest has no bin_file key (the reference default).
inline constexpr std::string_view args_bin_file = "args.bin";

// PMU counters (../shared/spec/args-dump-and-pmu.md B3); columns in schema/pmu_columns.hpp.
inline constexpr std::string_view pmu_csv_file = "pmu.csv";

// Scope stats, in their own directory.
inline constexpr std::string_view scope_stats_dir = "scope_stats";
inline constexpr std::string_view scope_stats_file = "scope_stats.jsonl";
inline constexpr std::string_view scope_stats_path = "scope_stats/scope_stats.jsonl";

// The name map: name_map.json, or name_map_<case>.json for a named case
// (output/name_map.hpp sanitises the case name).
inline constexpr std::string_view name_map_file = "name_map.json";
inline constexpr std::string_view name_map_stem = "name_map";
inline constexpr std::string_view name_map_extension = ".json";

// True for name_map.json and name_map<anything>.json, the names a reader
// looking for "the" name map of a directory accepts.
constexpr bool is_name_map_file_name(std::string_view name) noexcept {
    return name.size() >= name_map_file.size() && name.substr(0, name_map_stem.size()) == name_map_stem &&
           name.substr(name.size() - name_map_extension.size()) == name_map_extension;
}

static_assert(args_dump_manifest_path.substr(0, args_dump_dir.size()) == args_dump_dir);
static_assert(args_dump_manifest_path.substr(args_dump_dir.size() + 1) == args_dump_manifest_file);
static_assert(scope_stats_path.substr(0, scope_stats_dir.size()) == scope_stats_dir);
static_assert(scope_stats_path.substr(scope_stats_dir.size() + 1) == scope_stats_file);
static_assert(is_name_map_file_name(name_map_file) && is_name_map_file_name("name_map_case.json") &&
              !is_name_map_file_name("name_map.jsonl") && !is_name_map_file_name("deps.json"));

}  // namespace dfx::schema
