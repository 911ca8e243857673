// compare_html: `dfx compare A B --format html`, one self-contained page
// (the report page's style, report/report_html.hpp; inline SVG, no script,
// nothing fetched): the significant changes as a diverging bar chart of the
// relative change (B - A) / A with the axis in percent and a legend, then
// the full table (compare_render.hpp's rows and columns), significant rows
// marked, absent measures with their reason, then the --fail-if verdicts.
//
//   std::string page = render_compare_html(a_dir, b_dir, rows, verdicts);
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "dfx/convert/common/html_escape.hpp"
#include "dfx/convert/compare/compare_render.hpp"
#include "dfx/convert/report/report_html.hpp"

namespace dfx::convert::compare {

namespace html_detail {

inline constexpr const char* compare_style = R"(
tr.sig td{background:#fef3c7}tr.absent td{color:#666}
table.cmp td:nth-child(-n+3),table.cmp td:nth-child(8),table.cmp td:nth-child(n+10),table.cmp th{text-align:left}
svg .up{fill:#dc2626}svg .down{fill:#059669}
)";

// Horizontal bars of the relative change of each significant row with an A != 0.
inline std::string change_chart(const std::vector<compare_row>& rows) {
    struct bar {
        std::string label;
        double pct;
    };
    std::vector<bar> bars;
    for (const auto& r : rows)
        if (r.significant && r.ratio()) bars.push_back({(r.section == "." ? "" : r.section + " ") + r.measure, (*r.ratio() - 1) * 100});
    if (bars.empty()) return "<p class=\"muted\">No significant change with a non-zero A to chart.</p>";
    double span = 1;
    for (const auto& b : bars) span = std::max(span, std::fabs(b.pct));
    const double step = report::nice_step(span, 4);
    span = std::ceil(span / step) * step;
    const double label_w = 300, plot_w = 400, row_h = 18, top = 28, bottom = 40;
    const double width = label_w + plot_w + 24, height = top + row_h * static_cast<double>(bars.size()) + bottom;
    const double mid = label_w + plot_w / 2;
    const auto x_of = [&](double pct) { return mid + pct / span * plot_w / 2; };
    std::string s = fmt::format(R"(<svg class="chart" width="{0}" height="{1}" viewBox="0 0 {0} {1}">)",
                                width, height);
    s += R"(<text class="title" x="8" y="18">Significant changes: (B - A) / A</text>)";
    for (double t = -span; t <= span + step * 1e-6; t += step) {
        s += fmt::format(R"(<line class="grid" x1="{0:.1f}" x2="{0:.1f}" y1="{1}" y2="{2}"/>)", x_of(t), top, height - bottom);
        s += fmt::format(R"(<text class="tick" x="{:.1f}" y="{}" text-anchor="middle">{}%</text>)", x_of(t), height - bottom + 14,
                         report::tick_text(t, step));
    }
    for (std::size_t i = 0; i < bars.size(); ++i) {
        const double y = top + row_h * static_cast<double>(i);
        const double x0 = std::min(x_of(0), x_of(bars[i].pct)), w = std::fabs(x_of(bars[i].pct) - x_of(0));
        s += fmt::format(R"(<text class="label" x="{}" y="{:.1f}" text-anchor="end">{}</text>)", label_w - 6, y + 13,
                         html_escape(bars[i].label));
        s += fmt::format(R"(<rect class="{}" x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{}"><title>{:+.1f}%</title></rect>)",
                         bars[i].pct >= 0 ? "up" : "down", x0, y + 3, std::max(w, 1.0), row_h - 6, bars[i].pct);
    }
    s += fmt::format(R"(<line class="axis" x1="{0}" x2="{0}" y1="{1}" y2="{2}"/>)", mid, top, height - bottom);
    s += fmt::format(R"(<text class="label" x="{}" y="{}" text-anchor="middle">relative change (%)</text>)", mid, height - 8);
    s += fmt::format(R"(<rect class="up" x="{0}" y="8" width="10" height="10"/><text class="legend" x="{1}" y="17">B higher</text>)"
                     R"(<rect class="down" x="{2}" y="8" width="10" height="10"/><text class="legend" x="{3}" y="17">B lower</text>)",
                     width - 170, width - 156, width - 90, width - 76);
    return s + "</svg>";
}

}  // namespace html_detail

inline std::string render_compare_html(const std::string& a_dir, const std::string& b_dir, const std::vector<compare_row>& rows,
                                       const std::vector<fail_verdict>& verdicts) {
    using namespace render_detail;
    std::string o = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>dfx compare</title><style>";
    o += report::html_detail::page_style;
    o += html_detail::compare_style;
    o += "</style></head><body>\n<h1>dfx compare</h1>\n";
    o += fmt::format("<p>A: <code>{}</code><br>B: <code>{}</code></p>\n", html_escape(a_dir), html_escape(b_dir));
    std::size_t significant = 0;
    for (const auto& r : rows) significant += r.significant ? 1 : 0;
    o += fmt::format("<h2>{} significant change{}</h2>\n", significant, significant == 1 ? "" : "s");
    o += html_detail::change_chart(rows);
    if (!verdicts.empty()) {
        o += "<h2>--fail-if</h2>\n<ul>";
        for (const auto& v : verdicts)
            o += fmt::format("<li>{}: {}</li>", v.violated ? "<b>VIOLATED</b>" : "ok", html_escape(v.why));
        o += "</ul>\n";
    }
    o += "<h2>All measures</h2>\n<table class=\"cmp\"><tr><th>section</th><th>measure</th><th>unit</th><th>A</th><th>B</th><th>delta</th>"
         "<th>ratio</th><th>sig</th><th>threshold</th><th>basis</th><th>note</th></tr>\n";
    for (const auto& r : rows) {
        o += fmt::format(R"(<tr class="{}">)", r.significant ? "sig" : (r.both() ? "" : "absent"));
        for (const std::string& cell :
             {r.section, r.measure, r.unit.empty() ? std::string("-") : r.unit, value_text(r.a, r.unit), value_text(r.b, r.unit), delta_text(r.delta(), r.unit),
              ratio_text(r.ratio()), sig_text(r), r.both() ? value_text(r.rule.threshold, r.unit) : std::string("-"),
              r.both() ? r.rule.basis : std::string("-")})
            o += "<td>" + html_escape(cell) + "</td>";
        o += "<td>" + html_escape(note_text(r)) + "</td></tr>\n";
    }
    o += "</table>\n<p class=\"muted\">sig: SIG when |delta| exceeds the row's threshold; basis iqr = the larger "
         "interquartile range of the two runs' tasks, floor = 2% of A or 0.1 us, boxes = the runs' [p25, p75] apart and past the floor, N% = that share of A (--min-change), 3pt = percentage points, "
         "ring = verdict change or 10% of capacity, exact = any change.</p>\n</body></html>\n";
    return o;
}

}  // namespace dfx::convert::compare
