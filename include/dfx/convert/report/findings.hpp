// findings: the report's answers, one sentence each with its number and what
// to try, ranked by the estimated makespan time the change could recover at
// most (`impact_us`, an upper bound, never a promise):
//
//   graph       dependency-bound: makespan - total work / cores (what a
//               wider graph could give back); otherwise the slack above the
//               dependency floor, makespan - static critical path;
//               a graph narrower than the cores: makespan x (1 - width/cores)
//   idle        time no core ran anything: itself
//   utilisation mean core idle share x makespan (not when dependency-bound:
//               that finding's number is the same idle time)
//   scheduler   verdict: the time a free core had ready work waiting
//               (has_overhead); pickup: scheduler waits on the observed
//               critical path
//   rings       a ring full or at risk: the slack above the dependency
//               floor when it is known (the time a stalled orchestrator can
//               have cost), else unranked (after the ranked ones). A fatal
//               run comes first of all, then a full ring, whatever the
//               estimates: a full ring stalls the orchestrator and so skews
//               every other measure (idle, pickup, verdict), and the tuning
//               loop raises it before reading the rest
//
// Every estimate is capped at the makespan.
//   pmu         the kernel's share of all PMU cycles x makespan
//
// Findings whose impact cannot be estimated keep their order after the
// ranked ones. Missing artefacts and a level too low for a measure are
// `gaps`, listed apart with the flag that fills them.
//
//   const report_findings f = find_issues(m);
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "dfx/convert/report/unit_measures.hpp"

