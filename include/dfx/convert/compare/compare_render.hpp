// compare_render: `dfx compare` as text, JSON and CSV (the HTML page is
// compare_html.hpp). Every format carries the same rows with the same
// stable field names (docs/converters.md, "dfx compare"):
//
//   section measure unit a b delta ratio significant threshold basis absent note
//
//   text   one aligned row per measure (grep-friendly: `grep SIG`), then the
//          significant changes and the kernels that moved the most time;
//   json   {"a": DIR, "b": DIR, "rows": [{...}], "fail_if": [{...}]}; absent values are null;
//   csv    a header line, then one line per row (RFC 4180 quoting).
//
//   const std::string t = render_compare_text(a_dir, b_dir, rows, verdicts);
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "dfx/io/json_string.hpp"
#include "dfx/convert/common/csv_table.hpp"
#include "dfx/convert/compare/compare_table.hpp"
#include "dfx/convert/compare/fail_if.hpp"

namespace dfx::convert::compare {

namespace render_detail {

inline bool is_count(std::string_view unit) {
    return unit == "tasks" || unit == "edges" || unit == "levels" || unit == "slots" || unit == "bytes" || unit == "entries";
}
inline std::string value_text(const std::optional<double>& v, std::string_view unit) {
    if (!v) return "-";
    return is_count(unit) ? fmt::format("{:.0f}", *v) : fmt::format("{:.2f}", *v);
}
inline std::string delta_text(const std::optional<double>& v, std::string_view unit) {
    if (!v) return "-";
    return is_count(unit) ? fmt::format("{:+.0f}", *v) : fmt::format("{:+.2f}", *v);
}
inline std::string ratio_text(const std::optional<double>& v) { return v ? fmt::format("{:.3f}", *v) : "-"; }
inline std::string sig_text(const compare_row& r) {
    if (!r.both()) return "n/a";
    return r.significant ? "SIG" : "-";
}
inline std::string note_text(const compare_row& r) {
    std::string n = r.absent.empty() ? r.note : "absent: " + r.absent;
    if (!r.absent.empty() && !r.note.empty()) n += "; " + r.note;
    return n.empty() ? "-" : n;
}

// Kernels whose exec p50 moved significantly, by the time it moved in B
// (|delta p50| x B's task count): where a makespan change came from.
struct kernel_move {
    std::string section, name;
    double delta_p50 = 0, total_delta = 0;
};
inline std::vector<kernel_move> kernel_moves(const std::vector<compare_row>& rows) {
    std::vector<kernel_move> out;
    for (const auto& r : rows) {
        if (r.measure.rfind("kernel:", 0) != 0 || r.measure.size() < 12 ||
            r.measure.compare(r.measure.size() - 4, 4, ".p50") != 0 || !r.significant || !r.both())
            continue;
        const std::string name = r.measure.substr(7, r.measure.size() - 11);
        double count = 0;
        for (const auto& c : rows)
            if (c.section == r.section && c.measure == "kernel:" + name + ".count" && c.b) count = *c.b;
        out.push_back({r.section, name, *r.delta(), *r.delta() * count});
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const kernel_move& x, const kernel_move& y) { return std::fabs(x.total_delta) > std::fabs(y.total_delta); });
    return out;
}

inline std::string num(const std::optional<double>& v) {
    if (!v || !std::isfinite(*v)) return "null";
    return fmt::format("{}", *v);
}
inline std::string str(std::string_view s) { return io::json_string(s, io::json_string_style::utf8); }
using dfx::convert::csv_field;

}  // namespace render_detail

inline constexpr const char* compare_fields[] = {"section", "measure", "unit", "a", "b", "delta", "ratio",
                                                 "significant", "threshold", "basis", "absent", "note"};

