// The scope stats report: one self-contained HTML page (inline CSS and SVG,
// no script, no external resource) with a panel per resource per ring and a
// global tensormap panel, each plotting the per-scope metrics against the
// ring's capacity, and a table of the peaks.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include "dfx/convert/common/html_escape.hpp"
#include "dfx/convert/scope_stats/scope_pairs.hpp"

namespace dfx::convert {

namespace detail {

inline std::string printf_string(const char* format, double value) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, format, value);
    return buffer;
}

struct unit {
    const char* name;
    double divisor;
};
inline constexpr unit resource_units[ring_resources] = {{"slots", 1}, {"MiB", 1048576.0}, {"entries", 1}};

inline std::string format_value(double v, const unit& u) {
    const double x = v / u.divisor;
    if (u.divisor == 1) return printf_string("%.0f", x);
    return printf_string(std::fabs(x) >= 100 ? "%.0f" : std::fabs(x) >= 10 ? "%.1f" : "%.2f", x);
}

inline std::string use_text(double peak, double capacity) {
    return capacity > 0 ? printf_string("%.2f%%", 100.0 * peak / capacity) : "n/a";
}

inline const char* risk_class(double peak, double capacity) {
    if (capacity <= 0) return "muted";
    const double use = peak / capacity;
    return use >= 0.8 ? "danger" : use >= 0.5 ? "warn" : "ok";
}

// A 1-2-2.5-5 step that gives about `ticks` ticks up to `max`.
// (No 7.5: its multiples, 0.075 MiB and the like, print as 0.07, 0.15, 0.22.)
inline double nice_step(double max, int ticks) {
    const double raw = max / ticks;
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
        if (m * magnitude >= raw) return m * magnitude;
    return 10 * magnitude;
}

struct series {
    const char* label;
    const char* color;
    std::span<const double> values;  // a view: the panel's series are not copied per chart
    const char* dash = nullptr;  // a stroke-dasharray, so that lines that coincide stay apart
};

// Up to this many scopes a chart marks every point (with its tooltip); longer
// series are drawn as the min and max of drawn_buckets buckets.
inline constexpr std::size_t max_marked_points = 1000;
inline constexpr std::size_t drawn_buckets = 500;

// A y tick's label with as many decimals as its step needs (0.25 MiB steps:
// 0.25, 0.50, 0.75; 2 MiB steps: 2, 4, 6).
inline std::string tick_label(double v, const unit& u, double shown_step) {
    if (u.divisor == 1) return printf_string("%.0f", v);
    int decimals = 0;
    while (decimals < 6 && std::fabs(shown_step * std::pow(10.0, decimals) - std::round(shown_step * std::pow(10.0, decimals))) > 1e-6)
        ++decimals;
    const char* formats[] = {"%.0f", "%.1f", "%.2f", "%.3f", "%.4f", "%.5f", "%.6f"};
    return printf_string(formats[decimals], v / u.divisor);
}

// Whether a capacity is drawn as a line: only within reach of the data (a
// capacity far above it would flatten the lines to the axis).
inline bool capacity_on_scale(double capacity, double peak) { return capacity > 0 && capacity <= peak * 3; }

// A legend entry: a short sample of the line as drawn, and its label.
inline std::string legend_entry(const char* color, const char* dash, const std::string& label) {
    return std::string("<span><svg width=\"26\" height=\"10\"><line x1=\"1\" y1=\"5\" x2=\"25\" y2=\"5\" stroke=\"") + color +
           "\" stroke-width=\"2\"" + (dash ? std::string(" stroke-dasharray=\"") + dash + "\"" : std::string()) + "/></svg> " +
           label + "</span>";
}