namespace dfx::convert::report {

struct finding {
    std::string area;   // graph, idle, utilisation, scheduler, rings, pmu
    double impact_us = std::numeric_limits<double>::quiet_NaN();  // NaN: not estimated
    std::string text;
    bool ranks_first = false;  // a full ring: ranked before every estimate (see the top)
};

struct report_findings {
    std::vector<finding> ranked;    // by impact, then unranked in order
    std::vector<std::string> gaps;  // missing artefacts, too-low levels
};

// Shares the graph section calls dependency-bound / clearly not.
inline constexpr double dependency_bound_ratio = 0.9;
inline constexpr double idle_share_worth_naming = 0.01;

inline std::string us_text(double us) {
    if (us >= 1e6) return fmt::format("{:.2f} s", us / 1e6);
    if (us >= 1e3) return fmt::format("{:.2f} ms", us / 1e3);
    return fmt::format("{:.1f} us", us);
}

inline std::string ring_resource_text(const ring_peak& p, double v) {
    if (p.resource == ring_resource::heap) return fmt::format("{:.0f} bytes", v);
    return fmt::format("{:.0f} {}", v, ring_unit[static_cast<int>(p.resource)]);
}

namespace detail {

inline std::string site_list(const std::vector<std::string>& sites) {
    std::string s;
    const std::size_t shown = std::min<std::size_t>(sites.size(), 3);
    for (std::size_t i = 0; i < shown; ++i) s += (i ? ", " : "") + sites[i];
    if (sites.size() > shown) s += fmt::format(" and {} more", sites.size() - shown);
    return s;
}

}  // namespace detail

inline report_findings find_issues(const unit_measures& m) {
    report_findings out;
    std::vector<finding> f;
    const bool timed = m.utilisation && m.utilisation->makespan_us > 0;
    const double makespan = timed ? m.utilisation->makespan_us : 0.0;
    std::size_t cores = timed ? m.utilisation->cores.size() : 0;
    double work = 0;
    if (timed)
        for (const auto& c : m.utilisation->cores) work += c.busy_us;
    double slack = std::numeric_limits<double>::quiet_NaN();  // above the dependency floor
    bool dependency_bound = false;

    if (m.rings && m.rings->fatal)
        f.push_back({"rings", std::numeric_limits<double>::infinity(),
                     "The run latched a fatal error (a ring too small for the workload, scope_stats.jsonl `fatal`): "
                     "the numbers below are of a run cut short; raise the ring named in the run's FATAL line first."});

    if (m.graph && m.graph->timed && timed && m.graph->critical_path_us > 0) {
        const auto& g = *m.graph;
        const double ratio = g.critical_path_us / makespan;
        slack = std::max(0.0, makespan - g.critical_path_us);
        if (ratio >= dependency_bound_ratio) {
            dependency_bound = true;
            const double floor = cores ? work / static_cast<double>(cores) : 0.0;
            f.push_back({"graph", std::max(0.0, makespan - floor),
                         fmt::format("Dependency-bound: the static critical path ({} over {} tasks) is {:.0f}% of the "
                                     "makespan ({}); only a shorter chain helps: fewer hops or faster kernels on it.",
                                     us_text(g.critical_path_us), g.critical_path_tasks, ratio * 100, us_text(makespan))});
        } else {
            f.push_back({"graph", slack,
                         fmt::format("The makespan ({}) is {} above the dependency floor (static critical path {}, "
                                     "{:.0f}%): the schedule, not the graph, lost that time; see the findings on idle "
                                     "cores, the scheduler and the rings.",
                                     us_text(makespan), us_text(slack), us_text(g.critical_path_us), ratio * 100)});
        }
        if (cores > 0 && g.max_width < cores)
            f.push_back({"graph", makespan * (1 - static_cast<double>(g.max_width) / static_cast<double>(cores)),
                         fmt::format("The graph is at most {} tasks wide but the run has {} cores: {} cores can never "
                                     "be used at once; split work into more, smaller tasks.",
                                     g.max_width, cores, cores - g.max_width)});
    }
    if (timed) {
        const auto& u = *m.utilisation;
        if (u.all_idle_us > makespan * idle_share_worth_naming)
            f.push_back({"idle", u.all_idle_us,
                         fmt::format("No core ran anything for {} ({:.0f}% of the makespan): the orchestrator or the "
                                     "scheduler did not keep up (look for ring waits and the pickup gap).",
                                     us_text(u.all_idle_us), u.all_idle_us / makespan * 100)});
        const auto lowest = std::min_element(u.cores.begin(), u.cores.end(),
                                             [](const core_busy& a, const core_busy& b) { return a.utilisation < b.utilisation; });
        // A dependency-bound run's idle cores are the graph's finding (same number): not repeated.
        if (lowest != u.cores.end() && !dependency_bound)
            f.push_back({"utilisation", makespan * (1 - u.mean_utilisation),
                         fmt::format("Cores were busy {:.0f}% of the makespan on average (lowest: core {} ({}) at "
                                     "{:.0f}%, longest idle gap {}); more ready work per core (a wider graph, "
                                     "coarser tasks) raises it.",
                                     u.mean_utilisation * 100, lowest->core, lowest->type, lowest->utilisation * 100,
                                     us_text(lowest->longest_gap_us))});
    }
    if (m.sched.verdict) {
        const auto& v = *m.sched.verdict;
        const char* what = v.cls == swimlane::overhead_class::scheduler_bound ? "Scheduler-bound"
                           : v.cls == swimlane::overhead_class::partially_scheduler_limited ? "Partially scheduler-limited"
                                                                                            : "Not scheduler-bound";
        const char* tryit = v.cls == swimlane::overhead_class::compute_or_dependency_bound
                                ? "more AICPU threads would not help"
                                : "raise aicpu_thread_num (--aicpu-thread-num) or make tasks coarser";
        f.push_back({"scheduler", v.has_overhead_us,
                     fmt::format("{}: a core was idle while ready work waited for dispatch {:.1f}% of the makespan "
                                 "({}); {}.",
                                 what, v.has_overhead_pct, us_text(v.has_overhead_us), tryit)});
    }
    if (m.sched.pickup) {
        const auto& p = *m.sched.pickup;
        std::string on_path;
        if (m.sched.path_sched_us)
            on_path = fmt::format("; on the observed critical path the scheduler added {} over {} hops",
                                  us_text(*m.sched.path_sched_us), m.sched.path_hops);
        f.push_back({"scheduler", m.sched.path_sched_us ? *m.sched.path_sched_us : std::numeric_limits<double>::quiet_NaN(),
                     fmt::format("A dispatched task waited a median {} (p90 {}, max {}) for its core to start it{}; "
                                 "coarser tasks amortise the hand-over.",
                                 us_text(p.median), us_text(p.p90), us_text(p.max), on_path)});
    }
    if (m.rings) {
        bool any = false;
        const ring_peak* highest = nullptr;
        for (const auto& p : m.rings->peaks) {
            if (p.capacity > 0 && (!highest || p.high_water / p.capacity > highest->high_water / highest->capacity)) highest = &p;
            if (p.state == ring_state::fits) continue;
            any = true;
            const bool full = p.state == ring_state::full;
            const std::string knob = ring_knob[static_cast<int>(p.resource)];
            const std::string advice =
                full ? fmt::format("raise {} above {:.0f} (try {}; a full ring hides the true demand, so re-measure)",
                                   knob, p.capacity, p.suggested)
                     : fmt::format("raise {} to {} (holds the high water)", knob, p.suggested);
            f.push_back({"rings", slack,
                         fmt::format("Ring {} {} {} (peak {} of {}; {} of {} scopes reached it, at {}): {}.", p.ring,
                                     ring_resource_name[static_cast<int>(p.resource)],
                                     full ? "was full" : "may have been full",
                                     ring_resource_text(p, full ? p.live_peak : p.high_water),
                                     ring_resource_text(p, p.capacity), p.scopes_at_capacity, p.scopes,
                                     detail::site_list(p.saturated_sites), advice),
                         full});
        }
        if (!any && highest)
            f.push_back({"rings", 0.0,
                         fmt::format("No ring reached its capacity (highest: ring {} {} at {:.0f}%): the rings are not "
                                     "the limit.",
                                     highest->ring, ring_resource_name[static_cast<int>(highest->resource)],
                                     highest->high_water / highest->capacity * 100)});
    }
    if (!m.pipes.empty()) {
        double all_cycles = 0;
        for (const auto& k : m.pipes) all_cycles += static_cast<double>(k.total_cycles);
        std::size_t named = 0;
        for (const auto& k : m.pipes) {
            if (k.pipes.empty() || named == 3) continue;
            ++named;
            const double share = all_cycles > 0 ? static_cast<double>(k.total_cycles) / all_cycles : 0.0;
            std::string next;
            if (k.pipes.size() > 1) next = fmt::format("; next {} {:.0f}%", k.pipes[1].pipe, k.pipes[1].pct);
            f.push_back({"pmu", timed ? share * makespan : std::numeric_limits<double>::quiet_NaN(),
                         fmt::format("Kernel {} ({}, {:.0f}% of all PMU cycles) is limited by its {} pipe ({:.0f}% of "
                                     "its cycles busy{}): that pipe's work is what to cut in the kernel.",
                                     k.name, k.core_type, share * 100, k.pipes[0].pipe, k.pipes[0].pct, next)});
        }
    }
    for (auto& x : f)
        if (timed && std::isfinite(x.impact_us)) x.impact_us = std::min(x.impact_us, makespan);
    std::stable_sort(f.begin(), f.end(), [](const finding& a, const finding& b) {
        const bool fa = a.ranks_first || std::isinf(a.impact_us), fb = b.ranks_first || std::isinf(b.impact_us);
        if (fa != fb) return fa;
        const bool ka = !std::isnan(a.impact_us), kb = !std::isnan(b.impact_us);
        if (ka != kb) return ka;
        return ka && a.impact_us > b.impact_us;
    });
    out.ranked = std::move(f);

    for (const auto& miss : m.found.missing())
        out.gaps.push_back(fmt::format("No {} (it answers: {}); capture it with {} ({}).", miss.file, miss.question,
                                       miss.flag, miss.config));
    if (m.found.records && m.level < pickup_gap_level)
        out.gaps.push_back(fmt::format("The records are level {}: the [dispatch, start] pickup gap needs level >= {} "
                                       "(--chip-swimlane-level {}).",
                                       m.level, pickup_gap_level, pickup_gap_level));
    if (m.found.records && m.level < verdict_level)
        out.gaps.push_back(fmt::format("The records are level {}: the scheduler-bound verdict needs level >= {} "
                                       "(--chip-swimlane-level {}).",
                                       m.level, verdict_level, verdict_level));
    if (m.found.records && m.found.deps && m.graph && !m.graph->timed)
        out.gaps.push_back("The records hold no task rows: the critical path has no durations.");
    return out;
}

}  // namespace dfx::convert::report
