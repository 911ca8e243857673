// svg_chart: the report page's charts as inline SVG (no script, no network):
// line or bar series over a numeric x axis, with labelled axes (name and
// unit), ticks at round values, a legend, and an optional dashed limit line
// (a capacity). An all-zero series gets a 0..1 axis, not six "0.00" ticks.
//
//   chart c{.title = "Busy cores", .x_label = "time (us)", .y_label = "busy cores (%)"};
//   c.series.push_back({"aic", "#2563eb", xs, ys});
//   std::string svg = render_chart(c);
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "dfx/convert/common/html_escape.hpp"

namespace dfx::convert::report {

struct chart_series {
    std::string name;
    std::string colour;
    std::vector<double> x, y;
};

struct chart {
    std::string title, x_label, y_label;
    std::vector<chart_series> series;
    bool bars = false;                 // bars centred on x (width: the x step), else lines
    bool integer_x = false;            // x is a count (level, scope index): whole-number ticks
    std::optional<double> limit;       // dashed horizontal line (a capacity)
    std::optional<double> y_max;       // a fixed top of the y axis (100 for a percentage)
    std::string limit_label = "capacity";
    double width = 720, height = 260;
};

// A round tick step giving about `ticks` ticks over [0, span].
inline double nice_step(double span, int ticks = 5) {
    if (!(span > 0)) return 1;
    const double raw = span / ticks;
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    for (const double m : {1.0, 2.0, 5.0, 10.0})
        if (raw <= m * mag) return m * mag;
    return 10 * mag;
}

inline std::string tick_text(double v, double step) {
    if (std::fabs(v) < step * 1e-6) v = 0;  // never "-0"
    if (step >= 1 || v == 0) return fmt::format("{:.0f}", v);
    const int decimals = static_cast<int>(std::ceil(-std::log10(step)));
    return fmt::format("{:.{}f}", v, decimals);
}

inline std::string render_chart(const chart& c) {
    const double left = 64, right = 16, top = 28, bottom = 44;
    const double pw = c.width - left - right, ph = c.height - top - bottom;
    double x0 = 0, x1 = 0, y1 = 0;
    bool first = true;
    for (const auto& s : c.series)
        for (std::size_t i = 0; i < s.x.size(); ++i) {
            x0 = first ? s.x[i] : std::min(x0, s.x[i]);
            x1 = first ? s.x[i] : std::max(x1, s.x[i]);
            y1 = std::max(y1, s.y[i]);
            first = false;
        }
    // A limit far above the data would flatten it: named in the legend as off scale instead of drawn.
    const bool limit_drawn = c.limit && !(y1 > 0 && *c.limit > 3 * y1);
    if (limit_drawn) y1 = std::max(y1, *c.limit);
    if (!(y1 > 0)) y1 = 1;
    if (c.y_max) y1 = std::max(y1, *c.y_max);
    y1 *= 1.05;
    double bar_w = 0;
    if (c.bars) {  // room for half a bar at each end
        const std::size_t n = c.series.empty() ? 0 : c.series.front().x.size();
        const double step = n > 1 ? (x1 - x0) / static_cast<double>(n - 1) : 1;
        x0 -= step / 2;
        x1 += step / 2;
        bar_w = step;
    }
    if (!(x1 > x0)) x1 = x0 + 1;
    const auto X = [&](double x) { return left + (x - x0) / (x1 - x0) * pw; };
    const auto Y = [&](double y) { return top + ph - y / y1 * ph; };
    std::string o = fmt::format(R"(<svg class="chart" viewBox="0 0 {0} {1}" width="{0}" height="{1}" role="img" aria-label="{2}">)",
                                c.width, c.height, html_escape(c.title));
    o += fmt::format(R"(<text x="{}" y="16" class="title">{}</text>)", left, html_escape(c.title));
    // Axes, ticks and grid.
    const double ys = nice_step(y1 / 1.05);
    for (double t = 0; t <= y1 + 1e-9; t += ys) {
        o += fmt::format(R"(<line class="grid" x1="{:.1f}" x2="{:.1f}" y1="{:.1f}" y2="{:.1f}"/>)", left, left + pw, Y(t), Y(t));
        o += fmt::format(R"(<text class="tick" x="{:.1f}" y="{:.1f}" text-anchor="end">{}</text>)", left - 6, Y(t) + 4, tick_text(t, ys));
    }
    const double xs = c.integer_x ? std::max(1.0, nice_step(x1 - x0, 6)) : nice_step(x1 - x0, 6);
    for (double t = std::ceil(x0 / xs) * xs; t <= x1 + 1e-9; t += xs) {
        o += fmt::format(R"(<line class="axis" x1="{0:.1f}" x2="{0:.1f}" y1="{1:.1f}" y2="{2:.1f}"/>)", X(t), top + ph, top + ph + 4);
        o += fmt::format(R"(<text class="tick" x="{:.1f}" y="{:.1f}" text-anchor="middle">{}</text>)", X(t), top + ph + 16, tick_text(t, xs));
    }
    o += fmt::format(R"(<line class="axis" x1="{0}" x2="{0}" y1="{1}" y2="{2}"/>)", left, top, top + ph);
    o += fmt::format(R"(<line class="axis" x1="{0}" x2="{1}" y1="{2}" y2="{2}"/>)", left, left + pw, top + ph);
    o += fmt::format(R"(<text class="label" x="{:.1f}" y="{:.1f}" text-anchor="middle">{}</text>)", left + pw / 2, c.height - 6,
                     html_escape(c.x_label));
    o += fmt::format(R"svg(<text class="label" transform="translate(14 {:.1f}) rotate(-90)" text-anchor="middle">{}</text>)svg",
                     top + ph / 2, html_escape(c.y_label));
    // Series.
    const std::size_t ns = std::max<std::size_t>(c.series.size(), 1);
    for (std::size_t k = 0; k < c.series.size(); ++k) {
        const auto& s = c.series[k];
        if (c.bars) {
            const double w = std::max(1.0, bar_w / (x1 - x0) * pw * 0.8 / static_cast<double>(ns));
            for (std::size_t i = 0; i < s.x.size(); ++i) {
                const double bx = X(s.x[i]) - w * static_cast<double>(ns) / 2 + w * static_cast<double>(k);
                o += fmt::format(R"(<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" fill="{}"><title>{}: {}</title></rect>)",
                                 bx, Y(s.y[i]), w, top + ph - Y(s.y[i]), s.colour, html_escape(s.name), s.y[i]);
            }
        } else {
            std::string pts;
            for (std::size_t i = 0; i < s.x.size(); ++i) pts += fmt::format("{:.1f},{:.1f} ", X(s.x[i]), Y(s.y[i]));
            o += fmt::format(R"(<polyline fill="none" stroke="{}" stroke-width="1.8" stroke-dasharray="{}" points="{}"/>)", s.colour,
                             k % 2 ? "5 2" : "none", pts);
        }
    }
    if (limit_drawn)
        o += fmt::format(R"(<line class="limit" x1="{:.1f}" x2="{:.1f}" y1="{:.1f}" y2="{:.1f}"><title>{} {}</title></line>)", left,
                         left + pw, Y(*c.limit), Y(*c.limit), html_escape(c.limit_label), *c.limit);
    // Legend, top right.
    double lx = left + pw;
    std::vector<std::pair<std::string, std::string>> keys;
    for (const auto& s : c.series) keys.emplace_back(s.name, s.colour);
    if (limit_drawn) keys.emplace_back(c.limit_label, "#dc2626");
    if (c.limit && !limit_drawn) keys.emplace_back(fmt::format("{} {} (off scale)", c.limit_label, *c.limit), "#fca5a5");
    for (auto it = keys.rbegin(); it != keys.rend(); ++it) {
        const double w = 24 + 7 * static_cast<double>(it->first.size());
        lx -= w;
        o += fmt::format(R"(<rect x="{:.1f}" y="8" width="12" height="10" fill="{}"/><text class="legend" x="{:.1f}" y="17">{}</text>)", lx,
                         it->second, lx + 16, html_escape(it->first));
    }
    return o + "</svg>";
}

}  // namespace dfx::convert::report