// One line chart over scope index, with its legend, appended to `out`: the y
// axis is labelled `y_label` (the unit's name in it); the capacity is a dashed
// line when on scale and a note naming it when off scale; an all-zero chart
// has one tick. `sites` holds each point's site id, `names` their names.
template <class Out>
void line_chart(Out& out, const std::vector<series>& lines, const std::vector<std::uint32_t>& sites,
                const scope_sites& names, double capacity, const unit& u, const std::string& y_label) {
    constexpr double width = 900, height = 300, left = 74, right = 24, top = 28, bottom = 48;
    double peak = 0;
    std::size_t n = 0;
    for (const auto& s : lines) {
        n = std::max(n, s.values.size());
        for (double v : s.values) peak = std::max(peak, v);
    }
    double y_max = peak > 0 ? peak * 1.1 : u.divisor;
    const bool show_capacity = capacity_on_scale(capacity, peak);
    if (show_capacity) y_max = std::max(y_max, capacity * 1.05);
    out.append("<p class=\"legend\">");
    for (const auto& s : lines) out.append(legend_entry(s.color, s.dash, s.label));
    if (show_capacity) out.append(legend_entry("#0f172a", "6 4", "capacity"));
    out.append("</p>");
    const double plot_w = width - left - right, plot_h = height - top - bottom;
    const auto x_of = [&](std::size_t i) { return left + (n > 1 ? plot_w * static_cast<double>(i) / static_cast<double>(n - 1) : plot_w / 2); };
    const auto y_of = [&](double v) { return top + plot_h * (1 - v / y_max); };

    out.append("<svg class=\"chart\" viewBox=\"0 0 900 300\" role=\"img\">");
    // Ticks at a nice step of the unit shown (MiB, not bytes), each label
    // once: an all-zero chart gets the one tick 0 and says so.
    const double shown_step = nice_step(y_max / u.divisor, 6);
    const double y_step = (u.divisor == 1 ? std::max(1.0, std::round(shown_step)) : shown_step) * u.divisor;
    std::string last_label;
    for (double t = 0; t <= y_max + 1e-9; t += y_step) {
        const std::string label = peak > 0 ? tick_label(t, u, shown_step) : "0";
        if (label == last_label) continue;
        last_label = label;
        out.append("<line class=\"grid\" x1=\"" + printf_string("%.1f", left) + "\" x2=\"" + printf_string("%.1f", width - right) +
                   "\" y1=\"" + printf_string("%.1f", y_of(t)) + "\" y2=\"" + printf_string("%.1f", y_of(t)) + "\"/>");
        out.append("<text class=\"tick\" x=\"" + printf_string("%.1f", left - 8) + "\" y=\"" + printf_string("%.1f", y_of(t) + 4) +
                   "\" text-anchor=\"end\">" + label + "</text>");
    }
    out.append("<text class=\"axis y-label\" transform=\"rotate(-90)\" x=\"" + printf_string("%.1f", -(top + plot_h / 2)) +
               "\" y=\"16\" text-anchor=\"middle\">" + html_escape(y_label) + "</text>");
    if (peak <= 0)
        out.append("<text class=\"note\" x=\"" + printf_string("%.1f", left + 8) + "\" y=\"" + printf_string("%.1f", top + 14) +
                   "\">every value is 0</text>");
    if (capacity > 0 && !show_capacity)
        out.append("<text class=\"note capacity-note\" x=\"" + printf_string("%.1f", left + 8) + "\" y=\"" +
                   printf_string("%.1f", top - 10) + "\">&#8593; capacity " + format_value(capacity, u) + " " + u.name +
                   " is off scale: the peak uses " + use_text(peak, capacity) + " of it</text>");
    const double x_step = n > 1 ? std::max(1.0, std::round(nice_step(static_cast<double>(n - 1), 8))) : 1;
    for (double i = 0; i < static_cast<double>(n); i += x_step)
        out.append("<text class=\"tick\" x=\"" + printf_string("%.1f", x_of(static_cast<std::size_t>(i))) + "\" y=\"" +
                   printf_string("%.1f", height - bottom + 18) + "\" text-anchor=\"middle\">" + printf_string("%.0f", i) + "</text>");
    out.append("<text class=\"axis\" x=\"" + printf_string("%.1f", left + plot_w / 2) + "\" y=\"" + printf_string("%.1f", height - 8) +
               "\" text-anchor=\"middle\">scope index</text>");
    if (show_capacity)
        out.append("<line class=\"capacity\" x1=\"" + printf_string("%.1f", left) + "\" x2=\"" + printf_string("%.1f", width - right) +
                   "\" y1=\"" + printf_string("%.1f", y_of(capacity)) + "\" y2=\"" + printf_string("%.1f", y_of(capacity)) +
                   "\"><title>capacity " + format_value(capacity, u) + " " + u.name + "</title></line>");
    // Past a few hundred scopes a marker per point would make the page
    // megabytes of SVG per chart (millions of scopes: gigabytes). Long series
    // are drawn as the min and max of each bucket of scopes, which keeps every
    // spike visible, and the peak keeps its exact marker.
    const std::size_t bucket = n > max_marked_points ? (n + drawn_buckets - 1) / drawn_buckets : 1;
    if (bucket > 1)
        out.append("<text class=\"tick\" x=\"" + printf_string("%.1f", width - right) + "\" y=\"16\" text-anchor=\"end\">" +
                   std::to_string(n) + " scopes: lines join the min and max of each " + std::to_string(bucket) + "</text>");
    for (const auto& s : lines) {
        out.append(std::string("<polyline fill=\"none\" stroke=\"") + s.color + "\" stroke-width=\"2\"" +
                   (s.dash ? std::string(" stroke-dasharray=\"") + s.dash + "\"" : std::string()) + " points=\"");
        const auto add_point = [&](std::size_t i) {
            out.append(printf_string("%.1f,", x_of(i)) + printf_string("%.1f ", y_of(s.values[i])));
        };
        std::size_t peak_at = 0;
        for (std::size_t from = 0; from < s.values.size(); from += bucket) {
            const std::size_t to = std::min(s.values.size(), from + bucket);
            std::size_t lo = from, hi = from;
            for (std::size_t i = from; i < to; ++i) {
                if (s.values[i] < s.values[lo]) lo = i;
                if (s.values[i] > s.values[hi]) hi = i;
            }
            if (s.values[hi] > s.values[peak_at]) peak_at = hi;
            add_point(std::min(lo, hi));
            if (lo != hi) add_point(std::max(lo, hi));
        }
        out.append("\"/>");
        const auto marker = [&](std::size_t i) {
            return std::string("<title>") + s.label + ": scope #" + std::to_string(i) + ", y=" + format_value(s.values[i], u) +
                   ", site=" + html_escape(names[sites[i]]) + "</title></circle>";
        };
        if (bucket == 1)
            for (std::size_t i = 0; i < s.values.size(); ++i)
                out.append(std::string("<circle r=\"3\" fill=\"") + s.color + "\" cx=\"" + printf_string("%.1f", x_of(i)) +
                           "\" cy=\"" + printf_string("%.1f", y_of(s.values[i])) + "\">" + marker(i));
        if (!s.values.empty())
            out.append(std::string("<circle class=\"peak\" r=\"6\" stroke=\"") + s.color + "\" cx=\"" +
                       printf_string("%.1f", x_of(peak_at)) + "\" cy=\"" + printf_string("%.1f", y_of(s.values[peak_at])) + "\">" +
                       marker(peak_at));
    }
    out.append("</svg>");
}

