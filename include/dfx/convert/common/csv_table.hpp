// csv_table: the CSV that dfx's machine-readable tables write (`dfx compare
// --format csv`, `dfx report --format csv`, `dfx pmu --format csv`, the
// `--stats csv` of swimlane and sched-overhead): a header row, then one line
// per row, fields quoted as RFC 4180 says (only when they hold a comma, a
// quote or a line break; a quote doubled).
//
//   std::string csv = csv_line({"kernel", "total_us"});
//   csv += csv_line({name, csv_number(total)});
#pragma once

#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

namespace dfx::convert {

inline std::string csv_field(std::string_view s) {
    if (s.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(s);
    std::string o = "\"";
    for (const char ch : s) o += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return o + "\"";
}

// The shortest text that reads back as the same double; empty when not finite.
inline std::string csv_number(double v) { return std::isfinite(v) ? fmt::format("{}", v) : std::string(); }

inline std::string csv_line(const std::vector<std::string>& fields) {
    std::string o;
    for (std::size_t i = 0; i < fields.size(); ++i) o += (i ? "," : "") + csv_field(fields[i]);
    return o + "\n";
}

}  // namespace dfx::convert