inline std::string render_compare_text(const std::string& a_dir, const std::string& b_dir, const std::vector<compare_row>& rows,
                                       const std::vector<fail_verdict>& verdicts) {
    using namespace render_detail;
    bool sections = false;
    for (const auto& r : rows) sections = sections || r.section != ".";
    std::vector<std::vector<std::string>> cells;
    cells.push_back({"section", "measure", "unit", "A", "B", "delta", "ratio", "sig", "threshold", "basis", "note"});
    for (const auto& r : rows) {
        cells.push_back({r.section, r.measure, r.unit.empty() ? "-" : r.unit, value_text(r.a, r.unit), value_text(r.b, r.unit),
                         delta_text(r.delta(), r.unit), ratio_text(r.ratio()), sig_text(r),
                         r.both() ? value_text(r.rule.threshold, r.unit) : "-", r.both() ? r.rule.basis : "-", note_text(r)});
    }
    const std::size_t first = sections ? 0 : 1;
    std::vector<std::size_t> width(cells[0].size(), 0);
    for (const auto& row : cells)
        for (std::size_t i = first; i + 1 < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
    std::string o = fmt::format("dfx compare\n  A: {}\n  B: {}\n\n", a_dir, b_dir);
    for (const auto& row : cells) {
        std::string line;
        for (std::size_t i = first; i < row.size(); ++i) {
            const bool left = i <= 2 || i == 7 || i == 9;
            if (i + 1 == row.size()) line += row[i];
            else line += left ? fmt::format("{:<{}}  ", row[i], width[i]) : fmt::format("{:>{}}  ", row[i], width[i]);
        }
        o += line + "\n";
    }
    std::size_t significant = 0;
    for (const auto& r : rows) significant += r.significant ? 1 : 0;
    o += fmt::format("\n{} significant change{} (sig: SIG past the row's threshold; basis iqr = the larger interquartile "
                     "range of the two runs, floor = 2% of A or 0.1 us, boxes = the runs' [p25, p75] apart and past the floor, N% = that share of A (--min-change), 3pt = percentage points, ring = verdict "
                     "change or 10% of capacity, exact = any change)\n",
                     significant, significant == 1 ? "" : "s");
    const auto moves = kernel_moves(rows);
    if (!moves.empty()) {
        o += "Kernels that moved (significant exec p50 change x B's task count):\n";
        for (const auto& m : moves)
            o += fmt::format("  {}{}: p50 {:+.2f} us per task, {:+.2f} us over its tasks\n",
                             m.section == "." ? "" : m.section + " ", m.name, m.delta_p50, m.total_delta);
    }
    for (const auto& v : verdicts)
        o += fmt::format("--fail-if {}: {}\n", v.violated ? "VIOLATED" : "ok", v.why);
    return o;
}

inline std::string render_compare_json(const std::string& a_dir, const std::string& b_dir,
                                       const std::vector<compare_row>& rows, const std::vector<fail_verdict>& verdicts) {
    using namespace render_detail;
    std::string o = fmt::format(R"({{"a": {}, "b": {}, "rows": [)", str(a_dir), str(b_dir));
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const auto& r = rows[i];
        o += fmt::format(R"({}{{"section": {}, "measure": {}, "unit": {}, "a": {}, "b": {}, "delta": {}, "ratio": {}, )"
                         R"("significant": {}, "threshold": {}, "basis": {}, "absent": {}, "note": {}}})",
                         i ? ",\n  " : "\n  ", str(r.section), str(r.measure), str(r.unit), num(r.a), num(r.b), num(r.delta()),
                         num(r.ratio()), r.significant ? "true" : "false", r.both() ? num(r.rule.threshold) : "null",
                         r.both() ? str(r.rule.basis) : "null", r.absent.empty() ? "null" : str(r.absent), str(r.note));
    }
    o += "],\n \"fail_if\": [";
    for (std::size_t i = 0; i < verdicts.size(); ++i)
        o += fmt::format(R"({}{{"section": {}, "measure": {}, "violated": {}, "why": {}}})", i ? ", " : "",
                         str(verdicts[i].section), str(verdicts[i].measure), verdicts[i].violated ? "true" : "false",
                         str(verdicts[i].why));
    return o + "]}\n";
}

inline std::string render_compare_csv(const std::vector<compare_row>& rows) {
    using namespace render_detail;
    std::string o;
    for (std::size_t i = 0; i < std::size(compare_fields); ++i) {
        if (i) o += ',';  // appended piece by piece: `"," + std::string(...)` trips g++ 12's -O3 -Wrestrict
        o += compare_fields[i];
    }
    o += "\n";
    const auto plain = [](const std::optional<double>& v) { return v ? fmt::format("{}", *v) : std::string(); };
    for (const auto& r : rows) {
        o += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{}\n", csv_field(r.section), csv_field(r.measure), csv_field(r.unit),
                         plain(r.a), plain(r.b), plain(r.delta()), plain(r.ratio()), r.significant ? "true" : "false",
                         r.both() ? plain(r.rule.threshold) : "", r.both() ? r.rule.basis : "", csv_field(r.absent),
                         csv_field(r.note));
    }
    return o;
}

}  // namespace dfx::convert::compare