struct peak_row {
    std::string resource;
    std::string ring;  // "ring_depth N" or "global"
    std::string metric;
    double peak = 0;
    double capacity = 0;
    unit u{"", 1};
    std::string site;
    std::size_t index = 0;
};

inline peak_row find_peak(const std::string& resource, const std::string& ring, const std::string& metric,
                          const std::vector<double>& values, const std::vector<std::uint32_t>& sites,
                          const scope_sites& names, double capacity, const unit& u) {
    peak_row row{resource, ring, metric, 0, capacity, u, "", 0};
    for (std::size_t i = 0; i < values.size(); ++i)
        if (i == 0 || values[i] > row.peak) {
            row.peak = values[i];
            row.site = names[sites[i]];
            row.index = i;
        }
    return row;
}

// One panel's series: the scopes of a ring that carried a resource (or, for
// the tensormap, every scope that carried it), in end-record order. Gathered
// once for the peaks table and again when the panel is drawn, so that only
// one panel's series exist at a time.
struct panel_series {
    std::vector<double> high, live, alloc;
    std::vector<std::uint32_t> sites;
};

inline panel_series ring_panel(const std::vector<scope_pair>& scopes, std::size_t k) {
    panel_series out;
    for (const auto& p : scopes) {
        if (!p.present[k]) continue;
        out.high.push_back(p.high_water[k]);
        out.live.push_back(p.live[k]);
        out.alloc.push_back(p.alloc[k]);
        out.sites.push_back(p.site);
    }
    return out;
}

