// critical_path_perfetto: critical-path's two CPM traces as Perfetto's native
// protobuf (dfx critical-path --format perfetto): CPM_static.pftrace and
// CPM_observed.pftrace beside the records file.
//
// Each is the swimlane trace of the run directory's capture, written by the
// swimlane trace writer's protobuf backend (swimlane/trace_writer.hpp, default
// options) with the Worker View bars of the tasks off the path named ·(tY)
// (trace_options::named_tasks). That is what CPM_*.json are made of when the
// merged_swimlane.json beside the records was written by `dfx swimlane`: the
// JSON copies rename the same bars of that trace. The protobuf traces are
// drawn from the capture, not from a merged trace, so a run converted with
// --format perfetto needs no JSON trace at all (dfx all --format perfetto).
// The labels come from the name map critical-path uses, except in an L3
// dispatch directory, which is labelled as dfx all labels its merged trace
// (common/dispatch_name_map.hpp: its own program's map, or anonymously).
//
//   const cp_result r = analyze_critical_path(dir, records, names, label, tol);
//   for (const std::string& p : write_cpm_perfetto_traces(dir, records, names, r)) ...
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "dfx/convert/common/dispatch_name_map.hpp"
#include "dfx/convert/common/input_error.hpp"
#include "dfx/convert/common/io_progress.hpp"
#include "dfx/convert/common/json_writer.hpp"
#include "dfx/convert/deps/critical_path.hpp"
#include "dfx/convert/swimlane/deps_graph.hpp"
#include "dfx/convert/swimlane/func_ids.hpp"
#include "dfx/convert/swimlane/name_map.hpp"
#include "dfx/convert/swimlane/perf_data.hpp"
#include "dfx/convert/swimlane/trace_writer.hpp"
#include "dfx/schema/artefact_names.hpp"
#include "dfx/schema/converter_outputs.hpp"

namespace dfx::convert::deps {

// Writes <dir>/CPM_static.pftrace and <dir>/CPM_observed.pftrace from the
// capture (records, dir/deps.json, the name map critical-path used, or in
// an L3 dispatch directory the one dispatch_name_map() gives); returns
// their paths. Throws input_error on bad input or when a task of a path has
// no Worker View bar (then neither file is written). `lenient`: read as
// `dfx swimlane --lenient` does. Reader warnings go to `warnings`.
inline std::vector<std::string> write_cpm_perfetto_traces(const std::filesystem::path& dir,
                                                          const std::filesystem::path& records,
                                                          const std::filesystem::path& name_map_path, const cp_result& r,
                                                          bool lenient = false, std::FILE* warnings = stderr) {
    namespace sw = dfx::convert::swimlane;
    sw::perf_data pd = sw::load_perf_data(records.string(), warnings, lenient);
    const sw::deps_graph deps =
        sw::load_deps_graph((dir / schema::deps_file).string(), warnings, sw::deps_policy::optional, lenient);
    sw::name_map names;
    const std::optional<std::filesystem::path> map =
        is_l3_dispatch_dir(dir) ? dispatch_name_map(dir) : std::optional<std::filesystem::path>(name_map_path);
    try {
        if (map) names = sw::load_name_map(map->string());
    } catch (const input_error& e) {
        if (!lenient) throw;  // leniently, as dfx swimlane: no names
        if (warnings) {
            const io_progress::console_output hold;  // on a line of its own, not after the progress display's
            fmt::print(warnings, "Warning: ignoring the name map: {}\n", e.what());
        }
    }
    sw::resolve_func_ids(pd, deps);

    const std::unordered_set<std::uint64_t> on_static(r.cpm_path.begin(), r.cpm_path.end());
    std::unordered_set<std::uint64_t> on_observed;
    for (const cp_segment& s : r.segments) on_observed.insert(s.task);
    // Every task of a path has its bar, as CPM_*.json require of the merged trace.
    std::unordered_set<std::uint64_t> bars;
    for (const sw::task& t : pd.tasks) bars.insert(t.task_id);
    std::vector<std::uint64_t> missing;
    for (const std::unordered_set<std::uint64_t>* set : {&on_static, &std::as_const(on_observed)})
        for (const std::uint64_t t : *set)
            if (!bars.count(t)) missing.push_back(t);
    if (!missing.empty()) {
        std::sort(missing.begin(), missing.end());
        missing.erase(std::unique(missing.begin(), missing.end()), missing.end());
        std::string sample;
        for (std::size_t i = 0; i < missing.size() && i < 5; ++i) sample += (i ? ", " : "") + std::to_string(missing[i]);
        throw input_error(fmt::format("{}: the Worker View is missing {} critical task(s): {}", records.string(),
                                      missing.size(), sample));
    }

    const std::pair<std::string_view, const std::unordered_set<std::uint64_t>*> outputs[] = {
        {schema::cpm_static_perfetto_file, &on_static}, {schema::cpm_observed_perfetto_file, &on_observed}};
    std::vector<std::string> paths;
    for (const auto& [file, on_path] : outputs) {
        sw::trace_options opt;
        opt.format = sw::trace_format::perfetto;
        opt.named_tasks = on_path;
        opt.warnings = paths.empty() ? warnings : nullptr;  // the same capture: warn once
        const std::string path = (dir / file).string();
        json_file_writer out(path);
        sw::write_trace(pd, deps, names, out, opt);
        out.commit();
        paths.push_back(path);
    }
    return paths;
}

}  // namespace dfx::convert::deps
