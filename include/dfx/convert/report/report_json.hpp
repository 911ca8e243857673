// report_json: `dfx report --format json`, the same measures and findings,
// machine-readable (docs/report.md lists the members):
//
//   {"units": [{"label": ".", "dir": "...", "artefacts": {...}, "level": 3,
//               "findings": [{"area": "rings", "impact_us": 812.5, "text": "..."}],   // ranked
//               "gaps": ["No pmu.csv: ..."],
//               "graph": {...} | null, "concurrency": {...} | null,
//               "kernels": [...], "rings": {...} | null, "pmu": [...] | null}]}
//
// Times in microseconds, shares in percent; "kernels" is the top N
// (kernel_table_render.hpp's kernel_json, top 0: all); a finding's impact_us is null
// when it cannot be estimated; a measure whose artefact is missing is null.
//
//   std::string json = render_json(units, findings, top);
#pragma once

#include <cmath>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "dfx/convert/report/findings.hpp"
#include "dfx/convert/report/kernel_table_render.hpp"
#include "dfx/convert/report/unit_measures.hpp"

namespace dfx::convert::report {

namespace json_detail {  // str, num and stats: kernel_table_render.hpp

template <class T, class F>
std::string array(const std::vector<T>& v, F&& each) {
    std::string s = "[";
    for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + each(v[i]);
    return s + "]";
}
inline std::string opt_path(const std::optional<std::string>& p) { return p ? str(*p) : "null"; }

}  // namespace json_detail

inline std::string render_unit_json(const unit_measures& m, const report_findings& f, std::size_t top) {
    using namespace json_detail;
    std::string o = "{";
    o += fmt::format(R"("label": {}, "dir": {}, )", str(m.unit.label), str(m.unit.dir.string()));
    o += fmt::format(R"("artefacts": {{"deps": {}, "records": {}, "scope_stats": {}, "pmu": {}}}, "level": {}, )",
                     opt_path(m.found.deps), opt_path(m.found.records), opt_path(m.found.scope_stats),
                     opt_path(m.found.pmu), m.level);
    o += R"("findings": )" + array(f.ranked, [](const finding& x) {
        return fmt::format(R"({{"area": {}, "impact_us": {}, "first": {}, "text": {}}})", str(x.area), num(x.impact_us),
                           std::isinf(x.impact_us) ? "true" : "false", str(x.text));
    });
    o += R"(, "gaps": )" + array(f.gaps, [](const std::string& g) { return str(g); });
    o += R"(, "graph": )";
    if (m.graph) {
        const auto& g = *m.graph;
        o += fmt::format(R"({{"tasks": {}, "edges": {}, "depth": {}, "max_width": {}, "width": {}, "in_cycle": {}, )"
                         R"("critical_path_us": {}, "critical_path_tasks": {}}})",
                         g.tasks, g.edges, g.depth, g.max_width,
                         array(g.width, [](std::size_t w) { return std::to_string(w); }), g.in_cycle,
                         g.timed ? num(g.critical_path_us) : "null", g.critical_path_tasks);
    } else {
        o += "null";
    }
    o += R"(, "concurrency": )";
    if (m.utilisation) {
        const auto& u = *m.utilisation;
        o += fmt::format(R"({{"makespan_us": {}, "task_rows": {}, "mean_utilisation_pct": {}, "all_idle_us": {}, "cores": )",
                         num(u.makespan_us), m.task_rows, num(u.mean_utilisation * 100), num(u.all_idle_us));
        o += array(u.cores, [](const core_busy& c) {
            return fmt::format(R"({{"core": {}, "type": {}, "tasks": {}, "busy_us": {}, "utilisation_pct": {}, "longest_gap_us": {}}})",
                               c.core, str(c.type), c.tasks, num(c.busy_us), num(c.utilisation * 100), num(c.longest_gap_us));
        });
        o += R"(, "pickup_gap": )" + (m.sched.pickup ? stats(*m.sched.pickup) : std::string("null"));
        o += R"(, "scheduler_overhead": )";
        if (m.sched.verdict) {
            const auto& v = *m.sched.verdict;
            const char* cls = v.cls == swimlane::overhead_class::scheduler_bound ? "scheduler_bound"
                              : v.cls == swimlane::overhead_class::partially_scheduler_limited ? "partially_scheduler_limited"
                                                                                               : "compute_or_dependency_bound";
            o += fmt::format(R"({{"has_overhead_us": {}, "has_overhead_pct": {}, "verdict": {}}})", num(v.has_overhead_us),
                             num(v.has_overhead_pct), str(cls));
        } else {
            o += "null";
        }
        o += R"(, "path_sched_us": )" + (m.sched.path_sched_us ? num(*m.sched.path_sched_us) : std::string("null"));
        o += "}";
    } else {
        o += "null";
    }
    o += R"(, "kernels": )" + array(top_kernels(m.kernels, top), [](const kernel_row& k) { return kernel_json(k); });
    o += R"(, "rings": )";
    if (m.rings) {
        const auto& r = *m.rings;
        o += fmt::format(R"({{"fatal": {}, "scopes": {}, "tensormap_peak": {}, "tensormap_capacity": {}, "peaks": )",
                         r.fatal ? "true" : "false", r.scopes, num(r.tensormap_peak), num(r.tensormap_capacity));
        o += array(r.peaks, [](const ring_peak& p) {
            return fmt::format(R"({{"ring": {}, "resource": {}, "capacity": {}, "high_water": {}, "high_water_site": {}, )"
                               R"("live_peak": {}, "scopes": {}, "scopes_at_capacity": {}, "state": {}, "knob": {}, "suggested": {}}})",
                               p.ring, str(ring_resource_name[static_cast<int>(p.resource)]), num(p.capacity),
                               num(p.high_water), str(p.high_water_site), num(p.live_peak), p.scopes, p.scopes_at_capacity,
                               str(p.state == ring_state::full ? "full" : p.state == ring_state::at_risk ? "at_risk" : "fits"),
                               str(ring_knob[static_cast<int>(p.resource)]),
                               p.state == ring_state::fits ? std::string("null") : std::to_string(p.suggested));
        });
        o += "}";
    } else {
        o += "null";
    }
    o += R"(, "pmu": )";
    if (m.pmu_present) {
        o += array(m.pipes, [](const kernel_pipes& k) {
            return fmt::format(R"({{"name": {}, "func_id": {}, "core_type": {}, "rows": {}, "total_cycles": {}, "limiting_pipe": {}, "pipes": {}}})",
                               str(k.name), k.func_id, str(k.core_type), k.rows, k.total_cycles,
                               k.pipes.empty() ? std::string("null") : str(k.pipes[0].pipe), array(k.pipes, [](const pipe_share& p) {
                                   return fmt::format(R"({{"pipe": {}, "busy_pct": {}}})", str(p.pipe), num(p.pct));
                               }));
        });
    } else {
        o += "null";
    }
    return o + "}";
}

}  // namespace dfx::convert::report