inline panel_series tensormap_panel(const std::vector<const scope_pair*>& scopes) {
    panel_series out;
    for (const scope_pair* p : scopes)
        if (p->has_tensormap) {
            out.live.push_back(p->tensormap);
            out.sites.push_back(p->site);
        }
    return out;
}

inline std::string peak_aside(const peak_row& p) {
    return "<aside><h4>Max use</h4><dl><dt>metric</dt><dd>" + p.metric + "</dd><dt>peak</dt><dd>" +
           format_value(p.peak, p.u) + " " + p.u.name + "</dd><dt>capacity</dt><dd>" +
           (p.capacity > 0 ? format_value(p.capacity, p.u) + " " + p.u.name : std::string("n/a")) +
           "</dd><dt>use</dt><dd><span class=\"pill " + risk_class(p.peak, p.capacity) + "\">" +
           use_text(p.peak, p.capacity) + "</span></dd><dt>peak scope</dt><dd>#" + std::to_string(p.index) +
           "</dd><dt>site</dt><dd>" + html_escape(p.site) + "</dd></dl></aside>";
}

inline constexpr const char* report_css = R"(
body{font:14px/1.45 system-ui,sans-serif;margin:0;background:#f8fafc;color:#0f172a}
main{max-width:1200px;margin:0 auto;padding:24px}
.eyebrow{text-transform:uppercase;letter-spacing:.08em;color:#64748b;font-size:12px;margin:0}
h1{margin:4px 0 8px;font-size:24px}
.chips span{display:inline-block;border-radius:999px;padding:2px 10px;margin:2px 6px 2px 0;background:#e2e8f0}
.ok{background:#dcfce7!important;color:#166534}.warn{background:#fef3c7!important;color:#92400e}
.danger{background:#fee2e2!important;color:#991b1b}.muted{background:#f1f5f9!important;color:#64748b}
table{border-collapse:collapse;width:100%;background:#fff}th,td{border-bottom:1px solid #e2e8f0;padding:6px 8px;text-align:left}
details{background:#fff;border:1px solid #e2e8f0;border-radius:8px;margin:12px 0;padding:8px 12px}
summary{cursor:pointer;font-weight:600}
.panel{display:grid;grid-template-columns:1fr 260px;gap:16px;align-items:start}
.chart{width:100%;height:auto;background:#fff}.grid{stroke:#e2e8f0}.tick,.axis{font-size:12px;fill:#64748b}
.capacity{stroke:#0f172a;stroke-dasharray:6 4}.peak{fill:none;stroke-width:2}.note{font-size:12px;fill:#475569}
.pill{border-radius:999px;padding:1px 8px}.legend span{margin-right:12px}.legend svg{vertical-align:middle}
dl{display:grid;grid-template-columns:auto 1fr;gap:2px 10px;margin:0}dt{color:#64748b}
)";

}  // namespace detail

// Writes the report for `file` (named `title` in the page) to `out`, anything
// with append(std::string_view) (json_file_writer, std::string), piece by
// piece: at 10^4 tasks the page is about 3 MB, and the command streams it to
// the file instead of holding it. `pairs` is the file's pairing
// (pair_scopes, or a scope_pairer fed as it was read); only file.meta and
// file.sites are read here, so the file need not hold its records.
template <class Out>
void write_scope_stats_html(Out& out, const scope_stats_file& file, const scope_pairing& pairs, const std::string& title) {
    using namespace detail;
    const auto& meta = file.meta;
    const auto& names = file.sites;
    const std::array<const std::array<double, scope_rings>*, ring_resources> capacities = {
        &meta.task_window_max, &meta.heap_max, &meta.dep_pool_max};

    // The site with the most paired scopes; on a tie the name first in
    // byte order (the order a map by name, the earlier code, visited them).
    std::string dominant = "none";
    std::size_t dominant_count = 0;
    for (std::uint32_t id = 0; id < pairs.end_sites.size(); ++id) {
        const std::size_t count = pairs.end_sites[id];
        if (count > dominant_count || (count == dominant_count && count > 0 && names[id] < dominant)) {
            dominant = names[id];
            dominant_count = count;
        }
    }
    int rings_used = 0;
    for (const auto& ring : pairs.by_ring) rings_used += !ring.empty();

    // The peaks table comes before the panels: a first pass finds the peaks.
    std::vector<peak_row> peaks;
    for (int k = 0; k < ring_resources; ++k) {
        const auto ks = static_cast<std::size_t>(k);
        for (int ring = 0; ring < scope_rings; ++ring) {
            const panel_series p = ring_panel(pairs.by_ring[static_cast<std::size_t>(ring)], ks);
            if (p.high.empty()) continue;
            peaks.push_back(find_peak(ring_resource_name[k], "ring_depth " + std::to_string(ring), "scope_high_water", p.high,
                                      p.sites, names, (*capacities[ks])[static_cast<std::size_t>(ring)], resource_units[ks]));
        }
    }
    {
        const panel_series p = tensormap_panel(pairs.tensormap);
        if (!p.live.empty())
            peaks.push_back(find_peak("tensormap", "global", "real_occupancy", p.live, p.sites, names, meta.tensormap_max,
                                      unit{"entries", 1}));
    }

    out.append("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>scope_stats: " + html_escape(title) +
               "</title><style>" + report_css + "</style></head><body><main>");
    out.append("<p class=\"eyebrow\">scope_stats report</p><h1>" + html_escape(title) + "</h1>");
    out.append("<p>Dominant scope site: <b>" + html_escape(dominant) + "</b> (" + std::to_string(dominant_count) +
               " paired scopes)</p><p class=\"chips\">");
    if (meta.fatal)
        out.append("<span class=\"danger\">Fatal</span>");
    else if (meta.dropped > 0)
        out.append("<span class=\"warn\">Dropped records: " + std::to_string(meta.dropped) + "</span>");
    else
        out.append("<span class=\"ok\">Healthy: no fatal, no dropped</span>");
    out.append("<span>" + std::to_string(meta.total) + " records</span><span>" + std::to_string(pairs.pair_count()) +
               " total paired scopes</span><span>" + std::to_string(rings_used) + " ring_depths</span>");
    if (pairs.unmatched_ends > 0 || pairs.unpaired_begins > 0)
        out.append("<span class=\"warn\">" + std::to_string(pairs.unmatched_ends) + " unmatched ends, " +
                   std::to_string(pairs.unpaired_begins) + " unpaired begins</span>");
    out.append("</p>");
    out.append("<p>High water = end.X_end &minus; begin.X_start (an upper bound: backlog at entry plus everything "
               "allocated in the scope); live at exit = end.X_end &minus; end.X_start; alloc per scope = end.X_end "
               "&minus; begin.X_end. The x axis is scope order (end records), not time.</p>");

    out.append("<h2>Top peaks</h2><table><thead><tr><th>Resource</th><th>ring_depth</th><th>Metric</th><th>Peak</th>"
               "<th>Capacity</th><th>Use</th><th>Site</th><th>Scope index</th></tr></thead><tbody>");
    for (const auto& p : peaks)
        out.append("<tr><td>" + p.resource + "</td><td>" + p.ring + "</td><td>" + p.metric + "</td><td>" +
                   format_value(p.peak, p.u) + " " + p.u.name + "</td><td>" +
                   (p.capacity > 0 ? format_value(p.capacity, p.u) + " " + p.u.name : std::string("n/a")) +
                   "</td><td><span class=\"pill " + risk_class(p.peak, p.capacity) + "\">" + use_text(p.peak, p.capacity) +
                   "</span></td><td>" + html_escape(p.site) + "</td><td>#" + std::to_string(p.index) + "</td></tr>");
    out.append("</tbody></table>");

    // The panels, in the first pass's order (peaks[next] is this panel's).
    std::size_t next = 0;
    for (int k = 0; k < ring_resources; ++k) {
        const auto ks = static_cast<std::size_t>(k);
        bool heading = false;
        for (int ring = 0; ring < scope_rings; ++ring) {
            const panel_series p = ring_panel(pairs.by_ring[static_cast<std::size_t>(ring)], ks);
            if (p.high.empty()) continue;
            if (!heading) out.append(std::string("<h2>") + ring_resource_name[k] + "</h2>");
            heading = true;
            const double capacity = (*capacities[ks])[static_cast<std::size_t>(ring)];
            const unit& u = resource_units[ks];
            const peak_row& peak = peaks[next++];
            out.append(std::string("<details") + (p.high.size() > 1 ? " open" : "") + "><summary>" + ring_resource_name[k] +
                       " &middot; " + peak.ring + " &middot; " + std::to_string(p.high.size()) + " scopes &middot; peak " +
                       format_value(peak.peak, u) + " " + u.name + " (" + use_text(peak.peak, capacity) +
                       " of capacity)</summary><div class=\"panel\"><div>");
            // Live at exit often runs on top of the high water: dashed, it stays visible.
            line_chart(out, {{"High water", "#dc2626", p.high}, {"Live at exit", "#059669", p.live, "5 4"}}, p.sites, names,
                       capacity, u, std::string(u.name) + " in use");
            line_chart(out, {{"Alloc per scope", "#2563eb", p.alloc}}, p.sites, names, 0, u,
                       std::string(u.name) + " allocated in the scope");
            out.append("</div>" + peak_aside(peak) + "</div></details>");
        }
    }
    {
        const panel_series p = tensormap_panel(pairs.tensormap);
        if (!p.live.empty()) {
            const unit u{"entries", 1};
            const peak_row& peak = peaks[next++];
            out.append("<h2>tensormap</h2><details" + std::string(p.live.size() > 1 ? " open" : "") +
                       "><summary>tensormap &middot; global &middot; peak " + format_value(peak.peak, u) + " entries (" +
                       use_text(peak.peak, meta.tensormap_max) + " of capacity)</summary><div class=\"panel\"><div>");
            line_chart(out, {{"Live entries", "#7c3aed", p.live}}, p.sites, names, meta.tensormap_max, u, "entries in use");
            out.append("</div>" + peak_aside(peak) + "</div></details>");
        }
    }
    out.append("</main></body></html>\n");
}

// The report as one string (tests; the command streams to its file).
inline std::string render_scope_stats_html(const scope_stats_file& file, const std::string& title) {
    std::string html;
    write_scope_stats_html(html, file, pair_scopes(file), title);
    return html;
}

}  // namespace dfx::convert
