// report_text: `dfx report`'s text summary, one section per run directory
// (an L3 tree: one per rank<r>/d<k>):
//
//   == <label> (<dir>) ==
//   artefacts: ...
//   Findings, ranked by the makespan time they could recover (at most)
//    1. [area] sentence  (~impact)
//   Not measured: gaps, each with the flag that fills it
//   Graph / Concurrency / Top N kernels / Rings / PMU: the numbers behind them
//
//   std::string text = render_text(units, findings, top);
#pragma once

#include <cmath>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "dfx/convert/pmu/pmu_summary.hpp"
#include "dfx/convert/report/findings.hpp"
#include "dfx/convert/report/kernel_table_render.hpp"
#include "dfx/convert/report/unit_measures.hpp"
#include "dfx/schema/artefact_names.hpp"

namespace dfx::convert::report {

using table = std::vector<std::vector<std::string>>;

inline const char* ring_state_name(ring_state s) {
    switch (s) {
        case ring_state::full: return "FULL";
        case ring_state::at_risk: return "at risk";
        case ring_state::fits: return "fits";
    }
    return "fits";
}

// A table, columns aligned (pmu_summary's layout), indented under its heading.
inline std::string indented(const table& t) {
    std::string out;
    const std::string body = pmu::detail::render_table(t);
    std::size_t from = 0;
    while (from < body.size()) {
        const std::size_t nl = body.find('\n', from);
        out += "  " + body.substr(from, nl - from) + "\n";
        from = nl == std::string::npos ? body.size() : nl + 1;
    }
    return out;
}

inline std::string pct_text(double pct) { return fmt::format("{:.1f}%", pct); }

inline std::string width_profile_text(const std::vector<std::size_t>& width, std::size_t shown = 24) {
    std::string s;
    for (std::size_t i = 0; i < width.size() && i < shown; ++i) s += (i ? " " : "") + std::to_string(width[i]);
    if (width.size() > shown) s += fmt::format(" ... ({} more levels)", width.size() - shown);
    return s;
}

inline std::string render_unit_text(const unit_measures& m, const report_findings& f, std::size_t top) {
    std::string o;
    o += fmt::format("== {} ({}) ==\n", m.unit.label, m.unit.dir.string());
    std::string have;
    const auto add = [&](std::string_view name, bool present) {
        if (present) have += (have.empty() ? "" : ", ") + std::string(name);
    };
    add(schema::deps_file, m.found.deps.has_value());
    if (m.found.records) have += (have.empty() ? "" : ", ") + fmt::format("swimlane records (level {})", m.level);
    add("scope stats", m.found.scope_stats.has_value());
    add(schema::pmu_csv_file, m.found.pmu.has_value());
    o += fmt::format("artefacts: {}\n\n", have.empty() ? "none" : have);

    o += "Findings, ranked by the makespan time each could recover (at most)\n";
    if (f.ranked.empty()) o += "  (none: no artefact to measure)\n";
    for (std::size_t i = 0; i < f.ranked.size(); ++i) {
        const finding& x = f.ranked[i];
        std::string impact = "unranked";
        if (std::isinf(x.impact_us)) impact = "first";
        else if (!std::isnan(x.impact_us)) impact = "~" + us_text(x.impact_us);
        o += fmt::format("{:>3}. [{}] {}  ({})\n", i + 1, x.area, x.text, impact);
    }
    if (!f.gaps.empty()) {
        o += "Not measured\n";
        for (const auto& g : f.gaps) o += "  - " + g + "\n";
    }
    if (m.graph) {
        const auto& g = *m.graph;
        o += "\nGraph\n";
        o += fmt::format("  tasks {}  edges {}  depth {} levels  max width {}\n", g.tasks, g.edges, g.depth, g.max_width);
        o += fmt::format("  width per level: {}\n", width_profile_text(g.width));
        if (g.in_cycle) o += fmt::format("  {} tasks are on a cycle (not placed on a level)\n", g.in_cycle);
        if (g.timed) {
            o += fmt::format("  static critical path {} over {} tasks", us_text(g.critical_path_us), g.critical_path_tasks);
            if (m.utilisation && m.utilisation->makespan_us > 0)
                o += fmt::format("; observed makespan {} ({:.1f}%)", us_text(m.utilisation->makespan_us),
                                 g.critical_path_us / m.utilisation->makespan_us * 100);
            o += "\n";
        }
    }
    if (m.utilisation) {
        const auto& u = *m.utilisation;
        o += "\nConcurrency\n";
        o += fmt::format("  makespan {}  task rows {}  cores {}  mean utilisation {}  all cores idle {}\n",
                         us_text(u.makespan_us), m.task_rows, u.cores.size(), pct_text(u.mean_utilisation * 100),
                         us_text(u.all_idle_us));
        table t{{"core", "type", "tasks", "busy_us", "util", "longest_gap_us"}};
        for (const auto& c : u.cores)
            t.push_back({std::to_string(c.core), c.type, std::to_string(c.tasks), fmt::format("{:.1f}", c.busy_us),
                         pct_text(c.utilisation * 100), fmt::format("{:.1f}", c.longest_gap_us)});
        o += indented(t);
        if (m.sched.pickup) {
            const auto& p = *m.sched.pickup;
            o += fmt::format("  pickup gap [dispatch, start]: median {:.2f} us  mean {:.2f}  p90 {:.2f}  max {:.2f}  "
                             "total {:.1f} us over {} rows\n",
                             p.median, p.mean, p.p90, p.max, p.total, p.count);
        }
        if (m.sched.verdict)
            o += fmt::format("  scheduler overhead (idle core + ready work): {:.1f}% of the makespan ({})\n",
                             m.sched.verdict->has_overhead_pct, us_text(m.sched.verdict->has_overhead_us));
    }
    if (!m.kernels.empty()) {
        const auto shown = top_kernels(m.kernels, top);
        o += fmt::format("\nTop {} kernels by total time\n", shown.size());
        table t{kernel_text_header()};
        for (const auto& k : shown) t.push_back(kernel_text_cells(k));
        o += indented(t);
    }
    if (m.rings) {
        const auto& r = *m.rings;
        o += fmt::format("\nRings ({} scopes{})\n", r.scopes, r.fatal ? ", the run latched a FATAL" : "");
        table t{{"ring", "resource", "capacity", "high_water", "live_peak", "use", "state", "peak_site", "knob"}};
        for (const auto& p : r.peaks) {
            t.push_back({std::to_string(p.ring), ring_resource_name[static_cast<int>(p.resource)],
                         fmt::format("{:.0f}", p.capacity), fmt::format("{:.0f}", p.high_water),
                         fmt::format("{:.0f}", p.live_peak),
                         p.capacity > 0 ? pct_text(p.high_water / p.capacity * 100) : "n/a", ring_state_name(p.state),
                         p.high_water_site,
                         p.state == ring_state::fits ? "-"
                                                     : fmt::format("{}={}", ring_knob[static_cast<int>(p.resource)], p.suggested)});
        }
        o += indented(t);
        o += fmt::format("  tensormap peak {:.0f} of {:.0f} entries\n", r.tensormap_peak, r.tensormap_capacity);
    }
    if (m.pmu_present) {
        o += "\nPMU (pipe busy as % of the kernel's cycles)\n";
        table t{{"kernel", "func_id", "core", "rows", "total_cycles", "limiting_pipe", "pipes"}};
        for (const auto& k : m.pipes) {
            std::string pipes;
            for (const auto& p : k.pipes) pipes += (pipes.empty() ? "" : " ") + fmt::format("{}={:.1f}%", p.pipe, p.pct);
            t.push_back({k.name, std::to_string(k.func_id), k.core_type, std::to_string(k.rows),
                         std::to_string(k.total_cycles), k.pipes.empty() ? "-" : k.pipes[0].pipe,
                         pipes.empty() ? "(no pipe counters: capture with --enable-pmu 2)" : pipes});
        }
        o += indented(t);
    }
    return o;
}

}  // namespace dfx::convert::report
