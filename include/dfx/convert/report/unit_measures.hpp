// unit_measures: every measure of one run directory, from whatever
// artefacts it holds, each read by that artefact's one reader
// (swimlane/records_reader.hpp through perf_data, deps/deps_reader.hpp
// through swimlane::deps_graph, scope_stats/scope_stats_reader.hpp,
// pmu/pmu_csv.hpp through pmu_summary). A bad artefact is the reader's
// input_error (one line naming the file); a missing one leaves its
// measures empty and is listed with the flag that produces it.
//
//   const unit_measures m = measure_unit(unit, stderr);
//   const unit_measures m = measure_unit(unit, stderr, 120, /*keep_digest=*/true);  // m.digest: the graph's ids
//
// Memory: the records are read without their phases (swimlane::phase_records::drop:
// no measure uses them), so at 10^6 tasks the peak is about 570 MB (1.29 GB when they were kept).
#pragma once

#include <cstdio>
#include <exception>
#include <future>
#include <optional>
#include <string>
#include <vector>

#include "dfx/convert/pmu/pmu_summary.hpp"
#include "dfx/convert/report/artefacts.hpp"
#include "dfx/convert/report/core_utilisation.hpp"
#include "dfx/convert/report/graph_digest.hpp"
#include "dfx/convert/report/graph_shape.hpp"
#include "dfx/convert/report/kernel_table.hpp"
#include "dfx/convert/report/pipe_limits.hpp"
#include "dfx/convert/report/ring_peaks.hpp"
#include "dfx/convert/report/run_units.hpp"
#include "dfx/convert/report/scheduling.hpp"
#include "dfx/convert/scope_stats/scope_stats_reader.hpp"
#include "dfx/convert/swimlane/deps_graph.hpp"
#include "dfx/convert/swimlane/func_ids.hpp"
#include "dfx/convert/swimlane/name_map.hpp"
#include "dfx/convert/swimlane/perf_data.hpp"

namespace dfx::convert::report {

struct unit_measures {
    run_unit unit;
    run_artefacts found;
    int level = 0;  // chip_swimlane_level of the records (0: no records)
    std::size_t task_rows = 0;
    std::optional<graph_shape> graph;
    std::optional<core_utilisation> utilisation;
    scheduling sched;
    std::vector<kernel_row> kernels;  // every kernel, by total time
    std::optional<ring_report> rings;
    std::vector<kernel_pipes> pipes;  // every kernel in pmu.csv, by total cycles
    bool pmu_present = false;
    // deps.json's task ids and edges, kept only when asked (`dfx compare` diffs the graphs).
    std::optional<graph_digest> digest;
};

namespace detail {

// Warnings held in a temporary file and printed later (replay), so two
// readers on two threads print in a fixed order. Without a temporary file
// (none can be made) they go straight to `to`.
class held_warnings {
public:
    explicit held_warnings(std::FILE* to) : to_(to), held_(to ? std::tmpfile() : nullptr) {}
    held_warnings(const held_warnings&) = delete;
    held_warnings& operator=(const held_warnings&) = delete;
    ~held_warnings() {
        if (held_) std::fclose(held_);
    }
    [[nodiscard]] std::FILE* file() const { return held_ ? held_ : to_; }
    void replay() {
        if (!held_) return;
        std::rewind(held_);
        char buf[4096];
        for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, held_)) > 0;) std::fwrite(buf, 1, n, to_);
        std::fclose(held_);
        held_ = nullptr;
    }

private:
    std::FILE* to_;
    std::FILE* held_;
};

}  // namespace detail

inline unit_measures measure_unit(const run_unit& unit, std::FILE* warnings = stderr, std::size_t timeline_bins = 120,
                                  bool keep_digest = false) {
    unit_measures m;
    m.unit = unit;
    m.found = find_artefacts(unit.dir);
    swimlane::name_map names;
    const std::string probe = (unit.dir / std::string(schema::records_file)).string();
    if (const auto map = swimlane::find_sibling_name_map(probe, warnings)) names = swimlane::load_name_map(*map);
    // deps.json is read on a second thread while the records are read (as
    // `dfx swimlane` does): the deps reader runs on one thread, the records'
    // scan and parse on two, and the graph is held during the records' read
    // either way, so the overlap costs little memory (docs/report.md,
    // "Scale", has the numbers). Each one's warnings are held back and printed
    // in the order of a sequential read, deps.json's first, and so is an
    // error: deps.json's, if both are bad.
    detail::held_warnings deps_warnings(warnings), records_warnings(warnings);
    auto deps_read = std::async(std::launch::async, [&] {
        return m.found.deps ? swimlane::load_deps_graph(*m.found.deps, deps_warnings.file(), swimlane::deps_policy::required)
                            : swimlane::deps_graph{};
    });
    std::optional<swimlane::perf_data> pd;
    std::exception_ptr records_error;
    try {
        if (m.found.records)
            pd = swimlane::load_perf_data(*m.found.records, records_warnings.file(), false, swimlane::phase_records::drop);
    } catch (...) {
        records_error = std::current_exception();
    }
    swimlane::deps_graph deps;
    try {
        deps = deps_read.get();  // rethrows deps.json's error
    } catch (...) {
        deps_warnings.replay();
        throw;
    }
    deps_warnings.replay();
    records_warnings.replay();
    if (records_error) std::rethrow_exception(records_error);
    if (pd) {
        swimlane::resolve_func_ids(*pd, deps);
        m.level = pd->level;
        m.task_rows = pd->tasks.size();
        m.utilisation = measure_utilisation(*pd, timeline_bins);
        m.sched = measure_scheduling(*pd, deps);
        m.kernels = kernel_table(*pd, names, m.utilisation->makespan_us);
    }
    if (m.found.deps) {
        task_durations durations;
        if (pd) {
            for (const auto& f : swimlane::task_id_index(pd->tasks)) durations[f.id] = {f.start, f.end};
        }
        m.graph = measure_graph(deps, durations);
    }
    if (m.found.scope_stats) m.rings = measure_rings(read_scope_stats(*m.found.scope_stats));
    if (m.found.pmu) {
        m.pmu_present = true;
        m.pipes = pipe_limits(pmu::summarize_pmu_csv(*m.found.pmu), names);
    }
    if (keep_digest && m.found.deps) m.digest = digest_of(deps);
    return m;
}

}  // namespace dfx::convert::report
