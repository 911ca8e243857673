// scheduling: what the scheduler added to the makespan, from the records'
// AICPU rows (level >= 2) and scheduler phases (level >= 3):
//
//   pickup gap  start - dispatch per task row: the time between the
//               scheduler handing a task over and the core starting it
//               (level >= 2, where dispatch times exist): the head overhead
//               of the swimlane statistics;
//   tail        finish - end per task row: the core done, the scheduler not
//               yet (the swimlane statistics' tail overhead, level >= 2);
//   verdict     the sched-overhead model's Part 1 (swimlane/overhead_model.hpp):
//               the share of the makespan where a core is idle while a
//               ready task of its type waits for dispatch, classified with
//               swimlane::classify_overhead, the thresholds `dfx
//               sched-overhead` prints (level >= 3, with deps.json: "ready"
//               is the end of a task's producers);
//   path waits  scheduler-injected waits on the observed critical path
//               (sched-overhead's Part 6).
//
//   const scheduling s = measure_scheduling(pd, deps);  // pd.tasks not empty
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <vector>

#include "dfx/convert/report/duration_stats.hpp"
#include "dfx/convert/swimlane/deps_graph.hpp"
#include "dfx/convert/swimlane/overhead_model.hpp"
#include "dfx/convert/swimlane/perf_data.hpp"
#include "dfx/convert/swimlane/sched_overhead_parts.hpp"

namespace dfx::convert::report {

// The level each measure needs (a lower level is named with the flag that raises it).
inline constexpr int pickup_gap_level = 2;
inline constexpr int verdict_level = 3;

struct sched_verdict {
    double has_overhead_us = 0.0;   // a working engine starved while ready work waited
    double has_overhead_pct = 0.0;  // of the makespan
    swimlane::overhead_class cls = swimlane::overhead_class::compute_or_dependency_bound;
};

struct scheduling {
    std::optional<duration_stats> pickup;   // level >= 2
    std::optional<duration_stats> tail;     // level >= 2
    std::optional<sched_verdict> verdict;   // level >= 3 and deps.json
    std::optional<double> path_sched_us;    // waits on the observed critical path (deps.json)
    std::size_t path_hops = 0;
};

inline scheduling measure_scheduling(const swimlane::perf_data& pd, const swimlane::deps_graph& deps) {
    scheduling s;
    if (pd.tasks.empty()) return s;
    if (pd.level >= pickup_gap_level) {
        std::vector<double> gaps, tails;
        gaps.reserve(pd.tasks.size());
        tails.reserve(pd.tasks.size());
        for (const auto& t : pd.tasks) {
            if (!t.joined) continue;
            gaps.push_back(std::max(0.0, t.start_us - t.dispatch_us));
            tails.push_back(std::max(0.0, t.finish_us - t.end_us));
        }
        if (!gaps.empty()) s.pickup = stats_of(std::move(gaps));
        if (!tails.empty()) s.tail = stats_of(std::move(tails));
    }
    if (!deps.has_edges()) return s;
    // The window sched-overhead uses (first start -> last end).
    const auto window = swimlane::sched_overhead_detail::window_of(pd.tasks);
    if (pd.level >= verdict_level && window.length() > 0) {
        const auto v = swimlane::compute_overhead_verdict(pd, deps, window, /*keep_steps=*/false);
        sched_verdict out;
        out.has_overhead_us = v.has_overhead;
        out.has_overhead_pct = v.has_overhead / window.length() * 100;
        out.cls = swimlane::classify_overhead(out.has_overhead_pct);
        s.verdict = out;
    }
    if (pd.level >= pickup_gap_level) {
        const swimlane::task_id_index ids(pd.tasks);
        const auto path = swimlane::compute_critical_path(deps, ids);
        s.path_sched_us = path.sched;
        s.path_hops = path.hops;
    }
    return s;
}

}  // namespace dfx::convert::report
