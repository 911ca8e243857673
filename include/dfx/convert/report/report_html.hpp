// report_html: `dfx report --format html`, one self-contained page (inline
// CSS and SVG, no script, nothing fetched): per run directory the ranked
// findings and gaps (the same sentences as the text), then the charts people
// would rather look at than read (svg_chart.hpp): busy cores over time per
// core type, the width profile, the fill of each ring resource that came
// near its capacity, each with axes, units and a legend; then the tables.
//
//   std::string page = render_html(units, findings, top);
#pragma once

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "dfx/convert/common/html_escape.hpp"
#include "dfx/convert/report/findings.hpp"
#include "dfx/convert/report/kernel_table_render.hpp"
#include "dfx/convert/report/report_text.hpp"
#include "dfx/convert/report/svg_chart.hpp"
#include "dfx/convert/report/unit_measures.hpp"

namespace dfx::convert::report {

namespace html_detail {

inline constexpr const char* palette[] = {"#2563eb", "#059669", "#d97706", "#7c3aed", "#db2777", "#0891b2"};

inline std::string table_html(const table& t, const char* cls = "") {
    std::string o = fmt::format(R"(<table class="{}">)", cls);
    for (std::size_t r = 0; r < t.size(); ++r) {
        o += "<tr>";
        for (const auto& cell : t[r]) o += (r == 0 ? "<th>" : "<td>") + html_escape(cell) + (r == 0 ? "</th>" : "</td>");
        o += "</tr>";
    }
    return o + "</table>";
}

inline const char* page_style = R"(
body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#111;max-width:1100px}
h1{font-size:20px}h2{font-size:17px;border-bottom:1px solid #ddd;padding-bottom:4px;margin-top:32px}h3{font-size:15px;margin:20px 0 6px}
ol.findings li{margin:4px 0}.impact{color:#555;font-size:12px;white-space:nowrap}.area{font-weight:600}
ul.gaps li{color:#92400e}
table{border-collapse:collapse;margin:6px 0 12px;font-size:12px}th,td{border:1px solid #ddd;padding:2px 8px;text-align:right}
th{background:#f3f4f6}td:first-child,th:first-child{text-align:left}
tr.full td{background:#fee2e2}tr.at_risk td{background:#fef3c7}
svg.chart{display:block;margin:8px 0;background:#fff;border:1px solid #e5e7eb}
svg .title{font-size:13px;font-weight:600}svg .tick{font-size:10px;fill:#444}svg .label{font-size:11px;fill:#222}
svg .legend{font-size:11px}svg .grid{stroke:#eee}svg .axis{stroke:#333}
svg .limit{stroke:#dc2626;stroke-dasharray:6 3;stroke-width:1.5}
.muted{color:#666}
)";

inline std::string impact_html(double impact) {
    if (std::isinf(impact)) return "first";
    if (std::isnan(impact)) return "unranked";
    return "~" + us_text(impact);
}

}  // namespace html_detail

inline std::string render_unit_html(const unit_measures& m, const report_findings& f, std::size_t top, std::size_t index) {
    using namespace html_detail;
    std::string o = fmt::format(R"(<section class="unit" id="unit{}"><h2>{} <span class="muted">{}</span></h2>)", index,
                                html_escape(m.unit.label), html_escape(m.unit.dir.string()));
    o += R"(<h3>Findings, ranked by the makespan time each could recover (at most)</h3><ol class="findings">)";
    for (const auto& x : f.ranked)
        o += fmt::format(R"(<li><span class="area">[{}]</span> {} <span class="impact">({})</span></li>)", html_escape(x.area),
                         html_escape(x.text), impact_html(x.impact_us));
    o += "</ol>";
    if (!f.gaps.empty()) {
        o += R"(<h3>Not measured</h3><ul class="gaps">)";
        for (const auto& g : f.gaps) o += "<li>" + html_escape(g) + "</li>";
        o += "</ul>";
    }
    if (m.utilisation && m.utilisation->makespan_us > 0) {
        const auto& u = *m.utilisation;
        chart c;
        c.title = "Utilisation over time";
        c.x_label = "time since the first start (us)";
        c.y_label = "busy cores of the type (%)";
        for (std::size_t t = 0; t < u.timeline.types.size(); ++t) {
            chart_series s{fmt::format("{} ({} cores)", u.timeline.types[t], u.timeline.cores[t]), palette[t % 6], {}, {}};
            for (std::size_t b = 0; b < u.timeline.busy[t].size(); ++b) {
                s.x.push_back((static_cast<double>(b) + 0.5) * u.timeline.bin_us);
                s.y.push_back(u.timeline.busy[t][b] / static_cast<double>(u.timeline.cores[t]) * 100);
            }
            c.series.push_back(std::move(s));
        }
        c.y_max = 100;  // a share: the whole axis, so a low utilisation looks low
        o += "<h3>Concurrency</h3>" + render_chart(c);
        o += fmt::format("<p>makespan {}, mean utilisation {:.1f}%, all cores idle {}.</p>", us_text(u.makespan_us),
                         u.mean_utilisation * 100, us_text(u.all_idle_us));
        table t{{"core", "type", "tasks", "busy_us", "util", "longest_gap_us"}};
        for (const auto& cb : u.cores)
            t.push_back({std::to_string(cb.core), cb.type, std::to_string(cb.tasks), fmt::format("{:.1f}", cb.busy_us),
                         pct_text(cb.utilisation * 100), fmt::format("{:.1f}", cb.longest_gap_us)});
        o += table_html(t);
    }
    if (m.graph && !m.graph->width.empty()) {
        const auto& g = *m.graph;
        chart c;
        c.title = "Width profile";
        c.x_label = "level (hops from a source)";
        c.y_label = "tasks at the level";
        c.integer_x = true;
        c.bars = true;
        chart_series s{"tasks", palette[0], {}, {}};
        for (std::size_t i = 0; i < g.width.size(); ++i) {
            s.x.push_back(static_cast<double>(i));
            s.y.push_back(static_cast<double>(g.width[i]));
        }
        c.series.push_back(std::move(s));
        if (m.utilisation && !m.utilisation->cores.empty()) {
            c.limit = static_cast<double>(m.utilisation->cores.size());
            c.limit_label = "cores";
        }
        o += "<h3>Graph</h3>" + render_chart(c);
        o += fmt::format("<p>tasks {}, edges {}, depth {} levels, max width {}", g.tasks, g.edges, g.depth, g.max_width);
        if (g.timed) o += fmt::format("; static critical path {} over {} tasks", us_text(g.critical_path_us), g.critical_path_tasks);
        o += ".</p>";
    }
    if (!m.kernels.empty()) {
        const auto shown = top_kernels(m.kernels, top);
        o += fmt::format("<h3>Top {} kernels by total time</h3>", shown.size());
        table t{kernel_text_header()};
        for (const auto& k : shown) t.push_back(kernel_text_cells(k));
        o += table_html(t);
    }
    if (m.rings) {
        const auto& r = *m.rings;
        o += fmt::format("<h3>Rings</h3><p>{} scopes{}.</p>", r.scopes, r.fatal ? "; the run latched a FATAL" : "");
        // Fill charts: every resource not fitting, else the fullest one.
        std::vector<const ring_peak*> drawn;
        const ring_peak* fullest = nullptr;
        for (const auto& p : r.peaks) {
            if (p.state != ring_state::fits) drawn.push_back(&p);
            if (p.capacity > 0 && (!fullest || p.high_water / p.capacity > fullest->high_water / fullest->capacity)) fullest = &p;
        }
        if (drawn.empty() && fullest) drawn.push_back(fullest);
        for (const ring_peak* p : drawn) {
            const char* res = ring_resource_name[static_cast<int>(p->resource)];
            chart c;
            c.title = fmt::format("Ring {} {}: high water per scope", p->ring, res);
            c.x_label = "scope (end-record order)";
            c.integer_x = true;
            c.y_label = fmt::format("{} ({})", res, ring_unit[static_cast<int>(p->resource)]);
            chart_series s{"high water", palette[0], {}, {}};
            for (std::size_t i = 0; i < p->fill.size(); ++i) {
                s.x.push_back(static_cast<double>(i));
                s.y.push_back(p->fill[i]);
            }
            c.series.push_back(std::move(s));
            if (p->capacity > 0) c.limit = p->capacity;
            o += render_chart(c);
        }
        o += R"(<table><tr><th>ring</th><th>resource</th><th>capacity</th><th>high_water</th><th>live_peak</th><th>use</th><th>state</th><th>peak_site</th><th>knob</th></tr>)";
        for (const auto& p : r.peaks) {
            const char* cls = p.state == ring_state::full ? "full" : p.state == ring_state::at_risk ? "at_risk" : "fits";
            o += fmt::format(R"(<tr class="{}"><td>{}</td><td>{}</td><td>{:.0f}</td><td>{:.0f}</td><td>{:.0f}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>)",
                             cls, p.ring, ring_resource_name[static_cast<int>(p.resource)], p.capacity, p.high_water, p.live_peak,
                             p.capacity > 0 ? pct_text(p.high_water / p.capacity * 100) : "n/a", ring_state_name(p.state),
                             html_escape(p.high_water_site),
                             p.state == ring_state::fits ? "-" : fmt::format("{}={}", ring_knob[static_cast<int>(p.resource)], p.suggested));
        }
        o += "</table>";
    }
    if (m.pmu_present) {
        o += "<h3>PMU (pipe busy as % of the kernel's cycles)</h3>";
        table t{{"kernel", "func_id", "core", "rows", "total_cycles", "limiting_pipe", "pipes"}};
        for (const auto& k : m.pipes) {
            std::string pipes;
            for (const auto& p : k.pipes) pipes += (pipes.empty() ? "" : " ") + fmt::format("{}={:.1f}%", p.pipe, p.pct);
            t.push_back({k.name, std::to_string(k.func_id), k.core_type, std::to_string(k.rows), std::to_string(k.total_cycles),
                         k.pipes.empty() ? "-" : k.pipes[0].pipe, pipes.empty() ? "(no pipe counters)" : pipes});
        }
        o += table_html(t);
    }
    return o + "</section>";
}

inline std::string render_html(const std::vector<unit_measures>& units, const std::vector<report_findings>& findings,
                               std::size_t top) {
    std::string o = R"(<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>dfx report</title><style>)";
    o += html_detail::page_style;
    o += "</style></head><body><h1>dfx report</h1>";
    if (units.size() > 1) {
        o += "<p>Sections: ";
        for (std::size_t i = 0; i < units.size(); ++i)
            o += fmt::format(R"({}<a href="#unit{}">{}</a>)", i ? ", " : "", i, html_escape(units[i].unit.label));
        o += "</p>";
    }
    for (std::size_t i = 0; i < units.size(); ++i) o += render_unit_html(units[i], findings[i], top, i);
    return o + "</body></html>\n";
}

}  // namespace dfx::convert::report
